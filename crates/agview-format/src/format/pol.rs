//! X-Plane draped polygons (`.pol`; `850`, then `DRAPED_POLYGON`): a texture laid on the
//! ground, repeating every `SCALE` meters (a tiled polygon) or pinned by per-vertex texture
//! coordinates the DSF carries (an orthophoto, parameter 65535).
//!
//! Every directive of GROUND.md §1.1 is read with its line:
//! - drawn: `TEXTURE` (repeats), `TEXTURE_NOWRAP` (clamps), `SCALE h v`,
//!   `LAYER_GROUP name offset`, `NO_ALPHA`, `TEXTURE_LIT`;
//! - read and shown by `dump`, not drawn: `SURFACE`, `DECAL_LIB`, `LOAD_CENTER`,
//!   `TEXTURE_TILE`, `RUNWAY_TILE`.
//!
//! Defaults follow WED (`WED_ResourceMgr::GetPol`): `SCALE 1000 1000` when the file has none.
//! A file without a layer group leaves the choice to the document ([`Pol::layer_group`] is
//! `None`); see `docs/spec-decisions.md`. An unknown directive is a warning (once per
//! keyword), a malformed known one an error at its argument.

use std::collections::HashSet;
use std::path::Path;

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::format::obj8::TextureRef;
use crate::format::text::{read_header, TextFile};

/// A parsed `.pol` file.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Pol {
    pub version: u32,
    /// `TEXTURE` or `TEXTURE_NOWRAP`.
    pub texture: Option<TextureRef>,
    /// True for `TEXTURE_NOWRAP`: the texture is clamped at its edges, not repeated.
    pub nowrap: bool,
    /// `TEXTURE_LIT`: the night texture.
    pub lit: Option<TextureRef>,
    /// `SCALE h v`: meters one repeat of the texture covers along s and t (1000 × 1000 when
    /// the file gives none, as WED reads it). Ignored by orthophotos.
    pub scale: [f32; 2],
    /// `LAYER_GROUP name offset`, name lower-cased, with its line.
    pub layer_group: Option<(String, i32)>,
    /// `NO_ALPHA`: the texture's alpha is ignored (no blending, no alpha test).
    pub no_alpha: bool,
    /// `SURFACE`: the hard surface the physics uses (not drawn).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub surface: Option<String>,
    /// `DECAL_LIB`: a decal library for detail texture (not drawn).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decal_lib: Option<String>,
    /// `LOAD_CENTER lat lon size_m tex_px`, as WED writes for orthophotos (not drawn).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_center: Option<[f64; 4]>,
    /// `TEXTURE_TILE` and `RUNWAY_TILE`: their numbers and control texture, as written (not
    /// drawn; their meaning is unconfirmed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tiling: Vec<String>,
}

impl Pol {
    /// The default `SCALE` (GROUND.md §1.1).
    pub const DEFAULT_SCALE: [f32; 2] = [1000.0, 1000.0];
}

