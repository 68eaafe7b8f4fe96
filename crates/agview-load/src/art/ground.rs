//! Ground art: what X-Plane drapes on the terrain from a DSF or a WED project: draped
//! polygons and orthophotos (`.pol`, or an orthophoto's own image) as a [`PolArt`], painted
//! lines (`.lin`) as a [`LinArt`]. Airport pavement arrives here the same way:
//! - its reader in `src/format/` gives a typed asset with spans;
//! - a `load_*` function here turns it into plain CPU-side art, resolving its textures
//!   through the same [`super::ImagePool`] (so a texture shared with objects is decoded
//!   once), and becomes a placeholder and a warning when the file is missing or broken;
//! - its list in [`super::ArtSet`] is parallel to a reference list of the
//!   [`crate::scene::Scene`], and [`super::load_art_set`] fills it;
//! - the renderer draws it in the ground order of `agview-mesh`'s `draped.rs`, where autogen tiles
//!   and OBJ8 draped parts already share one order by layer group.

use std::path::Path;

use crate::diag::Diagnostic;
use crate::format::lin::{self, Lin};
use crate::format::pol::{self, Pol};
use crate::scene::LayerGroup;

use super::files::{as_warning, read};
use super::image::ImagePool;

/// A draped polygon's look: its texture, how it repeats and where it draws.
#[derive(Debug, Clone, PartialEq)]
pub struct PolArt {
    pub name: String,
    /// Index into `ArtSet::images`; `None`: the missing-texture checkerboard.
    pub texture: Option<usize>,
    /// `TEXTURE_LIT`, when given and found.
    pub lit: Option<usize>,
    /// Meters one repeat covers along s and t (`SCALE`).
    pub scale: [f32; 2],
    pub layer_group: LayerGroup,
    /// `TEXTURE_NOWRAP`: clamped at the texture's edges.
    pub nowrap: bool,
    /// `NO_ALPHA`: drawn opaque, the texture's alpha ignored.
    pub no_alpha: bool,
    /// The `.pol` could not be found or read: drawn as a checkerboard.
    pub missing: bool,
    /// `TEXTURE_NORMAL`, `SPECULAR`, `BUMP_LEVEL`: how it is shaded.
    pub shading: GroundShading,
}

/// How a draped polygon or painted line is shaded: the material rule's result
/// (`agview_format::material`) and its normal map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroundShading {
    pub material: super::mesh::Material,
    /// `TEXTURE_NORMAL` (index into `ArtSet::images`); `None` when none or not found.
    pub normal: Option<usize>,
    /// How many times the normal map repeats over one repeat of the texture.
    pub normal_scale: f32,
}

impl Default for GroundShading {
    fn default() -> Self {
        GroundShading {
            material: Default::default(),
            normal: None,
            normal_scale: 1.0,
        }
    }
}

/// The shading a `.pol` or `.lin` declares, its normal map loaded (a missing one is warned
/// about and left out).
fn ground_shading(
    s: &crate::format::pol::DrapedShading,
    pool: &mut ImagePool,
    warnings: &mut Vec<Diagnostic>,
) -> GroundShading {
    GroundShading {
        material: agview_format::material::describe(&s.declared()),
        normal: super::mesh::found_image(s.normal.as_ref(), pool, warnings),
        normal_scale: s.normal_scale,
    }
}

/// The layer group of a `.pol` that names none: WED's `group_TaxiwaysBegin` for a polygon
/// placement (below every apt.dat taxiway, over the shoulders), GROUND.md §1.4; see
/// `docs/spec-decisions.md`.
pub fn default_pol_group() -> LayerGroup {
    LayerGroup {
        name: "taxiways".into(),
        offset: -1,
    }
}

/// The layer group of an orthophoto that names its image rather than a `.pol`: WED's
/// `group_Terrain`.
pub(crate) fn image_ortho_group() -> LayerGroup {
    LayerGroup {
        name: "terrain".into(),
        offset: 0,
    }
}

/// Whether a draped polygon's resource is an image (an orthophoto WED has not yet turned
/// into a `.pol`).
pub(crate) fn is_image(path: &Path) -> bool {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    matches!(
        ext.as_str(),
        "dds" | "png" | "bmp" | "jpg" | "jpeg" | "tif" | "tiff"
    )
}

