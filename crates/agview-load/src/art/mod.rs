//! The art stage: the files a [`Scene`] names (objects, facades, forests, textures) loaded
//! from disk into plain CPU-side data that the renderer uploads. The renderer takes a
//! [`Scene`] and an [`ArtSet`] and never reads a file itself.
//!
//! One module per kind of art, mirroring [`crate::format`], each turning a reader's typed
//! asset into what is drawn:
//! - [`mesh`]: OBJ8 and Wavefront objects to a [`MeshArt`] (LODs, materials, draped part,
//!   light points);
//! - [`facade`]: type 1 and type 2 `.fac` (and image facades) to a [`FacadeArt`];
//! - [`forest`]: `.for` to a [`ForestArt`];
//! - [`image`]: PNG and DDS to an [`ImageData`] with its mips, shared through an
//!   [`ImagePool`];
//! - [`ground`]: draped polygons and orthophotos (`.pol`) to a [`PolArt`], and the place
//!   for the other ground kinds (`.lin`, pavement);
//! - [`files`]: how a referenced name becomes a file on disk, and how a reader's error
//!   becomes a warning.
//!
//! Nothing here fails: a file that is missing or broken becomes a placeholder marked
//! `missing` and a warning naming the file (a parse error keeps its line and column, reported
//! as a warning because the scene can still be drawn).
//!
//! Every list of an [`ArtSet`] is parallel to the scene's reference lists: `meshes[i]` is the
//! art of `scene.meshes[i]`, `facades[i]` of `scene.facade_defs[i]`. Art that could not be
//! found is still present, marked `missing`, so the renderer draws a placeholder (a
//! warning-coloured box for a mesh, a checkerboard for a texture) and the warning is listed.

use std::path::Path;

use crate::diag::{kind, Diagnostic, Severity};
use crate::scene::{ArtRef, Scene};

pub mod facade;
pub mod files;
pub mod forest;
pub mod ground;
pub mod image;
pub mod mesh;
pub mod roads;
#[cfg(test)]
mod testing;

/// The material rule (`agview_format::material`).
pub use agview_format::material;
pub use facade::{
    load_facade, FacadeArt, PanelLod, PanelWall, SegmentArt, SegmentFloor, SegmentWall,
};
pub(crate) use forest::load_forest;
pub use forest::{ForestArt, TreeArt};
pub(crate) use ground::{load_lin, load_pol};
pub use ground::{GroundShading, LinArt, PolArt};
pub use image::{
    decode_bc, BcFormat, DecodedImages, ImageData, ImagePixels, ImagePool, PoolRecord,
};
pub(crate) use image::{decode_capped, mip_chain, rgba8_mips};
pub(crate) use mesh::{load_lights_txt, load_mesh_with};
pub use mesh::{load_mesh, DrapedArt, DrawState, LightArt, Material, MeshArt, MeshLod, MeshVertex};

/// Everything the renderer needs beside the scene.
#[derive(Debug, Clone, Default)]
pub struct ArtSet {
    /// Parallel to `Scene::meshes`.
    pub meshes: Vec<MeshArt>,
    /// Parallel to `Scene::facade_defs`.
    pub facades: Vec<FacadeArt>,
    /// The forest trees are drawn from.
    pub forest: Option<ForestArt>,
    /// Parallel to `Scene::more_forests`.
    pub more_forests: Vec<ForestArt>,
    /// Parallel to `Scene::pol_defs`.
    pub pols: Vec<PolArt>,
    /// Parallel to `Scene::lin_defs`.
    pub lins: Vec<LinArt>,
    /// Parallel to `Scene::road_looks`: the image of each of a look's textures.
    pub roads: Vec<Vec<usize>>,
    /// The base tile texture (`Scene::tile_texture`).
    pub tile_texture: Option<usize>,
    /// Its `TEXTURE_LIT` (`TileTexture::lit`), when given and found: the tiles glow with it
    /// as night comes.
    pub tile_lit: Option<usize>,
    /// Texture pool referenced by index from the entries above.
    pub images: Vec<ImageData>,
    /// What could not be found or read (missing files are warnings), then what the
    /// loading chose that the user should know (textures lowered to fit the texture
    /// budget), as notes.
    pub warnings: Vec<Diagnostic>,
    /// Where the first images came from (the pool's; images added after it, such as a tile
    /// atlas, are not in it): what [`ArtSet::take_decoded`] hands on.
    pub pool: PoolRecord,
}

