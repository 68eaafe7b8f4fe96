//! A laid-out scene as a glTF [`Document`], from agview-mesh's CPU meshes: the very
//! builders the renderer uploads (`tiles::build`, `DrapedSet::build`, `ObjectSet::build`,
//! `facades::build`, `trees::build`). Nothing is laid out again here; what the shaders do
//! to those buffers (lift pieces onto the terrain, place instances, turn trees' records
//! into quads) is done once more on the CPU, by the same rules (`docs/export.md`).
//!
//! - [`axes`]: the scene frame (metres east, north, up) to glTF's (X east, Y up, Z south),
//!   with the origin at the framing centre;
//! - [`place`]: repeated meshes as instances (`EXT_mesh_gpu_instancing` in spatial cells,
//!   or one node each);
//! - [`ground`]: tiles, draped polygons, lines, pavement, roads, objects' draped parts and
//!   the terrain, lifted above it ([`ground::GROUND_LIFT_M`]);
//! - [`objects`], [`facades`], [`trees`]: what stands on the ground;
//! - [`lights`]: objects' light points as point lights.

pub mod axes;
pub mod facades;
pub mod ground;
pub mod lights;
pub mod objects;
pub mod place;
pub(crate) mod terrain_texture;
pub mod trees;

#[cfg(test)]
mod tests;

use std::borrow::Cow;

use agview_core::scene::Scene;
use agview_core::terrain::Terrain;
use agview_load::art::ArtSet;
use agview_mesh::objects::TexSource;

use crate::document::{Mesh, Node, Primitive};
use crate::textures::{Look, Materials};
use crate::{Document, ExportOptions, Warnings};

use self::axes::Axes;

/// The glTF of `scene` drawn with `art` over `terrain`, and what was said on the way.
pub fn export(
    scene: &Scene,
    art: &ArtSet,
    terrain: &Terrain,
    opts: &ExportOptions,
) -> (Document, Warnings) {
    let b = build(scene, art, terrain, opts);
    (b.doc, b.warnings)
}

/// [`export`], keeping what was built on the way (the tests read the looks).
pub(crate) fn build<'a>(
    scene: &'a Scene,
    art: &'a ArtSet,
    terrain: &'a Terrain,
    opts: &'a ExportOptions,
) -> Builder<'a> {
    // As the renderer does: an inconsistent grid is drawn flat.
    let valid = terrain.is_valid();
    let terrain = if valid {
        Cow::Borrowed(terrain)
    } else {
        Cow::Owned(Terrain::flat(terrain.size_m).with_center(terrain.center))
    };
    let framing = agview_mesh::Framing::new(scene, Some(art), Some(&terrain));
    let axes = Axes::at(framing.center().to_array());
    let mut b = Builder {
        doc: Document::default(),
        materials: Materials::default(),
        scene,
        art,
        terrain,
        opts,
        axes,
        warnings: Vec::new(),
        light_nodes: 0,
        lights_left_out: 0,
    };
    if !valid {
        b.warn("the terrain's height grid is inconsistent; exported flat".into());
    }
    b.doc.extras = extras(scene, &axes);

    let mut layers: Vec<(&str, Vec<usize>)> = Vec::new();
    if opts.terrain_mesh {
        let bounds = framing.bounds();
        layers.push(("terrain", ground::terrain(&mut b, bounds)));
    }
    let g = ground::ground(&mut b);
    layers.push(("tiles", g.tiles));
    layers.push(("ground", g.ground));
    layers.push(("roads", g.roads));
    let mut objects = objects::objects(&mut b);
    objects.extend(g.parts);
    layers.push(("objects", objects));
    if let Some(w) = lights::left_out_warning(&b) {
        b.warn(w);
    }
    layers.push(("facades", facades::facades(&mut b)));
    layers.push(("forests", trees::trees(&mut b)));
    // The materials asked for, with their images made on every core.
    b.materials.finish(&mut b.doc, art, opts);
    let failed = b.materials.take_warnings();
    b.warn_all(&failed);
    for (name, children) in layers {
        if !children.is_empty() {
            let n = b.node(Node {
                name: name.to_string(),
                children,
                ..Node::default()
            });
            b.doc.roots.push(n);
        }
    }
    b
}

