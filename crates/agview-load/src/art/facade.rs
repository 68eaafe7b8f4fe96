//! Facades: a `.fac` of type 1 (`800 FACADE`) or type 2 (`1000 FACADE`), or an FSX building
//! image, to a [`FacadeArt`]: what the renderer needs to build walls and roofs as X-Plane
//! does.
//!
//! - Type 1 keeps its `LOD`s with their walls' panels ([`FacadeArt::lods`]; walls without a
//!   panel across or up are dropped), type 2 its floors of segments
//!   ([`FacadeArt::segment_floors`]), each with `RING`, `TWO_SIDED`/`DOUBLED` and
//!   `FLOORS_MIN`/`FLOORS_MAX`.
//! - For the repeated-bay fallback, type 1 uses the first LOD's first `WALL`: its first
//!   `CENTER` panel (else `LEFT`, else `RIGHT`) across and first `MIDDLE` panel (else
//!   `BOTTOM`, else `TOP`) up give the bay rectangle; `SCALE` gives the meters (bay width =
//!   panel width × SCALE x, floor height = panel height × SCALE y); the roof rectangle bounds
//!   the `ROOF` points. Type 2 uses the first floor's segment that its first wall's first
//!   spelling starts with (else its first segment): the uv bounds of its meshes give the
//!   rectangle, their z extent the bay width and their y extent the floor height; the roof
//!   texture covers `[0,0,1,1]`.
//! - A facade with no usable numbers falls back to a 4 m × 3 m bay over the whole texture.

use std::path::Path;

use super::files::{as_warning, read};
use super::image::ImagePool;
use super::mesh::MeshVertex;
use crate::diag::Diagnostic;
use crate::format::facade;

/// How to texture a facade. A type 1 facade (`800 FACADE`) keeps its levels of detail with
/// their walls (`lods`), which the renderer lays out panel by panel as X-Plane builds them.
/// A type 2 facade (`1000 FACADE`) keeps its floors of mesh segments (`segment_floors`).
/// Everything else (image facades, fallbacks) has neither and repeats one rectangle for a
/// bay of one floor. Rectangles are normalised `[s1, t1, s2, t2]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FacadeArt {
    pub name: String,
    pub missing: bool,
    pub texture: Option<usize>,
    /// `TEXTURE_LIT` of the walls: glows as night comes, like an object's.
    pub lit_texture: Option<usize>,
    pub wall_uv: [f32; 4],
    /// Meters the wall rectangle covers horizontally and vertically.
    pub bay_width: f32,
    pub floor_height: f32,
    pub roof_texture: Option<usize>,
    /// `TEXTURE_LIT` of the roof: type 1's one night texture (the roof is cut from the same
    /// image as the walls), type 2's under `SHADER_ROOF`.
    pub roof_lit_texture: Option<usize>,
    pub roof_uv: [f32; 4],
    /// Type 1 `LOD`s with their walls; empty when the facade repeats `wall_uv`.
    pub lods: Vec<PanelLod>,
    /// Type 2 `FLOOR`s; empty unless the facade is type 2 with usable segments.
    pub segment_floors: Vec<SegmentFloor>,
    /// Type 2 `ROOF_SCALE s t`: meters the roof texture covers.
    pub roof_scale: [f32; 2],
    /// `RING 0`: an open line of walls (a fence): no closing wall and no roof.
    pub open: bool,
    /// A 2-point axial facade (`format::facade::AXIAL_RULE`): its first two points are the
    /// front-to-back axis, its segments keep their width and their side, and its spelling's
    /// first and last segments are the ends.
    pub axial: bool,
    /// The `.fac` has no walls at all (a library's placeholder facade is its three header
    /// lines): nothing is drawn.
    pub no_walls: bool,
    /// `TWO_SIDED 1` (or type 1 `DOUBLED 1`): walls are seen from both sides.
    pub two_sided: bool,
    /// Type 1 `FLOORS_MIN` / `FLOORS_MAX`: the range the floor count is kept in.
    pub floors_min: u32,
    pub floors_max: u32,
}

/// A type 1 `LOD near far`: its walls and its `ROOF` points (texture fractions).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PanelLod {
    pub near: f32,
    pub far: f32,
    pub walls: Vec<PanelWall>,
    pub roof: Vec<[f32; 2]>,
}

