//! X-Plane forests (`.for`; `800`, `900`, `1000` or `1200`, then `FOREST`).
//!
//! A forest is one texture and a list of trees, each a rectangle of that texture:
//! `TREE s t w h offset percent hmin hmax quads layer [name]`, in the pixel units that
//! `SCALE_X` / `SCALE_Y` declare for the texture. `SPACING x z` and `RANDOM x z` (meters)
//! say how densely and how irregularly trees fill an area.
//!
//! Defaults follow WED (`WED_ResourceMgr::GetFor`): scale 256 × 256, spacing 30 × 30 m,
//! no randomness. Like WED, trees with a zero width or height are skipped (with a warning
//! here); a negative width (seen in OpenSceneryX) is kept, it mirrors the texture.
//! X-Plane 12's 3-D trees (`TREE2`, `MESH_3D`, `MESH`, `SHADER_3D`, …) are read past; a file
//! that uses them gets one warning saying they are not drawn.

use std::collections::HashSet;
use std::path::Path;

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::format::obj8::TextureRef;
use crate::format::text::{read_header, Line, TextFile};

/// One `TREE`: a texture rectangle (pixels of `SCALE_X` × `SCALE_Y`) and how to build the
/// tree from it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tree {
    pub s: f32,
    pub t: f32,
    /// Width and height of the rectangle in pixels.
    pub w: f32,
    pub h: f32,
    /// Where the trunk sits, in pixels from `s`.
    pub offset: f32,
    /// Relative frequency of this tree within its layer, in percent.
    pub percent: f32,
    /// Height range in meters.
    pub hmin: f32,
    pub hmax: f32,
    /// Number of crossed quads the tree is drawn with.
    pub quads: u32,
    /// Layer an autogen annotation picks trees from (0 when the file omits it).
    pub layer: i32,
    pub name: Option<String>,
    pub line: u32,
}

/// The tree a seeded `pick` chooses among `trees` for an annotation's `layer`: the trees of
/// that layer in file order, `pick` modulo their count; any tree when the layer has none.
/// The layout (a tree's height) and the renderer (its picture) choose with this one rule.
pub fn choose<T>(trees: &[T], layer_of: impl Fn(&T) -> i32, layer: i32, pick: u32) -> Option<&T> {
    let n = trees.iter().filter(|t| layer_of(t) == layer).count();
    if n > 0 {
        trees
            .iter()
            .filter(|t| layer_of(t) == layer)
            .nth(pick as usize % n)
    } else if trees.is_empty() {
        None
    } else {
        trees.get(pick as usize % trees.len())
    }
}

/// What the layout needs of a forest: its `SPACING`, and each `TREE`'s layer and height
/// range (meters) for seeding tree heights.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ForestFacts {
    pub spacing: [f32; 2],
    /// `(layer, [min, max] height)` per `TREE`, in file order.
    pub heights: Vec<(i32, [f32; 2])>,
}

impl Forest {
    /// [`ForestFacts`] of this forest.
    pub fn facts(&self) -> ForestFacts {
        ForestFacts {
            spacing: self.spacing,
            heights: self
                .trees
                .iter()
                .map(|t| (t.layer, [t.hmin, t.hmax]))
                .collect(),
        }
    }
}

/// A parsed `.for` file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Forest {
    pub version: u32,
    pub texture: Option<TextureRef>,
    /// `SCALE_X` / `SCALE_Y`: the texture size in the units `TREE` uses.
    pub scale: [f32; 2],
    /// `SPACING x z` in meters.
    pub spacing: [f32; 2],
    /// `RANDOM x z` in meters.
    pub random: [f32; 2],
    /// `LOD max_distance`, when given.
    pub lod: Option<f32>,
    pub trees: Vec<Tree>,
}

/// Read past silently (X-Plane 9–12 placement and shading parameters).
const KNOWN_SILENT: &[&str] = &[
    "LOD",
    "NO_SHADOW",
    "SHADOW",
    "GROUP",
    "SKIP_SURFACE",
    "CHOICE_PARAMS",
    "DENSITY_PARAMS",
    "HEIGHT_PARAMS",
    "TEXTURE_NORMAL",
    "TEXTURE_LIT",
    "TEXTURE_DETAIL",
    "NO_BLEND",
    "BLEND_GLASS",
    "NORMAL_METALNESS",
    "SPECULAR",
    "BUMP_LEVEL",
    "SHADER_2D",
    "WEATHER",
    "WEATHER_TRANSPARENT",
    "DECAL",
    "DECAL_RGBA",
    "DECAL_KEYED",
    "DECAL_PARAMS",
    "DECAL_PARAMS_PROJ",
    "DECAL_LIB",
];