impl ArtSet {
    /// Hands the pool's decoded images to a later load of the same files
    /// ([`crate::document::load_document_art_seeded`]): their pixels move out (nothing is copied), and this set
    /// keeps each image's name and size with no pixels, as an upload that released them
    /// leaves it. A large document's preview hands its images on to the whole this way,
    /// once they are on the GPU.
    pub fn take_decoded(&mut self) -> DecodedImages {
        let n = self.pool.paths.len().min(self.images.len());
        let images = self.images[..n]
            .iter_mut()
            .map(|img| {
                let pixels = std::mem::replace(&mut img.pixels, ImagePixels::Rgba8(Vec::new()));
                ImageData {
                    name: img.name.clone(),
                    width: img.width,
                    height: img.height,
                    pixels,
                    missing: img.missing,
                }
            })
            .collect();
        let mut record = std::mem::take(&mut self.pool);
        record.paths.truncate(n);
        record.said.truncate(n);
        DecodedImages { record, images }
    }
}

/// Loads everything `scene` names. Each [`ArtRef`] is loaded from its `resolved` path, or
/// from its `name` when it was not resolved.
pub fn load_art_set(scene: &Scene) -> ArtSet {
    load_art_set_with(scene, &ArtOptions::default())
}

/// How art is loaded, beyond what the scene names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArtOptions {
    /// Textures keep no mip level with a side over this ([`image::cap_side`]); `None`:
    /// every level of the file (the adapter's limit applies when uploading).
    pub max_texture_side: Option<u32>,
    /// Textures keep at most this many bytes of pixels in all: the largest lose their top
    /// levels first ([`image::ImagePool::with_budget`]); `None`: no budget.
    pub texture_budget: Option<u64>,
}

const MB: u64 = 1024 * 1024;

/// [`load_art_set`] with `opts`.
pub(crate) fn load_art_set_with(scene: &Scene, opts: &ArtOptions) -> ArtSet {
    load_art_set_seeded(scene, opts, None)
}

/// [`load_art_set_with`], starting from the images an earlier load of the same files
/// decoded (`seed`, [`ArtSet::take_decoded`]): only the images they lack are decoded.
pub(crate) fn load_art_set_seeded(
    scene: &Scene,
    opts: &ArtOptions,
    seed: Option<DecodedImages>,
) -> ArtSet {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    load_art_set_ahead(scene, opts, seed, cores > 1)
}

/// [`load_art_set_seeded`], decoding the images ahead on every core when `ahead`
/// ([`ImagePool::plan`]), one at a time at their first ask otherwise. The outcome is the
/// same either way.
fn load_art_set_ahead(
    scene: &Scene,
    opts: &ArtOptions,
    seed: Option<DecodedImages>,
    ahead: bool,
) -> ArtSet {
    let mut pool = ImagePool::seeded(opts.max_texture_side, opts.texture_budget, seed);
    // Decode ahead: a first pass that decodes nothing learns which images the load asks
    // for, in order, so that they decode on every core (PNG decoding and mip building are
    // most of an art load) while the art files load in order.
    if ahead {
        let mut recording = ImagePool::recording();
        load_art_with(scene, &mut recording, &mut Vec::new());
        pool.plan(recording.asked());
    }
    let mut warnings = Vec::new();
    let mut art = load_art_with(scene, &mut pool, &mut warnings);
    if let (Some(budget), n @ 1..) = (opts.texture_budget, pool.trimmed()) {
        let note = format!(
            "texture budget {} MB: {n} texture(s) drawn at a lower resolution, the largest \
             first ({:.0} MB kept; raise it with --texture-budget MB)",
            budget / MB,
            pool.held_bytes() as f64 / MB as f64
        );
        warnings.push(Diagnostic::general(Severity::Note, note).with_kind(kind::LIMIT));
    }
    let (images, record) = pool.into_parts();
    art.images = images;
    art.warnings = warnings;
    art.pool = record;
    art
}