/// Loads a `.pol` (or an orthophoto's image) and its textures. A missing or broken file is
/// a warning and a checkerboard.
pub(crate) fn load_pol(
    path: &Path,
    pool: &mut ImagePool,
    warnings: &mut Vec<Diagnostic>,
) -> PolArt {
    let name = path.display().to_string();
    if name.starts_with(BUILTIN) {
        return builtin_pol(&name, pool);
    }
    if is_image(path) {
        return PolArt {
            texture: Some(pool.load(path, warnings)),
            nowrap: true,
            layer_group: image_ortho_group(),
            missing: false,
            ..placeholder_pol(&name)
        };
    }
    let parsed = read(path, "draped polygon", warnings).and_then(|(found, bytes)| {
        let mut w = Vec::new();
        let r = pol::parse(&found, &bytes, &mut w);
        warnings.extend(w);
        r
    });
    match parsed {
        Ok(p) => pol_art(&name, &p, pool, warnings),
        Err(e) => {
            warnings.push(as_warning(e, "drawn as a checkerboard"));
            placeholder_pol(&name)
        }
    }
}

fn pol_art(name: &str, p: &Pol, pool: &mut ImagePool, warnings: &mut Vec<Diagnostic>) -> PolArt {
    let texture = p.texture.as_ref().map(|t| pool.load(&t.path, warnings));
    let lit = p
        .lit
        .as_ref()
        .map(|t| pool.load(&t.path, warnings))
        .filter(|&i| pool.images().get(i).is_some_and(|img| !img.missing));
    PolArt {
        name: name.to_string(),
        texture,
        lit,
        scale: p.scale,
        layer_group: p
            .layer_group
            .as_ref()
            .map_or_else(default_pol_group, |(name, offset)| LayerGroup {
                name: name.clone(),
                offset: *offset,
            }),
        nowrap: p.nowrap,
        no_alpha: p.no_alpha,
        missing: false,
        shading: ground_shading(&p.shading, pool, warnings),
    }
}

/// What a `.pol` that cannot be read draws: the checkerboard in the default group.
pub(crate) fn placeholder_pol(name: &str) -> PolArt {
    PolArt {
        name: name.to_string(),
        texture: None,
        lit: None,
        scale: [10.0, 10.0],
        layer_group: default_pol_group(),
        nowrap: false,
        no_alpha: false,
        missing: true,
        shading: GroundShading::default(),
    }
}

/// The prefix of agview's own ground art (airport pavement and lines).
pub(crate) const BUILTIN: &str = "agview:";

/// An image of `w × h` pixels from `f(x, y)` (y down), with its mip chain.
pub(crate) fn made(
    name: &str,
    w: u32,
    h: u32,
    f: impl Fn(u32, u32) -> [u8; 4],
) -> super::ImageData {
    let mut px = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            px.extend_from_slice(&f(x, y));
        }
    }
    super::ImageData {
        name: name.into(),
        width: w,
        height: h,
        pixels: super::ImagePixels::Rgba8(super::mip_chain(px, w, h)),
        missing: false,
    }
}

/// A small deterministic noise for built-in textures: 0..1.
pub(crate) fn grain(x: u32, y: u32, seed: u32) -> f32 {
    let mut h = x.wrapping_mul(374_761_393)
        ^ y.wrapping_mul(668_265_263)
        ^ seed.wrapping_mul(2_246_822_519);
    h = (h ^ (h >> 13)).wrapping_mul(1_274_126_177);
    (h ^ (h >> 16)) as f32 / u32::MAX as f32
}

/// agview's texture for an airport surface (`asphalt`, `concrete`, `grass`, …): a base
/// colour with grain, concrete with its joints, one repeat per 6.25 m as WED's built-in
/// pavement (GROUND.md §6.4).
fn surface_image(kind: &str) -> super::ImageData {
    let (base, spread): ([f32; 3], f32) = match kind {
        "concrete" => ([178.0, 176.0, 168.0], 14.0),
        "asphalt_light" => ([112.0, 112.0, 110.0], 16.0),
        "asphalt_dark" => ([58.0, 58.0, 60.0], 12.0),
        "grass" => ([86.0, 122.0, 58.0], 26.0),
        "dirt" => ([134.0, 104.0, 72.0], 22.0),
        "gravel" => ([150.0, 144.0, 132.0], 40.0),
        "lakebed" => ([206.0, 190.0, 160.0], 12.0),
        "water" => ([52.0, 92.0, 128.0], 8.0),
        "snow" => ([236.0, 238.0, 242.0], 8.0),
        _ => ([80.0, 80.0, 82.0], 16.0),
    };
    made(&format!("{BUILTIN}surface/{kind}"), 64, 64, |x, y| {
        let joint = kind == "concrete" && (x == 0 || y == 0);
        let g = (grain(x, y, 7) - 0.5) * spread;
        let c = |v: f32| (v + g - if joint { 40.0 } else { 0.0 }).clamp(0.0, 255.0) as u8;
        [c(base[0]), c(base[1]), c(base[2]), 255]
    })
}

