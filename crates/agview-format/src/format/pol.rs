//! X-Plane draped polygons (`.pol`; `850`, then `DRAPED_POLYGON`): a texture laid on the
//! ground, repeating every `SCALE` meters (a tiled polygon) or pinned by per-vertex texture
//! coordinates the DSF carries (an orthophoto, parameter 65535).
//!
//! Every directive of GROUND.md §1.1 is read with its line:
//! - drawn: `TEXTURE` (repeats), `TEXTURE_NOWRAP` (clamps), `SCALE h v`,
//!   `LAYER_GROUP name offset`, `NO_ALPHA`, `TEXTURE_LIT`;
//! - shading (`crate::material`): `TEXTURE_NORMAL [scale] file`, `SPECULAR` /
//!   `GLOBAL_specular`, `BUMP_LEVEL`, `NORMAL_METALNESS` ([`DrapedShading`]);
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
    /// The shader directives copied from X-Plane's library (`TEXTURE_NORMAL`, `SPECULAR`,
    /// `GLOBAL_specular`, `BUMP_LEVEL`, `NORMAL_METALNESS`).
    #[serde(skip_serializing_if = "DrapedShading::is_default")]
    pub shading: DrapedShading,
}

/// The shader directives of a draped polygon or painted line.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct DrapedShading {
    /// `TEXTURE_NORMAL [scale] <file>`: the normal map.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normal: Option<TextureRef>,
    /// `TEXTURE_NORMAL`'s scale: how many times the normal map repeats over one repeat of
    /// the texture (agview's reading; 1 when not given).
    pub normal_scale: f32,
    /// `SPECULAR ratio` or `GLOBAL_specular ratio`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub specular: Option<f32>,
    /// `BUMP_LEVEL ratio`: scales the normal map's bend (1 when not given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bump_level: Option<f32>,
    /// `NORMAL_METALNESS`.
    pub normal_metalness: bool,
}

impl DrapedShading {
    /// The directives [`DrapedShading::read`] takes.
    pub const KEYWORDS: &'static [&'static str] = &[
        "TEXTURE_NORMAL",
        "SPECULAR",
        "GLOBAL_specular",
        "BUMP_LEVEL",
        "NORMAL_METALNESS",
    ];

    pub(crate) fn is_default(&self) -> bool {
        *self == DrapedShading::default()
    }

    /// The input of the material rule ([`crate::material::describe`]).
    pub fn declared(&self) -> crate::material::Declared<'_> {
        crate::material::Declared {
            texture_normal: self.normal.as_ref(),
            normal_metalness: self.normal_metalness,
            specular: self.specular,
            bump: self.bump_level,
            ..Default::default()
        }
    }

    /// Reads `line`, one of [`Self::KEYWORDS`] (a bad one is a located warning and costs
    /// its line).
    pub(crate) fn read(
        &mut self,
        path: &Path,
        line: &mut crate::format::text::Line<'_>,
        warnings: &mut Vec<Diagnostic>,
    ) {
        let r = match line.keyword {
            "TEXTURE_NORMAL" => self.texture_normal(path, line),
            "SPECULAR" | "GLOBAL_specular" => line.f32("ratio").map(|v| {
                self.specular = Some(v.max(0.0));
            }),
            "BUMP_LEVEL" => line.f32("ratio").map(|v| {
                self.bump_level = Some(v.max(0.0));
            }),
            "NORMAL_METALNESS" => {
                self.normal_metalness = true;
                Ok(())
            }
            _ => return,
        };
        match r {
            Ok(()) => line.expect_end(warnings),
            Err(mut d) => {
                d.severity = crate::diag::Severity::Warning;
                d.message.push_str("; the line is skipped");
                warnings.push(d);
            }
        }
    }

    /// `TEXTURE_NORMAL [scale] <file>`.
    fn texture_normal(
        &mut self,
        path: &Path,
        line: &mut crate::format::text::Line<'_>,
    ) -> Result<(), Diagnostic> {
        let (scale, t) = scaled_texture(path, line)?;
        self.normal = Some(t);
        self.normal_scale = scale.unwrap_or(1.0);
        Ok(())
    }
}

/// The rest of a `TEXTURE_NORMAL [scale] <file>` line (`.pol`, `.lin`, and OBJ8's
/// `TEXTURE_DRAPED_NORMAL`): the scale when a number comes before the file.
pub(crate) fn scaled_texture(
    path: &Path,
    line: &mut crate::format::text::Line<'_>,
) -> Result<(Option<f32>, TextureRef), Diagnostic> {
    let mut probe = line.clone();
    let first = probe.next_token();
    let scale = match (first, probe.at_end()) {
        (Some((t, _)), false) if crate::format::text::parse_f32(t).is_some() => {
            Some(line.positive_f32("scale")?)
        }
        _ => None,
    };
    let name = line.rest("normal map file")?;
    Ok((scale, TextureRef::new(path, name, line.number)))
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
            kw if crate::format::pol::DrapedShading::KEYWORDS.contains(&kw) => {
                pol.shading.read(path, &mut line, warnings);
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

    #[test]
    fn shader_directives_from_xplanes_library_read_without_a_word() {
        let (r, w) = p(
            "A\n850\nDRAPED_POLYGON\nTEXTURE concrete.dds\nTEXTURE_NORMAL 4.0 ../nml/concrete_NML.dds\n\
             SPECULAR 0.5\nGLOBAL_specular 0.75\nBUMP_LEVEL 0.8\nNORMAL_METALNESS\n",
        );
        assert!(w.is_empty(), "{w:?}");
        let s = r.unwrap().shading;
        let n = s.normal.as_ref().unwrap();
        assert_eq!(n.path, Path::new("/pkg/nml/concrete_NML.dds"));
        assert_eq!(n.line, 5);
        assert_eq!(s.normal_scale, 4.0);
        assert_eq!((s.specular, s.bump_level), (Some(0.75), Some(0.8)));
        assert!(s.normal_metalness);
        let m = crate::material::describe(&s.declared());
        assert_eq!((m.bump, m.specular_scale), (0.8, 0.75));
        // Without a scale, the file alone.
        let (r, w) = p("A\n850\nDRAPED_POLYGON\nTEXTURE a.png\nTEXTURE_NORMAL n.png\n");
        assert!(w.is_empty(), "{w:?}");
        let s = r.unwrap().shading;
        assert_eq!(
            (s.normal.unwrap().name.as_str(), s.normal_scale),
            ("n.png", 1.0)
        );
    }

    #[test]
    fn a_bad_shader_directive_costs_its_line() {
        let (r, w) = p(
            "A\n850\nDRAPED_POLYGON\nTEXTURE a.png\nSPECULAR shiny\nBUMP_LEVEL\nTEXTURE_NORMAL -2 n.png\nSCALE 5 5\n",
        );
        let pol = r.unwrap();
        assert_eq!(pol.scale, [5.0, 5.0]);
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(
            w[0].to_string()
                .starts_with("/pkg/ground/apron.pol:5:10: warning:"),
            "{}",
            w[0]
        );
        assert!(
            w[1].to_string().starts_with("/pkg/ground/apron.pol:6:"),
            "{}",
            w[1]
        );
        assert!(
            w[2].to_string()
                .starts_with("/pkg/ground/apron.pol:7:16: warning:"),
            "{}",
            w[2]
        );
        assert!(pol.shading.normal.is_none());
    }
}