/// The art `scene` names, its images asked of `pool` and what loading said put in
/// `warnings` (the set's own `images`, `warnings` and `pool` are left empty).
fn load_art_with(scene: &Scene, pool: &mut ImagePool, warnings: &mut Vec<Diagnostic>) -> ArtSet {
    // An unresolved reference was reported where it is named; it is drawn as a placeholder
    // and never opened relative to the working directory.
    let resolved = |r: &ArtRef| r.resolved.as_deref().map(crate::diag::text_path);
    let lights = scene
        .lights_txt
        .as_deref()
        .and_then(|p| load_lights_txt(Path::new(p), warnings));
    let meshes = scene
        .meshes
        .iter()
        .map(|r| match resolved(r) {
            Some(p) => load_mesh_with(&p, pool, lights.as_ref(), warnings),
            None => mesh::placeholder_mesh(Path::new(&*r.name)),
        })
        .collect();
    let mut facades: Vec<FacadeArt> = scene
        .facade_defs
        .iter()
        .map(|r| match resolved(r) {
            Some(p) => load_facade(&p, pool, warnings),
            None => facade::placeholder_facade(Path::new(&*r.name)),
        })
        .collect();
    // AGN roof textures: the whole image is the roof, repeated every few meters.
    for (i, roof) in &scene.facade_roofs {
        if let Some(f) = facades.get_mut(*i) {
            f.roof_texture = Some(pool.load(Path::new(roof), warnings));
            f.roof_lit_texture = None;
            f.roof_uv = [0.0, 0.0, 1.0, 1.0];
        }
    }
    let mut forest_of = |r: &ArtRef| match resolved(r) {
        Some(p) => load_forest(&p, pool, warnings),
        None => forest::missing_forest(Path::new(&*r.name)),
    };
    let forest = scene.forest.as_ref().map(&mut forest_of);
    let more_forests = scene.more_forests.iter().map(forest_of).collect();
    let pols = scene
        .pol_defs
        .iter()
        .map(|r| match resolved(r) {
            Some(p) => load_pol(&p, pool, warnings),
            // agview's own pavement art has no file.
            None if r.name.starts_with(ground::BUILTIN) => {
                load_pol(Path::new(&*r.name), pool, warnings)
            }
            None => ground::placeholder_pol(&r.name),
        })
        .collect();
    let lins = scene
        .lin_defs
        .iter()
        .map(|r| match resolved(r) {
            Some(p) => load_lin(&p, pool, warnings),
            None if r.name.starts_with(ground::BUILTIN) => {
                load_lin(Path::new(&*r.name), pool, warnings)
            }
            None => ground::placeholder_lin(&r.name),
        })
        .collect();
    let roads = roads::load_road_textures(&scene.road_looks, pool, warnings);
    let tile_texture = scene
        .tile_texture
        .as_ref()
        .map(|t| pool.load(&crate::diag::text_path(&t.path), warnings));
    // `TEXTURE_LIT` of the tiles: as objects', a missing one is left out.
    let tile_lit = scene
        .tile_texture
        .as_ref()
        .and_then(|t| t.lit.as_ref())
        .map(|p| pool.load(&crate::diag::text_path(p), warnings))
        .filter(|&i| pool.images().get(i).is_some_and(|img| !img.missing));
    ArtSet {
        tile_lit,
        meshes,
        facades,
        forest,
        more_forests,
        pols,
        lins,
        roads,
        tile_texture,
        ..ArtSet::default()
    }
}

#[cfg(test)]
mod tests {
    use super::mesh::default_light_look;
    use super::testing::{tmp, write_png};
    use super::*;