/// agview's built-in [`PolArt`] for `agview:surface/KIND`.
fn builtin_pol(name: &str, pool: &mut ImagePool) -> PolArt {
    let kind = name.rsplit('/').next().unwrap_or("asphalt").to_string();
    let texture = pool.builtin(name, || surface_image(&kind));
    PolArt {
        name: name.to_string(),
        texture: Some(texture),
        lit: None,
        scale: [6.25, 6.25],
        layer_group: LayerGroup {
            name: "taxiways".into(),
            offset: 0,
        },
        nowrap: false,
        no_alpha: true,
        missing: false,
        shading: GroundShading::default(),
    }
}

/// agview's built-in [`LinArt`] for `agview:line/STYLE`: apt.dat's marking colours (see
/// `docs/spec-decisions.md`), solid or broken (3 m on, 3 m off), some with black borders.
fn builtin_lin(name: &str, pool: &mut ImagePool) -> LinArt {
    let style = name.rsplit('/').next().unwrap_or("yellow").to_string();
    let colour: [u8; 4] = if style.starts_with("white") {
        [235, 235, 230, 255]
    } else if style.starts_with("red") {
        [200, 30, 30, 255]
    } else if style.starts_with("orange") {
        [240, 130, 20, 255]
    } else {
        [238, 190, 30, 255]
    };
    let broken = style.contains("broken") || style == "white_centreline";
    let bordered = style.contains("bordered");
    let width: f32 = match style.as_str() {
        "white_bar" => 3.0,
        "white_centreline" => 0.9,
        "white_wide" | "yellow_wide" => 0.6,
        _ if bordered => 0.45,
        _ => 0.15,
    };
    let texture = pool.builtin(name, || {
        made(name, 16, 64, |x, y| {
            if broken && y >= 32 {
                return [0, 0, 0, 0];
            }
            if bordered && !(4..12).contains(&x) {
                return [15, 15, 15, 255];
            }
            colour
        })
    });
    LinArt {
        name: name.to_string(),
        texture: Some(texture),
        scale: [
            width,
            if style == "white_centreline" {
                60.0
            } else {
                6.0
            },
        ],
        layers: vec![[0.0, 0.5, 1.0]],
        start_caps: Vec::new(),
        end_caps: Vec::new(),
        align: None,
        layer_group: default_lin_group(),
        missing: false,
        shading: GroundShading::default(),
        lod: None,
    }
}

/// A painted line's look: its texture, layers and caps, in normalised texture units.
#[derive(Debug, Clone, PartialEq)]
pub struct LinArt {
    pub name: String,
    /// Index into `ArtSet::images`; `None`: the missing-texture checkerboard.
    pub texture: Option<usize>,
    /// Meters the whole texture covers across (`SCALE h`) and along (`SCALE v`) the line.
    pub scale: [f32; 2],
    /// Each layer's `[s1, sm, s2]`, divided by `TEX_WIDTH`.
    pub layers: Vec<[f32; 3]>,
    /// Each layer's start and end cap `[s1, sm, s2, t1, t2]` (s by `TEX_WIDTH`, t by
    /// `TEX_HEIGHT`), layer by layer in file order.
    pub start_caps: Vec<[f32; 5]>,
    pub end_caps: Vec<[f32; 5]>,
    pub align: Option<f32>,
    pub layer_group: LayerGroup,
    pub missing: bool,
    /// `LOD distance`: drawn out to this many meters from the camera (`None`: no limit).
    pub lod: Option<f32>,
    /// `TEXTURE_NORMAL`, `SPECULAR`, `BUMP_LEVEL`: how it is shaded.
    pub shading: GroundShading,
}

/// A `.lin` without `LAYER_GROUP` draws in `markings` (GROUND.md §2.3).
pub(crate) fn default_lin_group() -> LayerGroup {
    LayerGroup {
        name: "markings".into(),
        offset: 0,
    }
}

/// Loads a `.lin` and its texture; a missing or broken file is a warning and a 1 m wide
/// checkerboard line.
pub(crate) fn load_lin(
    path: &Path,
    pool: &mut ImagePool,
    warnings: &mut Vec<Diagnostic>,
) -> LinArt {
    let name = path.display().to_string();
    if name.starts_with(BUILTIN) {
        return builtin_lin(&name, pool);
    }
    let parsed = read(path, "painted line", warnings).and_then(|(found, bytes)| {
        let mut w = Vec::new();
        let r = lin::parse(&found, &bytes, &mut w);
        warnings.extend(w);
        r
    });
    match parsed {
        Ok(l) => lin_art(&name, &l, pool, warnings),
        Err(e) => {
            warnings.push(as_warning(e, "drawn as a checkerboard line"));
            placeholder_lin(&name)
        }
    }
}