/// A type 1 `WALL`: its panels as texture ranges `[start, end]` (fractions), `SCALE` in
/// meters per whole texture, `ROOF_SLOPE` in degrees and `BASEMENT_DEPTH` as a fraction.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PanelWall {
    pub min_width: f32,
    pub max_width: f32,
    pub scale: [f32; 2],
    pub roof_slope: f32,
    pub slant: bool,
    pub basement: f32,
    pub left: Vec<[f32; 2]>,
    pub center: Vec<[f32; 2]>,
    pub right: Vec<[f32; 2]>,
    pub bottom: Vec<[f32; 2]>,
    pub middle: Vec<[f32; 2]>,
    pub top: Vec<[f32; 2]>,
}

/// A type 2 `FLOOR`: its segments (each a list of triangles), its walls' spellings and its
/// `ROOF_HEIGHT`s.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SegmentFloor {
    pub segments: Vec<SegmentArt>,
    /// Per `WALL`: its width range and its `SPELLING`s (segment indices, left to right).
    pub walls: Vec<SegmentWall>,
    pub roof_heights: Vec<f32>,
}

/// A type 2 `SEGMENT`: vertices in the facade's frame (+y up, z along the wall, x out of
/// it) and triangle indices.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SegmentArt {
    pub vertices: Vec<MeshVertex>,
    pub indices: Vec<u32>,
}

/// A type 2 `WALL min_width max_width …` and its `SPELLING`s.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SegmentWall {
    pub min_width: f32,
    pub max_width: f32,
    pub spellings: Vec<Vec<u32>>,
}

const FALLBACK_BAY: f32 = 4.0;
const FALLBACK_FLOOR: f32 = 3.0;

/// True for the image files a facade can be made of directly (FSX building textures).
fn is_image_name(path: &Path) -> bool {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .is_some_and(|e| matches!(e.as_str(), "png" | "dds" | "bmp"))
}

/// Height in meters that a whole FSX building texture covers: the sample's (and the
/// usual generic-building sheets') three floors of about 3 m.
const IMAGE_FACADE_HEIGHT_M: f32 = 9.0;

/// A facade made of one image (an `.agn`'s GBTE/RHTE texture): the whole image is one bay
/// three floors high, repeated along and up the walls; the roof takes a thin strip of the
/// image's top edge so it reads as a plain, dark-ish surface rather than as windows.
fn facade_from_image(
    path: &Path,
    pool: &mut ImagePool,
    warnings: &mut Vec<Diagnostic>,
) -> FacadeArt {
    let index = pool.load(path, warnings);
    let image = &pool.images()[index];
    let aspect = image.width as f32 / image.height.max(1) as f32;
    FacadeArt {
        name: path.display().to_string(),
        missing: image.missing,
        texture: Some(index),
        wall_uv: [0.0, 0.0, 1.0, 1.0],
        bay_width: IMAGE_FACADE_HEIGHT_M * aspect,
        floor_height: IMAGE_FACADE_HEIGHT_M,
        roof_texture: Some(index),
        roof_uv: [0.0, 0.98, 0.02, 1.0],
        ..FacadeArt::default()
    }
}

/// What a missing or broken facade draws: a plain box of 4 m × 3 m bays.
pub(crate) fn placeholder_facade(path: &Path) -> FacadeArt {
    FacadeArt {
        name: path.display().to_string(),
        missing: true,
        texture: None,
        wall_uv: [0.0, 0.0, 1.0, 1.0],
        bay_width: FALLBACK_BAY,
        floor_height: FALLBACK_FLOOR,
        roof_texture: None,
        roof_uv: [0.0, 0.0, 1.0, 1.0],
        ..FacadeArt::default()
    }
}