    /// An OBJ8 triangle with a lit texture and three named lights, one per kind.
    fn lamp_obj(lit: &str) -> String {
        format!(
            "A\n800\nOBJ\nTEXTURE lamp.png\nTEXTURE_LIT {lit}\nPOINT_COUNTS 3 0 0 3\n\
VT 0 0 0 0 1 0 0 0\nVT 1 0 0 0 1 0 1 0\nVT 0 1 0 0 1 0 0 1\nIDX 0\nIDX 1\nIDX 2\n\
ATTR_LOD 0 500\nTRIS 0 3\nLIGHT_NAMED airplane_beacon 0 5 0\n\
LIGHT_PARAM full_custom_halo 0 4 0 0.5 0.25 1 6\n\
LIGHT_NAMED my_green_taxi_light 0 3 0\n\
LIGHT_CUSTOM 1 2 3 1 0.5 0 1 2 0 0 1 1 sim/x\n"
        )
    }

    #[test]
    fn decoding_ahead_gives_the_serial_loads_images_warnings_and_indices() {
        let d = tmp("ahead");
        // Twelve objects: textures of their own and shared ones, a lit texture that is
        // missing, one found only by ignoring case, one that is not an image; more than
        // one batch of a budgeted pool, whose small budget trims some.
        let mut meshes = Vec::new();
        for k in 0..12u32 {
            let side = 8 << (k % 3);
            write_png(&d.join(format!("t{k}.png")), side, side, |x, y| {
                [(x * 16) as u8, (y * 16) as u8, k as u8, 255]
            });
            let (tex, lit) = match k {
                3 => ("t0.png".to_string(), "gone_LIT.png".to_string()),
                5 => ("Upper.png".to_string(), format!("t{k}.png")),
                7 => ("broken.png".to_string(), "t1.png".to_string()),
                _ => (format!("t{k}.png"), format!("t{}.png", (k + 1) % 12)),
            };
            let obj = lamp_obj(&lit).replace("lamp.png", &tex);
            std::fs::write(d.join(format!("o{k}.obj")), obj).unwrap();
            meshes.push(ArtRef {
                name: format!("o{k}.obj").into(),
                resolved: Some(d.join(format!("o{k}.obj")).display().to_string()),
            });
        }
        write_png(&d.join("upper.png"), 4, 4, |_, _| [1, 2, 3, 255]);
        std::fs::write(d.join("broken.png"), b"not an image").unwrap();
        let scene = Scene {
            meshes,
            ..Scene::default()
        };
        for opts in [
            ArtOptions::default(),
            ArtOptions {
                max_texture_side: Some(16),
                texture_budget: Some(20_000),
            },
        ] {
            let serial = load_art_set_ahead(&scene, &opts, None, false);
            let ahead = load_art_set_ahead(&scene, &opts, None, true);
            assert_eq!(ahead.images, serial.images, "{opts:?}");
            assert_eq!(ahead.warnings, serial.warnings, "{opts:?}");
            assert_eq!(ahead.meshes, serial.meshes, "{opts:?}");
            assert_eq!(ahead.pool, serial.pool, "{opts:?}");
            assert!(serial.warnings.len() >= 3, "{:?}", serial.warnings);
        }
        assert!(
            load_art_set_ahead(
                &scene,
                &ArtOptions {
                    max_texture_side: None,
                    texture_budget: Some(20_000)
                },
                None,
                true
            )
            .warnings
            .iter()
            .any(|w| w.to_string().contains("texture budget")),
            "the budget trims"
        );
    }

    #[test]
    fn the_default_table_covers_xp12_families_and_xp11_spill_names() {
        let look = |n: &str| default_light_look(n);
        // Colour words as X-Plane spells them, the family's intensity in candela.
        let (c, _, cd) = look("taxi_g");
        assert_eq!((c[1], cd), (1.0, 300.0));
        let (c, _, _) = look("edge_mirl_y");
        assert!(c[0] == 1.0 && c[2] < 0.5, "amber: {c:?}");
        let (_, r, cd) = look("airplane_landing_bb");
        assert!(cd >= 10_000.0 && r > 1.0);
        assert_eq!(look("airplane_nav_pm").2, look("airplane_nav_bb").2);
        assert_eq!(look("TDZL_left").2, 5_000.0);
        // XP11's spill names, removed in XP12, still draw as their light.
        for n in [
            "RCLS_r_rev_sp",
            "inset_thresh_g_sp",
            "taxi_y_rev_sp",
            "TDZL_sp",
        ] {
            let (c, r, cd) = look(n);
            assert!(cd > 0.0 && r > 0.0 && c[3] == 1.0, "{n}");
        }
        assert_eq!(look("RCLS_r_rev_sp").0[0], 1.0, "red");
        assert_eq!(look("inset_thresh_g_sp").0[1], 1.0, "green");
        // Anything else: a warm white.
        assert_eq!(look("mystery").2, 300.0);
    }