/// Reads a `.pol` file.
pub fn parse(path: &Path, src: &[u8], warnings: &mut Vec<Diagnostic>) -> Result<Pol, Diagnostic> {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(path, &src);
    let header = read_header(&mut tf, &[(&[850], "DRAPED_POLYGON")])?;
    let mut pol = Pol {
        version: header.version,
        scale: Pol::DEFAULT_SCALE,
        ..Pol::default()
    };
    let mut warned = HashSet::new();
    while let Some(line) = tf.next() {
        let mut line = line?;
        match line.keyword {
            "TEXTURE" | "TEXTURE_NOWRAP" => {
                let name = line.rest("texture file")?;
                pol.nowrap = line.keyword == "TEXTURE_NOWRAP";
                pol.texture = Some(TextureRef::new(path, name, line.number));
            }
            "TEXTURE_LIT" => {
                let name = line.rest("texture file")?;
                pol.lit = Some(TextureRef::new(path, name, line.number));
            }
            "SCALE" => {
                pol.scale = [line.positive_f32("h scale")?, line.positive_f32("v scale")?];
                line.expect_end(warnings);
            }
            "LAYER_GROUP" => {
                pol.layer_group = Some(line.layer_group(warnings)?);
            }
            "NO_ALPHA" => {
                pol.no_alpha = true;
                line.expect_end(warnings);
            }
            "SURFACE" => {
                pol.surface = Some(line.word("surface")?.to_string());
                line.expect_end(warnings);
            }
            "DECAL_LIB" => {
                pol.decal_lib = Some(line.rest("decal library")?.to_string());
            }
            "LOAD_CENTER" => {
                pol.load_center = Some([
                    line.f64("latitude")?,
                    line.f64("longitude")?,
                    line.f64("size")?,
                    line.f64("texture size")?,
                ]);
                line.expect_end(warnings);
            }
            "TEXTURE_TILE" | "RUNWAY_TILE" => {
                let kw = line.keyword;
                let rest = line.rest("tiling")?;
                pol.tiling.push(format!("{kw} {rest}"));
            }
            kw => {
                if warned.insert(kw.to_string()) {
                    warnings.push(line.unknown_directive("draped polygon"));
                }
            }
        }
    }
    if pol.texture.is_none() {
        warnings.push(Diagnostic::warning_at(
            path,
            tf.line_number().max(1),
            1,
            "the draped polygon names no TEXTURE: drawn as a checkerboard",
        ));
    }
    Ok(pol)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(src: &str) -> (Result<Pol, Diagnostic>, Vec<Diagnostic>) {
        let mut w = Vec::new();
        let r = parse(Path::new("/pkg/ground/apron.pol"), src.as_bytes(), &mut w);
        (r, w)
    }

    #[test]
    fn reads_every_directive() {
        let (r, w) = p(
            "A\n850\nDRAPED_POLYGON\n# a comment\nTEXTURE_NOWRAP ortho.dds\n\
                        TEXTURE_LIT ortho_LIT.png\nSCALE 25 50\nLAYER_GROUP beaches 1\nNO_ALPHA\n\
                        SURFACE asphalt\nDECAL_LIB lib/decals.dcl\n\
                        LOAD_CENTER 47.5 8.25 900.0 2048\nTEXTURE_TILE 4 4 2 2 ctrl.png\n\
                        #subtex 0 0 1 1\n",
        );
        let pol = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(pol.texture.as_ref().unwrap().name, "ortho.dds");
        assert_eq!(
            pol.texture.as_ref().unwrap().path,
            Path::new("/pkg/ground/ortho.dds")
        );
        assert!(pol.nowrap && pol.no_alpha);
        assert_eq!(pol.lit.as_ref().unwrap().line, 6);
        assert_eq!(pol.scale, [25.0, 50.0]);
        assert_eq!(pol.layer_group, Some(("beaches".into(), 1)));
        assert_eq!(pol.surface.as_deref(), Some("asphalt"));
        assert_eq!(pol.decal_lib.as_deref(), Some("lib/decals.dcl"));
        assert_eq!(pol.load_center, Some([47.5, 8.25, 900.0, 2048.0]));
        assert_eq!(
            pol.tiling,
            vec!["TEXTURE_TILE 4 4 2 2 ctrl.png".to_string()]
        );
    }

    #[test]
    fn defaults_follow_wed() {
        let (r, _) = p("I\n850\nDRAPED_POLYGON\nTEXTURE grass.png\n");
        let pol = r.unwrap();
        assert_eq!(pol.scale, [1000.0, 1000.0]);
        assert!(!pol.nowrap && !pol.no_alpha && pol.layer_group.is_none());
    }

    #[test]
    fn keywords_match_whole_tokens_and_unknown_ones_warn_once() {
        let (r, w) = p(
            "A\n850\nDRAPED_POLYGON\nTEXTURE a.png\nTEXTURE_NOWRAPX b.png\n\
                        TEXTURE_NOWRAPX c.png\n",
        );
        assert!(!r.unwrap().nowrap);
        assert_eq!(w.len(), 1);
        assert!(
            w[0].to_string()
                .contains(":5:1: warning: unknown draped polygon directive `TEXTURE_NOWRAPX`"),
            "{}",
            w[0]
        );
    }

    #[test]
    fn bad_numbers_are_located_errors() {
        let (r, _) = p("A\n850\nDRAPED_POLYGON\nTEXTURE a.png\nSCALE 25 zero\n");
        let e = r.unwrap_err().to_string();
        assert!(e.contains("apron.pol:5:10: error"), "{e}");
        let (r, _) = p("A\n850\nDRAPED_POLYGON\nSCALE 0 10\n");
        assert!(r.unwrap_err().to_string().contains(":4:7: error"));
        let (r, _) = p("A\n800\nDRAPED_POLYGON\n");
        assert!(r
            .unwrap_err()
            .to_string()
            .contains("unsupported version 800"));
    }

    #[test]
    fn layer_group_checks_its_name_and_offset() {
        let (r, w) = p("A\n850\nDRAPED_POLYGON\nTEXTURE a.png\nLAYER_GROUP Runways -7\n");
        assert_eq!(r.unwrap().layer_group, Some(("runways".into(), -7)));
        assert_eq!(w.len(), 1, "{w:?}");
        let (_, w) = p("A\n850\nDRAPED_POLYGON\nTEXTURE a.png\nLAYER_GROUP ponds\n");
        assert!(w[0].message.contains("unknown layer group `ponds`"));
    }

    #[test]
    fn no_texture_warns() {
        let (r, w) = p("A\n850\nDRAPED_POLYGON\nSCALE 10 10\n");
        assert!(r.unwrap().texture.is_none());
        assert!(w[0].message.contains("names no TEXTURE"));
    }
}