/// Loads a `.fac` into one bay rectangle and a roof rectangle.
pub fn load_facade(path: &Path, pool: &mut ImagePool, warnings: &mut Vec<Diagnostic>) -> FacadeArt {
    if is_image_name(path) {
        return facade_from_image(path, pool, warnings);
    }
    let (found, bytes) = match read(path, "facade", warnings) {
        Ok(r) => r,
        Err(w) => {
            warnings.push(w);
            return placeholder_facade(path);
        }
    };
    let fac = match facade::parse(&found, &bytes, warnings) {
        Ok(f) => f,
        Err(e) => {
            warnings.push(as_warning(e, "drawn as a plain box"));
            return placeholder_facade(path);
        }
    };
    let mut art = FacadeArt {
        name: found.display().to_string(),
        ..placeholder_facade(path)
    };
    art.missing = false;
    art.texture = fac
        .wall_texture
        .as_ref()
        .map(|t| pool.load(&t.path, warnings));
    // A missing lit texture was warned about: the walls do not glow.
    art.lit_texture = fac
        .lit_texture
        .as_ref()
        .map(|t| pool.load(&t.path, warnings))
        .filter(|&i| pool.images().get(i).is_some_and(|img| !img.missing));
    if !fac.has_walls() {
        warnings.push(Diagnostic::warning_file(
            &found,
            "facade has no walls; nothing is drawn where it is placed",
        ));
        art.no_walls = true;
        return art;
    }
    let usable = if fac.version == 1000 {
        facade_v10(&fac, &mut art)
    } else {
        facade_v8(&fac, &mut art, &found, warnings)
    };
    if !usable {
        warnings.push(Diagnostic::warning_file(
            &found,
            format!(
                "facade has no usable wall; drawn with the whole texture on a {FALLBACK_BAY} m × {FALLBACK_FLOOR} m bay"
            ),
        ));
        art.wall_uv = [0.0, 0.0, 1.0, 1.0];
        art.bay_width = FALLBACK_BAY;
        art.floor_height = FALLBACK_FLOOR;
    }
    art.open = !fac.ring;
    art.axial = fac.axial.is_some();
    art.two_sided = fac.two_sided || fac.doubled;
    let floors = |v: Option<f32>, d: u32| {
        v.filter(|v| v.is_finite() && *v >= 0.0)
            .map_or(d, |v| v.round().min(9999.0) as u32)
    };
    art.floors_min = floors(fac.floors_min, 1).max(1);
    art.floors_max = floors(fac.floors_max, 999).max(art.floors_min);
    if usable {
        if fac.version == 1000 {
            art.segment_floors = segment_floors(&fac);
            art.roof_scale = fac
                .roof_scale
                .filter(|r| r.iter().all(|v| v.is_finite() && *v > 0.0))
                .unwrap_or([10.0, 10.0]);
        } else {
            art.lods = panel_lods(&fac);
        }
    }
    let roof_tex = fac.roof_texture.as_ref().or(fac.wall_texture.as_ref());
    let has_roof = if fac.version == 1000 {
        fac.roof_texture.is_some() || fac.floors.iter().any(|f| !f.roof_heights.is_empty())
    } else {
        fac.lods.first().is_some_and(|l| !l.roof.is_empty())
    };
    if has_roof {
        art.roof_texture = roof_tex.map(|t| pool.load(&t.path, warnings));
        // The roof's night texture: type 2's own under `SHADER_ROOF` (a missing one lights
        // nothing); the walls' where the roof is cut from the wall texture (type 1, or
        // type 2 without a roof texture).
        art.roof_lit_texture = if fac.version == 1000 && fac.roof_texture.is_some() {
            fac.roof_lit_texture
                .as_ref()
                .map(|t| pool.load(&t.path, warnings))
                .filter(|&i| pool.images().get(i).is_some_and(|img| !img.missing))
        } else {
            // A roof drawn with the wall texture glows with the walls' night texture.
            art.lit_texture
        };
    }
    art
}

fn first_nonempty(lists: [&Vec<[f32; 2]>; 3]) -> Option<[f32; 2]> {
    lists.iter().find_map(|l| l.first().copied())
}