    #[test]
    fn lights_take_lights_txt_then_the_default_table() {
        let d = tmp("lights");
        write_png(&d.join("lamp.png"), 4, 4, |_, _| [200, 200, 200, 255]);
        write_png(&d.join("lamp_LIT.png"), 4, 4, |_, _| [255, 200, 100, 255]);
        std::fs::write(d.join("lamp.obj"), lamp_obj("lamp_LIT.png")).unwrap();
        std::fs::write(d.join("dark.obj"), lamp_obj("gone_LIT.png")).unwrap();
        std::fs::create_dir_all(d.join("Resources")).unwrap();
        std::fs::write(
            d.join("Resources/lights.txt"),
            "A\n850\nLIGHT_SPECS\n\nLIGHT_PARAM_DEF full_custom_halo 4 R G B S\n\
BILLBOARD_HW full_custom_halo R G B 1 S 0 0 0\n\
BILLBOARD_HW airplane_beacon 0 0 1 1 3 0 0 0\nBILLBOARD_HW broken 1 1\n",
        )
        .unwrap();
        let obj = |name: &str| ArtRef {
            name: name.into(),
            resolved: Some(d.join(name).display().to_string()),
        };
        let mut scene = Scene {
            meshes: vec![obj("lamp.obj"), obj("dark.obj")],
            ..Scene::default()
        };
        // Without an install: the default table by name, LIGHT_CUSTOM its own look.
        let art = load_art_set(&scene);
        let lamp = &art.meshes[0];
        assert!(lamp.lit_texture.is_some());
        assert_eq!(lamp.lights.len(), 4);
        assert_eq!((lamp.lights[0].near, lamp.lights[0].far), (0.0, 500.0));
        assert_eq!(lamp.lights[0].pos, [0.0, 5.0, 0.0]);
        assert_eq!(
            (
                lamp.lights[0].color,
                lamp.lights[0].size,
                lamp.lights[0].candela
            ),
            default_light_look("beacon")
        );
        assert_eq!(lamp.lights[0].color[0], 1.0, "a beacon is red");
        assert_eq!(lamp.lights[2].color[1], 1.0, "green by its name");
        assert_eq!(lamp.lights[3].color, [1.0, 0.5, 0.0, 1.0]);
        assert_eq!(lamp.lights[3].size, 2.0);
        // A missing lit texture is a warning, and no glow.
        assert_eq!(art.meshes[1].lit_texture, None);
        assert!(art
            .warnings
            .iter()
            .any(|w| w.to_string().contains("gone_LIT.png")));
        // With lights.txt: its billboards, LIGHT_PARAM's values filling the parameters;
        // half the SIZE is the radius. Its bad line is a located warning.
        scene.lights_txt = Some(d.join("Resources/lights.txt").display().to_string());
        let art = load_art_set(&scene);
        let lamp = &art.meshes[0];
        assert_eq!(lamp.lights[0].color, [0.0, 0.0, 1.0, 1.0]);
        assert_eq!(lamp.lights[0].size, 1.5);
        assert_eq!(lamp.lights[1].color, [0.5, 0.25, 1.0, 1.0]);
        assert_eq!(lamp.lights[1].size, 3.0);
        assert_eq!(
            lamp.lights[2].color[1], 1.0,
            "not in lights.txt: the default"
        );
        assert!(art
            .warnings
            .iter()
            .any(|w| w.to_string().contains("lights.txt:8:")));
    }
}
