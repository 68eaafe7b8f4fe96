//! Objects' light points as `KHR_lights_punctual` point lights, with the colour and the
//! intensity the renderer draws them with ([`LightArt::intensity`]: X-Plane 12's candela
//! times the light's dimmer).
//!
//! Each light of a mesh is one point light in the document, shared by every node that
//! places it. Where a light node goes:
//! - a lone `.obj`: under the LOD node it is listed in (a light of no LOD under the
//!   object's node);
//! - a placed object drawn by its own node (placed once, or `--instancing nodes`): under
//!   that node, in the object's own axes (OBJ8's, which are glTF's);
//! - an `EXT_mesh_gpu_instancing` cell: a node cannot carry children per instance, so the
//!   cell's lights are one node each, placed where the instance puts them, grouped under a
//!   node `lights of <the cell's node>` beside the cell's node.
//!
//! In a scene, the lights exported are those of the exported LOD and those listed in no
//! LOD (which agview draws at their own distances). One light node per placed light, up to
//! [`ExportOptions::max_lights`](crate::ExportOptions::max_lights) in the whole export
//! (10,000 by default): an importer makes each a lamp, and a viewer lights every pixel by
//! each of them, so the rest are left out, with a warning (docs/export.md, "Lights").

use agview_load::art::LightArt;
use agview_mesh::objects::{lod_far, MeshBatch};
use glam::{Quat, Vec3};

use crate::document::{Node, PointLight};

use super::Builder;

/// The default cap on light nodes in one export (`--max-lights`).
pub const MAX_LIGHTS: usize = 10_000;

/// One light of a mesh: where it sits in the mesh's axes, the LOD it is listed in, and its
/// point light in the document once a node uses it.
#[derive(Debug, Clone)]
pub(crate) struct MeshLight {
    /// Its index among the mesh's lights (the node's name).
    pub index: usize,
    pub pos: [f32; 3],
    /// Into the mesh's LODs ([`super::objects::lods`]); their count for a light listed in
    /// none of them.
    pub lod: usize,
    color: [f32; 3],
    intensity: f32,
    /// Into [`crate::Document::lights`], once added.
    light: Option<usize>,
}

/// The lights of mesh `bi` (none for a placeholder), each with the LOD of `lods` (its
/// `(near, far)` ranges) it is listed in.
pub(crate) fn of_mesh(
    b: &Builder,
    bi: usize,
    batch: &MeshBatch,
    lods: &[(f32, f32)],
) -> Vec<MeshLight> {
    if batch.placeholder {
        return Vec::new();
    }
    let Some(mesh) = b.art.meshes.get(bi) else {
        return Vec::new();
    };
    mesh.lights
        .iter()
        .enumerate()
        .filter(|(_, l)| usable(l))
        .map(|(index, l)| {
            let near = l.near.max(0.0);
            let far = lod_far(near, l.far, batch.bounds);
            MeshLight {
                index,
                pos: l.pos,
                lod: lods
                    .iter()
                    .position(|&(n, f)| n == near && f == far)
                    .unwrap_or(lods.len()),
                color: [l.color[0], l.color[1], l.color[2]],
                intensity: l.intensity(),
                light: None,
            }
        })
        .collect()
}

/// A light the renderer draws (`lights::build`'s test).
fn usable(l: &LightArt) -> bool {
    l.pos.iter().chain(&l.color).all(|v| v.is_finite())
        && l.size.is_finite()
        && l.size > 0.0
        && l.candela.is_finite()
}

/// A node of light `l` at `translation` (in its parent's axes) named `name`; `None` once the
/// export holds [`ExportOptions::max_lights`](crate::ExportOptions::max_lights) of them
/// (counted in [`Builder::lights_left_out`]).
pub(crate) fn node(
    b: &mut Builder,
    l: &mut MeshLight,
    name: String,
    translation: [f32; 3],
) -> Option<usize> {
    if b.light_nodes >= b.opts.max_lights {
        b.lights_left_out += 1;
        return None;
    }
    b.light_nodes += 1;
    let light = *l.light.get_or_insert_with(|| {
        b.doc.lights.push(PointLight {
            name: format!("light {}", l.index),
            color: l.color,
            intensity: l.intensity,
            range: None,
        });
        b.doc.lights.len() - 1
    });
    Some(b.node(Node {
        name,
        translation,
        light: Some(light),
        ..Node::default()
    }))
}

/// Hangs `lights` (those the scene exports: of LOD `lod`, or of none) on the nodes `place`
/// made for one mesh: under a node that draws one placement, and beside an instanced
/// cell's node, one node per instance and light. The cells' light groups are returned, to
/// stand beside their cells.
pub(crate) fn hang(
    b: &mut Builder,
    lights: &mut [MeshLight],
    lod: usize,
    lod_count: usize,
    nodes: &[usize],
) -> Vec<usize> {
    let shown = |l: &MeshLight| l.lod == lod || l.lod == lod_count;
    if !lights.iter().any(shown) {
        return Vec::new();
    }
    let mut groups = Vec::new();
    for &n in nodes {
        match b.doc.nodes[n].instances.clone() {
            None => {
                let mut kids = Vec::new();
                for l in lights.iter_mut().filter(|l| shown(l)) {
                    let name = format!("light {}", l.index);
                    kids.extend(node(b, l, name, l.pos));
                }
                b.doc.nodes[n].children.extend(kids);
            }
            Some(inst) => {
                let mut kids = Vec::new();
                let each = inst
                    .translation
                    .iter()
                    .zip(&inst.rotation)
                    .zip(&inst.scale)
                    .enumerate();
                for (i, ((t, r), s)) in each {
                    let (t, r, s) = (Vec3::from(*t), Quat::from_array(*r), Vec3::from(*s));
                    for l in lights.iter_mut().filter(|l| shown(l)) {
                        let at = t + r * (s * Vec3::from(l.pos));
                        let name = format!("light {} of instance {i}", l.index);
                        kids.extend(node(b, l, name, at.to_array()));
                    }
                }
                if !kids.is_empty() {
                    let name = format!("lights of {}", b.doc.nodes[n].name);
                    groups.push(b.node(Node {
                        name,
                        children: kids,
                        ..Node::default()
                    }));
                }
            }
        }
    }
    groups
}

/// The warning of lights left out by the cap, if any were.
pub(crate) fn left_out_warning(b: &Builder) -> Option<String> {
    (b.lights_left_out > 0).then(|| {
        format!(
            "{} of the objects' {} light(s) left out: an export holds at most {} (--max-lights)",
            b.lights_left_out,
            b.lights_left_out + b.light_nodes,
            b.opts.max_lights
        )
    })
}