fn lin_art(name: &str, l: &Lin, pool: &mut ImagePool, warnings: &mut Vec<Diagnostic>) -> LinArt {
    let (w, h) = (l.tex_width, l.tex_height);
    let cap = |c: &lin::LinCap| [c.s1 / w, c.sm / w, c.s2 / w, c.t1 / h, c.t2 / h];
    LinArt {
        name: name.to_string(),
        texture: l.texture.as_ref().map(|t| pool.load(&t.path, warnings)),
        scale: l.scale,
        layers: l
            .layers
            .iter()
            .map(|x| [x.s1 / w, x.sm / w, x.s2 / w])
            .collect(),
        start_caps: l.start_caps.iter().map(cap).collect(),
        end_caps: l.end_caps.iter().map(cap).collect(),
        align: l.align,
        layer_group: l
            .layer_group
            .as_ref()
            .map_or_else(default_lin_group, |(name, offset)| LayerGroup {
                name: name.clone(),
                offset: *offset,
            }),
        missing: false,
        lod: l.lod,
        shading: ground_shading(&l.shading, pool, warnings),
    }
}

/// What a `.lin` that cannot be read draws: a 1 m checkerboard line in `markings`.
pub fn placeholder_lin(name: &str) -> LinArt {
    LinArt {
        name: name.to_string(),
        texture: None,
        scale: [1.0, 4.0],
        layers: vec![[0.0, 0.5, 1.0]],
        start_caps: Vec::new(),
        end_caps: Vec::new(),
        align: None,
        layer_group: default_lin_group(),
        missing: true,
        shading: GroundShading::default(),
        lod: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{tmp, write_png};
    use super::*;

    #[test]
    fn pols_load_their_textures_and_fall_back_to_checkerboards() {
        let d = tmp("pol");
        write_png(&d.join("apron.png"), 4, 4, |_, _| [90, 90, 90, 255]);
        std::fs::write(
            d.join("apron.pol"),
            "A\n850\nDRAPED_POLYGON\nTEXTURE apron.png\nSCALE 25 25\nNO_ALPHA\n",
        )
        .unwrap();
        std::fs::write(d.join("bad.pol"), "A\n850\nDRAPED_POLYGON\nSCALE x 1\n").unwrap();
        let mut pool = ImagePool::new();
        let mut w = Vec::new();
        let a = load_pol(&d.join("apron.pol"), &mut pool, &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(a.scale, [25.0, 25.0]);
        assert!(a.no_alpha && !a.nowrap && !a.missing);
        assert_eq!(a.layer_group, default_pol_group());
        assert!(!pool.images()[a.texture.unwrap()].missing);
        let b = load_pol(&d.join("bad.pol"), &mut pool, &mut w);
        assert!(b.missing && b.texture.is_none());
        assert!(
            w[0].to_string().contains("bad.pol:4:7: warning"),
            "{}",
            w[0]
        );
        let c = load_pol(&d.join("gone.pol"), &mut pool, &mut w);
        assert!(c.missing);
        assert!(
            w[1].message.contains("draped polygon not found"),
            "{}",
            w[1]
        );
        // An orthophoto's image: clamped, in the terrain group.
        let o = load_pol(&d.join("apron.png"), &mut pool, &mut w);
        assert!(o.nowrap && !o.missing);
        assert_eq!(o.layer_group, image_ortho_group());
    }

    #[test]
    fn lins_normalise_their_columns() {
        let d = tmp("lin");
        write_png(&d.join("lines.png"), 4, 4, |_, _| [250, 200, 0, 255]);
        std::fs::write(
            d.join("edge.lin"),
            "A\n850\nLINE_PAINT\nTEXTURE lines.png\nTEX_WIDTH 512\nTEX_HEIGHT 256\n\
             S_OFFSET 0 0 64 128\nSTART_CAP 0 0 64 128 0 64\n",
        )
        .unwrap();
        let mut pool = ImagePool::new();
        let mut w = Vec::new();
        let l = load_lin(&d.join("edge.lin"), &mut pool, &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(l.layers, vec![[0.0, 0.125, 0.25]]);
        assert_eq!(l.start_caps, vec![[0.0, 0.125, 0.25, 0.0, 0.25]]);
        assert_eq!(l.layer_group, default_lin_group());
        let gone = load_lin(&d.join("gone.lin"), &mut pool, &mut w);
        assert!(gone.missing && gone.texture.is_none());
    }
}