/// X-Plane 12 3-D tree directives: read past, with one warning per file.
const THREE_D: &[&str] = &[
    "TREE2",
    "MESH_3D",
    "MESH",
    "SHADER_3D",
    "Y_QUAD",
    "VT",
    "IDX",
    "IDX10",
    "POINT_COUNTS",
];

/// Reads a `.for` file.
pub fn parse(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<Forest, Diagnostic> {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(path, &src);
    let header = read_header(&mut tf, &[(&[800, 900, 1000, 1200], "FOREST")])?;
    let mut f = Forest {
        version: header.version,
        texture: None,
        scale: [256.0, 256.0],
        spacing: [30.0, 30.0],
        random: [0.0, 0.0],
        lod: None,
        trees: Vec::new(),
    };
    let mut warned = HashSet::new();
    let mut warned_3d = false;
    while let Some(line) = tf.next() {
        let mut line = line?;
        match line.keyword {
            "TEXTURE" => {
                let name = line.word("file")?;
                line.expect_end(warnings);
                f.texture = Some(TextureRef::new(path, name, line.number));
            }
            "SCALE_X" => {
                f.scale[0] = line.positive_f32("x scale")?;
                line.expect_end(warnings);
            }
            "SCALE_Y" => {
                f.scale[1] = line.positive_f32("y scale")?;
                line.expect_end(warnings);
            }
            "SPACING" => {
                f.spacing = [
                    line.positive_f32("x spacing")?,
                    line.positive_f32("z spacing")?,
                ];
                line.expect_end(warnings);
            }
            "RANDOM" => {
                f.random = [line.f32("x random")?, line.f32("z random")?];
                line.expect_end(warnings);
            }
            "LOD" => {
                f.lod = Some(line.f32("max lod")?);
                line.expect_end(warnings);
            }
            "TREE" => {
                if let Some(t) = tree(&mut line, warnings)? {
                    f.trees.push(t);
                }
            }
            kw if KNOWN_SILENT.contains(&kw) => {}
            kw if THREE_D.contains(&kw) => {
                if !warned_3d {
                    warned_3d = true;
                    warnings.push(line.warning_kw(format!(
                        "X-Plane 12 3-D trees (`{kw}`) are not drawn; only `TREE` billboards are"
                    )));
                }
            }
            kw => {
                if warned.insert(kw.to_string()) {
                    warnings.push(line.unknown_directive("forest"));
                }
            }
        }
    }
    if f.trees.is_empty() {
        warnings.push(Diagnostic::warning_at(
            path,
            tf.line_number().max(1),
            1,
            "the forest defines no usable TREE",
        ));
    }
    Ok(f)
}

/// `TREE s t w h offset percent hmin hmax quads [layer [name]]`; `None` for a tree WED skips.
fn tree(line: &mut Line<'_>, warnings: &mut Vec<Diagnostic>) -> Result<Option<Tree>, Diagnostic> {
    let s = line.f32("s")?;
    let t = line.f32("t")?;
    let w = line.f32("w")?;
    let h = line.f32("h")?;
    let offset = line.f32("offset")?;
    let col_pct = line.clone().next_token().map_or(1, |(_, c)| c);
    let percent = line.f32("percent")?;
    let hmin = line.f32("min height")?;
    let col_hmax = line.clone().next_token().map_or(1, |(_, c)| c);
    let hmax = line.f32("max height")?;
    let quads = line.int_in("quads", 0, 64)? as u32;
    let layer = if line.at_end() {
        0
    } else {
        line.int_in("layer", i32::MIN as i64, i32::MAX as i64)? as i32
    };
    // The name is the rest of the line (it may hold spaces), up to a trailing comment.
    let name = line
        .rest("name")
        .ok()
        .map(|n| n.split(" #").next().unwrap_or(n).trim_end().to_string());
    if percent < 0.0 {
        return Err(line.error(
            col_pct,
            format!("TREE: <percent> must not be negative, found {percent}"),
        ));
    }
    if hmin < 0.0 || hmax < hmin {
        return Err(line.error(
            col_hmax,
            format!("TREE: expected 0 <= min height <= max height, found {hmin} and {hmax}"),
        ));
    }
    if w.abs() <= 0.001 || h <= 0.001 || quads == 0 {
        warnings.push(line.warning_kw(format!(
            "TREE with width {w}, height {h} and {quads} quads cannot be drawn; skipped"
        )));
        return Ok(None);
    }
    Ok(Some(Tree {
        s,
        t,
        w,
        h,
        offset,
        percent,
        hmin,
        hmax,
        quads,
        layer,
        name,
        line: line.number,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OAKS: &str = "A\n800\nFOREST\n\n# trees\nTEXTURE trees/oak.png\nLOD 20000\nSCALE_X 1024\nSCALE_Y 512\nSPACING 12 14\nRANDOM 4 5\nSKIP_SURFACE water\nGROUP 0 100\n\
TREE 0 0 256 512 128 60 8 12 2 0 oak big\n\
TREE 256 0 128 256 64 40 4 6 1 0\n\
TREE 384 0 128 256 64 100 2 3 2 1 shrub\n\
NO_SHADOW\n";

    fn p(src: &str) -> (Result<Forest, Diagnostic>, Vec<Diagnostic>) {
        let mut w = Vec::new();
        let r = parse(Path::new("art/f.for"), src.as_bytes(), &mut w);
        (r, w)
    }

    fn err(src: &str) -> String {
        p(src).0.unwrap_err().to_string()
    }

    #[test]
    fn reads_a_typical_forest() {
        let (r, w) = p(OAKS);
        let f = r.unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(f.texture.unwrap().path, Path::new("art/trees/oak.png"));
        assert_eq!(f.scale, [1024.0, 512.0]);
        assert_eq!(f.spacing, [12.0, 14.0]);
        assert_eq!(f.random, [4.0, 5.0]);
        assert_eq!(f.lod, Some(20000.0));
        assert_eq!(f.trees.len(), 3);
        let oak = &f.trees[0];
        assert_eq!(
            (oak.w, oak.h, oak.offset, oak.quads, oak.layer),
            (256.0, 512.0, 128.0, 2, 0)
        );
        assert_eq!(oak.name.as_deref(), Some("oak big"));
        assert_eq!(oak.line, 14);
        assert_eq!(f.trees[1].name, None);
        assert_eq!(f.trees[2].layer, 1);
    }

    #[test]
    fn defaults_follow_wed() {
        let f = p("A\n1200\nFOREST\nTREE 0 0 1 1 0.5 100 1 2 1\n")
            .0
            .unwrap();
        assert_eq!(f.scale, [256.0, 256.0]);
        assert_eq!(f.spacing, [30.0, 30.0]);
        assert_eq!(f.random, [0.0, 0.0]);
        assert_eq!(f.trees[0].layer, 0);
    }

    #[test]
    fn bad_inputs_give_located_errors() {
        assert!(err("A\n800\nOBJ\n").contains("wrong file type"));
        assert!(err("A\n700\nFOREST\n").contains("unsupported version"));
        assert!(err("A\n800\n").contains("truncated header"));
        let h = "A\n800\nFOREST\n";
        assert_eq!(
            err(&format!("{h}SCALE_X 0\n")),
            "art/f.for:4:9: error: SCALE_X: <x scale> must be greater than 0, found 0"
        );
        assert_eq!(
            err(&format!("{h}SPACING 10 nan\n")),
            "art/f.for:4:12: error: SPACING: <z spacing> must be a finite number, found `nan`"
        );
        assert_eq!(
            err(&format!("{h}TREE 0 0 x 1 0 1 1 1 1 0\n")),
            "art/f.for:4:10: error: TREE: <w> must be a number, found `x`"
        );
        assert!(err(&format!("{h}TREE 0 0 1 1 0 1 1 1\n")).contains("missing argument <quads>"));
        assert!(err(&format!("{h}TREE 0 0 1 1 0 1 5 2 1\n"))
            .contains("4:20: error: TREE: expected 0 <= min height <= max height"));
        assert!(err(&format!("{h}TREE 0 0 1 1 0 -1 1 2 1\n"))
            .contains("<percent> must not be negative"));
        assert!(err(&format!("{h}TREE 0 0 1 1 0 1 1 2 100000\n"))
            .contains("<quads> is 100000, outside 0..=64"));
        assert!(err(&format!("{h}TEXTURE\n")).contains("missing argument <file>"));
    }

    #[test]
    fn undrawable_trees_and_3d_trees_warn() {
        let (r, w) = p("A\n1200\nFOREST\nTREE 0 0 0 1 0 100 1 2 1 0\nTREE2 1 2 3\nMESH_3D x\nBOGUS 1\nBOGUS 2\n");
        let f = r.unwrap();
        assert!(f.trees.is_empty());
        let msgs: Vec<String> = w.iter().map(|d| d.to_string()).collect();
        assert_eq!(msgs.len(), 4, "{msgs:?}");
        assert!(msgs[0].contains("4:1: warning: TREE with width 0"));
        assert!(msgs[1].contains("5:1: warning: X-Plane 12 3-D trees (`TREE2`)"));
        assert!(msgs[2].contains("7:1: warning: unknown forest directive `BOGUS`"));
        assert!(msgs[3].contains("warning: the forest defines no usable TREE"));
    }

    #[test]
    fn never_panics_on_any_prefix() {
        let mut w = Vec::new();
        for end in 0..=OAKS.len() {
            let _ = parse(Path::new("f.for"), &OAKS.as_bytes()[..end], &mut w);
        }
    }
}