/// Type 1: the first LOD's first wall. False when it gives no positive size.
fn facade_v8(
    fac: &facade::Facade,
    art: &mut FacadeArt,
    path: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> bool {
    let Some(lod) = fac.lods.first() else {
        return false;
    };
    if let Some(first) = lod.roof.first() {
        let mut r = [first[0], first[1], first[0], first[1]];
        for p in &lod.roof {
            r = [
                r[0].min(p[0]),
                r[1].min(p[1]),
                r[2].max(p[0]),
                r[3].max(p[1]),
            ];
        }
        art.roof_uv = r;
    }
    let Some(wall) = lod.walls.first() else {
        return false;
    };
    let s = first_nonempty([&wall.center, &wall.left, &wall.right]).unwrap_or([0.0, 1.0]);
    let t = first_nonempty([&wall.middle, &wall.bottom, &wall.top]).unwrap_or([0.0, 1.0]);
    let scale = wall.scale.unwrap_or_else(|| {
        warnings.push(Diagnostic::warning_at(
            path,
            wall.line.max(lod.line).max(1),
            1,
            "WALL has no SCALE; assuming the texture covers 10 m × 10 m",
        ));
        [10.0, 10.0]
    });
    art.wall_uv = [s[0], t[0], s[1], t[1]];
    art.bay_width = (s[1] - s[0]).abs() * scale[0];
    art.floor_height = (t[1] - t[0]).abs() * scale[1];
    art.bay_width > 0.0 && art.floor_height > 0.0
}

/// Type 1: every LOD's walls that have at least one panel across, one up and a positive
/// `SCALE` (a wall without `SCALE` gets 10 m × 10 m, as `facade_v8` warns).
fn panel_lods(fac: &facade::Facade) -> Vec<PanelLod> {
    let ok = |v: &[[f32; 2]]| v.iter().all(|p| p[0].is_finite() && p[1].is_finite());
    fac.lods
        .iter()
        .map(|lod| PanelLod {
            near: lod.near,
            far: lod.far,
            roof: lod.roof.clone(),
            walls: lod
                .walls
                .iter()
                .filter(|w| {
                    let panels = [&w.left, &w.center, &w.right, &w.bottom, &w.middle, &w.top];
                    panels.iter().all(|p| ok(p))
                        && !(w.left.is_empty() && w.center.is_empty() && w.right.is_empty())
                        && !(w.bottom.is_empty() && w.middle.is_empty() && w.top.is_empty())
                })
                .map(|w| PanelWall {
                    min_width: w.min_width,
                    max_width: w.max_width,
                    scale: w.scale.unwrap_or([10.0, 10.0]),
                    roof_slope: w
                        .roof_slope
                        .filter(|s| s.is_finite())
                        .unwrap_or(0.0)
                        .clamp(-89.0, 89.0),
                    slant: w.slant || w.roof_slope.is_some_and(|s| s.abs() >= 90.0),
                    basement: w.basement_depth.filter(|b| b.is_finite()).unwrap_or(0.0),
                    left: w.left.clone(),
                    center: w.center.clone(),
                    right: w.right.clone(),
                    bottom: w.bottom.clone(),
                    middle: w.middle.clone(),
                    top: w.top.clone(),
                })
                .collect(),
        })
        .filter(|l| !l.walls.is_empty())
        .collect()
}

/// Type 2: each floor's segments (their meshes merged), walls and roof heights.
fn segment_floors(fac: &facade::Facade) -> Vec<SegmentFloor> {
    fac.floors
        .iter()
        .map(|f| SegmentFloor {
            segments: f
                .segments
                .iter()
                .map(|seg| {
                    let mut out = SegmentArt::default();
                    for m in &seg.meshes {
                        let base = out.vertices.len() as u32;
                        let n = m.vertices.len();
                        out.vertices.extend(m.vertices.iter().map(|v| MeshVertex {
                            pos: v.pos,
                            normal: v.normal,
                            uv: v.uv,
                        }));
                        // Whole triangles whose indices are in range (a cut-short mesh is an
                        // error at parse time; this only guards).
                        for t in m.indices.chunks_exact(3) {
                            if t.iter().all(|&i| (i as usize) < n) {
                                out.indices.extend(t.iter().map(|&i| base + i));
                            }
                        }
                    }
                    out
                })
                .collect(),
            walls: f
                .walls
                .iter()
                .map(|w| SegmentWall {
                    min_width: w.min_width,
                    max_width: w.max_width,
                    spellings: w.spellings.iter().map(|s| s.segments.clone()).collect(),
                })
                .collect(),
            roof_heights: f.roof_heights.clone(),
        })
        .filter(|f| f.segments.iter().any(|s| !s.indices.is_empty()))
        .collect()
}

/// Type 2: the segment the first spelling starts with. False when it has no geometry.
fn facade_v10(fac: &facade::Facade, art: &mut FacadeArt) -> bool {
    let Some(floor) = fac.floors.first() else {
        return false;
    };
    let seg_index = floor
        .walls
        .first()
        .and_then(|w| w.spellings.first())
        .and_then(|s| s.segments.first())
        .map_or(0, |&i| i as usize);
    let Some(seg) = floor.segments.get(seg_index).or(floor.segments.first()) else {
        return false;
    };
    let mut uv = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
    let mut y = [f32::MAX, f32::MIN];
    let mut z = [f32::MAX, f32::MIN];
    let mut any = false;
    for v in seg.meshes.iter().flat_map(|m| &m.vertices) {
        any = true;
        uv = [
            uv[0].min(v.uv[0]),
            uv[1].min(v.uv[1]),
            uv[2].max(v.uv[0]),
            uv[3].max(v.uv[1]),
        ];
        y = [y[0].min(v.pos[1]), y[1].max(v.pos[1])];
        z = [z[0].min(v.pos[2]), z[1].max(v.pos[2])];
    }
    if !any {
        return false;
    }
    art.wall_uv = uv;
    art.bay_width = z[1] - z[0];
    art.floor_height = y[1] - y[0];
    art.roof_uv = [0.0, 0.0, 1.0, 1.0];
    art.bay_width > 0.0 && art.floor_height > 0.0
}

#[cfg(test)]
mod tests {
    use super::super::testing::tmp;
    use super::*;

    #[test]
    fn facades_give_a_bay_and_a_roof() {
        let d = tmp("fac");
        std::fs::write(
            d.join("v8.fac"),
            "A\n800\nFACADE\nTEXTURE h.png\nTEX_SIZE 512 256\nLOD 0 2000\nROOF 0 128\nROOF 256 256\n\
WALL 4 100 0 360\nSCALE 10 5\nLEFT 0 32\nCENTER 32 288\nBOTTOM 0 64\nMIDDLE 64 128\n",
        )
        .unwrap();
        let mut w = Vec::new();
        let mut pool = ImagePool::new();
        let f = load_facade(&d.join("v8.fac"), &mut pool, &mut w);
        assert!(!f.missing);
        assert_eq!(f.wall_uv, [0.0625, 0.25, 0.5625, 0.5]);
        assert_eq!((f.bay_width, f.floor_height), (5.0, 1.25));
        assert_eq!(f.roof_uv, [0.0, 0.5, 0.5, 1.0]);
        assert_eq!((f.texture, f.roof_texture), (Some(0), Some(0)));
        // The walls are kept for the renderer to lay out, panel by panel.
        assert_eq!(f.lods.len(), 1);
        let wall = &f.lods[0].walls[0];
        assert_eq!(
            (wall.scale, wall.left.len(), wall.center.len()),
            ([10.0, 5.0], 1, 1)
        );
        assert_eq!(f.lods[0].roof, [[0.0, 0.5], [0.5, 1.0]]);
        assert_eq!((f.open, f.two_sided), (false, false));
        assert_eq!((f.floors_min, f.floors_max), (1, 999));
        std::fs::write(
            d.join("fence.fac"),
            "A\n800\nFACADE\nTEXTURE h.png\nRING 0\nTWO_SIDED 1\nFLOORS_MIN 2\nFLOORS_MAX 1\n\
WALL 0 100\nSCALE 4 2\nCENTER 0 1\nMIDDLE 0 1\nWALL 0 100\nSCALE 4 2\nMIDDLE 0 1\n",
        )
        .unwrap();
        let f = load_facade(&d.join("fence.fac"), &mut pool, &mut w);
        assert!(f.open && f.two_sided);
        // FLOORS_MAX below FLOORS_MIN is raised to it; a wall with no panel across is dropped.
        assert_eq!((f.floors_min, f.floors_max), (2, 2));
        assert_eq!(f.lods[0].walls.len(), 1);
        std::fs::write(
            d.join("v10.fac"),
            "A\n1000\nFACADE\nSHADER_WALL\nTEXTURE w.png\nSHADER_ROOF\nTEXTURE r.png\nFLOOR f\n\
SEGMENT 0\nMESH 0 1 0 2 0\nVERTEX 0 0 0 0 0 1 0 0\nVERTEX 0 3 -4 0 0 1 0.5 0.25\n\
SEGMENT 1\nMESH 0 1 0 2 0\nVERTEX 0 0 0 0 0 1 0.5 0\nVERTEX 0 6 -2 0 0 1 1 0.5\n\
WALL 0 100 0 360 w\nSPELLING 1 0\nROOF_HEIGHT 6\n",
        )
        .unwrap();
        let f = load_facade(&d.join("v10.fac"), &mut pool, &mut w);
        assert_eq!(f.wall_uv, [0.5, 0.0, 1.0, 0.5]);
        assert_eq!((f.bay_width, f.floor_height), (2.0, 6.0));
        assert_eq!((f.texture, f.roof_texture), (Some(1), Some(2)));
        // Its meshes have no triangles: nothing to place, so the bay repeats.
        assert!(f.segment_floors.is_empty());
        std::fs::write(
            d.join("v10b.fac"),
            "A\n1000\nFACADE\nSHADER_WALL\nTEXTURE w.png\nFLOOR f\nSEGMENT 0\nMESH 0 1 0 3 3\n\
VERTEX 0 0 0 1 0 0 0 0\nVERTEX 0 0 -4 1 0 0 1 0\nVERTEX 0 3 -4 1 0 0 1 1\nIDX 0 1 2\n\
WALL 0 100 0 360 w\nSPELLING 0 0\nROOF_HEIGHT 3 6\n",
        )
        .unwrap();
        let f = load_facade(&d.join("v10b.fac"), &mut pool, &mut w);
        let fl = &f.segment_floors[0];
        assert_eq!(fl.segments[0].indices, [0, 1, 2]);
        assert_eq!(fl.walls[0].spellings, [vec![0, 0]]);
        assert_eq!(fl.roof_heights, [3.0, 6.0]);
        let f = load_facade(&d.join("none.fac"), &mut pool, &mut w);
        assert!(f.missing && f.bay_width > 0.0);
    }
}
