//! X-Plane painted lines (`.lin`; `850`, then `LINE_PAINT`): a texture drawn along a chain
//! in one or more layers (GROUND.md §2).
//!
//! Directives, as WED's `GetLin` reads them: `TEXTURE`, `SCALE h v` (meters the whole
//! texture covers; default 100 × 100), `TEX_WIDTH` / `TEX_HEIGHT` (the pixel units of the
//! `S_OFFSET` and cap numbers; default 1024), `S_OFFSET layer s1 sm s2` (one layer: its
//! left, middle and right texture columns, the middle on the chain; the layer number is
//! ignored and layers are kept in file order, only when `s2 > s1`), `START_CAP` /
//! `END_CAP layer s1 sm s2 t1 t2`, `ALIGN n`, `LAYER_GROUP name offset`; read past:
//! `MIRROR` (its meaning is unconfirmed), `DECAL_LIB`, `PREVIEW_RGB`. `LOD distance` limits
//! how far from the camera the line is drawn; the shader directives (`TEXTURE_NORMAL`,
//! `SPECULAR`, `GLOBAL_specular`, `BUMP_LEVEL`) are read as a `.pol`'s. A file without a
//! usable `S_OFFSET` is an error, as WED refuses it. The header is `LINE_PAINT` (a file
//! saying `LINE_PAINTED` is refused, as WED refuses it).

use std::collections::HashSet;
use std::path::Path;

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::format::obj8::TextureRef;
use crate::format::text::{read_header, TextFile};

/// One layer of a line: texture columns in pixels of `TEX_WIDTH`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LinLayer {
    pub s1: f32,
    pub sm: f32,
    pub s2: f32,
}

/// A start or end cap: its columns (pixels of `TEX_WIDTH`) and rows (pixels of
/// `TEX_HEIGHT`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LinCap {
    pub s1: f32,
    pub sm: f32,
    pub s2: f32,
    pub t1: f32,
    pub t2: f32,
}

/// A parsed `.lin` file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Lin {
    pub version: u32,
    pub texture: Option<TextureRef>,
    /// `SCALE h v`: meters the whole texture covers across and along the line.
    pub scale: [f32; 2],
    pub tex_width: f32,
    pub tex_height: f32,
    pub layers: Vec<LinLayer>,
    pub start_caps: Vec<LinCap>,
    pub end_caps: Vec<LinCap>,
    /// `ALIGN n`: the pattern ends on a multiple of 1/n of a repeat.
    pub align: Option<f32>,
    pub layer_group: Option<(String, i32)>,
    /// `MIRROR` was given (read, not drawn).
    pub mirror: bool,
    /// `LOD distance`: the line is drawn out to this many meters from the camera.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lod: Option<f32>,
    /// The shader directives (`TEXTURE_NORMAL`, `SPECULAR`, `BUMP_LEVEL`, …), as a `.pol`'s.
    #[serde(skip_serializing_if = "crate::format::pol::DrapedShading::is_default")]
    pub shading: crate::format::pol::DrapedShading,
}

/// Read past silently.
const KNOWN_SILENT: &[&str] = &["DECAL_LIB", "PREVIEW_RGB", "MIRROR", "SURFACE"];