/// The document's `extras`: agview's version, the scene's geographic origin (where its
/// frame's 0, 0 is; `null` for a scene without one) and where glTF's origin lies in that
/// frame (metres east, north and up).
fn extras(scene: &Scene, axes: &Axes) -> serde_json::Value {
    let [east, north, up] = axes.centre;
    serde_json::json!({
        "agview": env!("CARGO_PKG_VERSION"),
        "origin": scene.geo.map(|g| serde_json::json!({
            "lat": g.origin_lat,
            "lon": g.origin_lon,
        })),
        "framing_centre_m": { "east": east, "north": north, "up": up },
    })
}

/// What every part of the export shares: the document as built so far, its materials, the
/// inputs, the axes and the warnings.
pub(crate) struct Builder<'a> {
    pub doc: Document,
    pub materials: Materials,
    pub scene: &'a Scene,
    pub art: &'a ArtSet,
    pub terrain: Cow<'a, Terrain>,
    pub opts: &'a ExportOptions,
    pub axes: Axes,
    pub warnings: Warnings,
    /// Light nodes made so far, and those left out by [`ExportOptions::max_lights`].
    pub light_nodes: usize,
    pub lights_left_out: usize,
}

impl Builder<'_> {
    /// Adds a warning, once.
    pub fn warn(&mut self, w: String) {
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }

    pub fn warn_all(&mut self, ws: &[String]) {
        for w in ws {
            self.warn(w.clone());
        }
    }

    pub fn node(&mut self, node: Node) -> usize {
        self.doc.nodes.push(node);
        self.doc.nodes.len() - 1
    }

    /// A mesh of the primitives that have triangles; `None` when none has.
    pub fn mesh(&mut self, name: String, primitives: Vec<Primitive>) -> Option<usize> {
        let primitives: Vec<Primitive> = primitives
            .into_iter()
            .filter(|p| p.indices.len() >= 3)
            .collect();
        if primitives.is_empty() {
            return None;
        }
        self.doc.meshes.push(Mesh { name, primitives });
        Some(self.doc.meshes.len() - 1)
    }

    /// The material of `look`, added the first time it is asked for
    /// ([`Materials::get`], which keeps the looks).
    pub fn material(&mut self, look: &Look) -> usize {
        self.materials.get(&mut self.doc, look)
    }

    /// A texture source as a [`Look`]'s image: the image, and whether it stands for
    /// something missing (a missing file, an index past the art's images, a missing
    /// mesh's hazard stripes), which is warned about once by name.
    pub fn image(&mut self, src: TexSource) -> (Option<usize>, bool) {
        match src {
            TexSource::Image(i) => match self.art.images.get(i) {
                Some(img) if img.missing => {
                    self.warn(format!(
                        "texture {}: missing; exported in the warning colour",
                        img.name
                    ));
                    (None, true)
                }
                Some(_) => (Some(i), false),
                None => (None, true),
            },
            TexSource::Checker | TexSource::Hazard => (None, true),
            TexSource::White | TexSource::Black | TexSource::FlatNormal => (None, false),
        }
    }

    /// An optional second texture (lit, normal, material map): the image when it is there
    /// and was found.
    pub fn extra_image(&self, src: TexSource) -> Option<usize> {
        match src {
            TexSource::Image(i) if self.art.images.get(i).is_some_and(|img| !img.missing) => {
                Some(i)
            }
            _ => None,
        }
    }

    /// The name a material of image `src` goes by: the image's file name, or `fallback`.
    pub fn image_name(&self, src: TexSource, fallback: &str) -> String {
        match src {
            TexSource::Image(i) => self
                .art
                .images
                .get(i)
                .map_or_else(|| fallback.to_string(), |img| file_name(&img.name)),
            _ => fallback.to_string(),
        }
    }
}

/// The last component of a path, with either separator.
pub(crate) fn file_name(path: &str) -> String {
    path.rsplit(['/', '\\']).next().unwrap_or(path).to_string()
}

/// A texture coordinate (s, t up from the bottom) as glTF's (u, v down from the top):
/// `common.wgsl`'s `st_to_uv`.
pub(crate) fn st_to_uv(st: [f32; 2]) -> [f32; 2] {
    [st[0], 1.0 - st[1]]
}