/// Reads a `.lin` file.
pub fn parse(path: &Path, src: &[u8], warnings: &mut Vec<Diagnostic>) -> Result<Lin, Diagnostic> {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(path, &src);
    let header = read_header(&mut tf, &[(&[850], "LINE_PAINT")])?;
    let mut lin = Lin {
        version: header.version,
        texture: None,
        scale: [100.0, 100.0],
        tex_width: 1024.0,
        tex_height: 1024.0,
        layers: Vec::new(),
        start_caps: Vec::new(),
        end_caps: Vec::new(),
        align: None,
        layer_group: None,
        mirror: false,
        lod: None,
        shading: Default::default(),
    };
    let mut warned = HashSet::new();
    let mut first_layer_line = None;
    while let Some(line) = tf.next() {
        let mut line = line?;
        match line.keyword {
            "TEXTURE" => {
                let name = line.rest("texture file")?;
                lin.texture = Some(TextureRef::new(path, name, line.number));
            }
            "SCALE" => {
                lin.scale = [line.positive_f32("h scale")?, line.positive_f32("v scale")?];
                line.expect_end(warnings);
            }
            "TEX_WIDTH" => {
                lin.tex_width = line.positive_f32("width")?;
                line.expect_end(warnings);
            }
            "TEX_HEIGHT" => {
                lin.tex_height = line.positive_f32("height")?;
                line.expect_end(warnings);
            }
            "S_OFFSET" => {
                let _layer = line.f32("layer")?;
                let (s1, sm, s2) = (line.f32("s1")?, line.f32("sm")?, line.f32("s2")?);
                line.expect_end(warnings);
                first_layer_line.get_or_insert(line.number);
                if s2 > s1 {
                    lin.layers.push(LinLayer { s1, sm, s2 });
                } else {
                    warnings.push(line.warning_kw(format!(
                        "S_OFFSET: s2 ({s2}) is not right of s1 ({s1}); the layer is not drawn"
                    )));
                }
            }
            "START_CAP" | "END_CAP" => {
                let _layer = line.f32("layer")?;
                let cap = LinCap {
                    s1: line.f32("s1")?,
                    sm: line.f32("sm")?,
                    s2: line.f32("s2")?,
                    t1: line.f32("t1")?,
                    t2: line.f32("t2")?,
                };
                line.expect_end(warnings);
                if line.keyword == "START_CAP" {
                    lin.start_caps.push(cap);
                } else {
                    lin.end_caps.push(cap);
                }
            }
            "ALIGN" => {
                lin.align = Some(line.positive_f32("parts")?);
                line.expect_end(warnings);
            }
            "LAYER_GROUP" => {
                lin.layer_group = Some(line.layer_group(warnings)?);
            }
            "MIRROR" => lin.mirror = true,
            "LOD" => match line.positive_f32("distance") {
                Ok(d) => {
                    lin.lod = Some(d);
                    line.expect_end(warnings);
                }
                Err(mut d) => {
                    d.severity = crate::diag::Severity::Warning;
                    d.message.push_str("; the line is skipped");
                    warnings.push(d);
                }
            },
            kw if crate::format::pol::DrapedShading::KEYWORDS.contains(&kw) => {
                lin.shading.read(path, &mut line, warnings);
            }
            kw if KNOWN_SILENT.contains(&kw) => {}
            kw => {
                if warned.insert(kw.to_string()) {
                    warnings.push(line.unknown_directive("painted line"));
                }
            }
        }
    }
    if lin.layers.is_empty() {
        return Err(Diagnostic::error_at(
            path,
            first_layer_line.unwrap_or(tf.line_number().max(1)),
            1,
            "the painted line has no usable S_OFFSET layer (WED refuses such a file)",
        ));
    }
    if lin.texture.is_none() {
        warnings.push(Diagnostic::warning_at(
            path,
            tf.line_number().max(1),
            1,
            "the painted line names no TEXTURE: drawn as a checkerboard",
        ));
    }
    Ok(lin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(src: &str) -> (Result<Lin, Diagnostic>, Vec<Diagnostic>) {
        let mut w = Vec::new();
        let r = parse(Path::new("edge.lin"), src.as_bytes(), &mut w);
        (r, w)
    }

    #[test]
    fn reads_layers_caps_and_defaults() {
        let (r, w) = p(
            "A\n850\nLINE_PAINT\nTEXTURE lines.png\nSCALE 20 40\nTEX_WIDTH 512\n\
                        S_OFFSET 0 10 20 30\nS_OFFSET 1 40 50 60\nSTART_CAP 0 10 20 30 0 64\n\
                        END_CAP 0 10 20 30 64 128\nALIGN 2\nLAYER_GROUP markings 1\nMIRROR\n",
        );
        assert!(w.is_empty(), "{w:?}");
        let l = r.unwrap();
        assert_eq!(l.scale, [20.0, 40.0]);
        assert_eq!((l.tex_width, l.tex_height), (512.0, 1024.0));
        assert_eq!(l.layers.len(), 2);
        assert_eq!(l.layers[1].sm, 50.0);
        assert_eq!(l.start_caps[0].t2, 64.0);
        assert_eq!(l.end_caps[0].t1, 64.0);
        assert_eq!(l.align, Some(2.0));
        assert_eq!(l.layer_group, Some(("markings".into(), 1)));
        assert!(l.mirror);
        let (r, _) = p("A\n850\nLINE_PAINT\nTEXTURE a.png\nS_OFFSET 0 0 5 10\n");
        let l = r.unwrap();
        assert_eq!(l.scale, [100.0, 100.0]);
        assert_eq!(l.tex_width, 1024.0);
    }

    #[test]
    fn no_layer_or_the_wrong_header_is_an_error() {
        let (r, _) = p("A\n850\nLINE_PAINT\nTEXTURE a.png\n");
        assert!(r.unwrap_err().message.contains("no usable S_OFFSET"));
        let (r, w) = p("A\n850\nLINE_PAINT\nS_OFFSET 0 10 5 1\n");
        assert!(r.is_err());
        assert!(w[0].to_string().contains("edge.lin:4:1: warning: S_OFFSET"));
        let (r, _) = p("A\n850\nLINE_PAINTED\nS_OFFSET 0 0 5 10\n");
        assert!(r
            .unwrap_err()
            .message
            .contains("wrong file type `LINE_PAINTED`"));
        let (r, _) = p("A\n850\nLINE_PAINT\nS_OFFSET 0 0 x 10\n");
        assert!(r.unwrap_err().to_string().contains("edge.lin:4:14: error"));
    }

    #[test]
    fn lod_and_shader_directives() {
        let (r, w) = p(
            "A\n850\nLINE_PAINT\nTEXTURE lines.png\nTEXTURE_NORMAL 1.0 lines_NML.png\nSPECULAR 1.0\n\
             BUMP_LEVEL 0.5\nLOD 2500\nS_OFFSET 0 0 5 10\n",
        );
        assert!(w.is_empty(), "{w:?}");
        let l = r.unwrap();
        assert_eq!(l.lod, Some(2500.0));
        assert_eq!(l.shading.normal.as_ref().unwrap().name, "lines_NML.png");
        assert_eq!(l.shading.bump_level, Some(0.5));
        let (r, w) = p("A\n850\nLINE_PAINT\nLOD far\nTEXTURE a.png\nS_OFFSET 0 0 5 10\n");
        assert!(r.unwrap().lod.is_none());
        assert!(
            w[0].to_string().starts_with("edge.lin:4:5: warning:"),
            "{}",
            w[0]
        );
    }
}
