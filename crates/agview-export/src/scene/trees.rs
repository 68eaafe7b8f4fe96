//! Forests: each tree as the crossed quads and crown quad agview draws
//! ([`agview_mesh::trees::quads`], the CPU copy of `tree.wgsl`). Trees sharing a picture
//! (forest, texture rectangle, trunk offset and number of quads) share one mesh, built for
//! a tree 1 m wide and tall and scaled to each tree's width and height; its heading is the
//! instance's rotation. Alpha-tested at [`agview_mesh::trees::ALPHA_CUTOFF`], two-sided.

use std::collections::HashMap;

use agview_load::art::Material;
use agview_mesh::objects::TexSource;
use agview_mesh::trees::{self, TreeInstanceGpu, TRUNK_SINK_M};

use crate::document::{AlphaMode, Primitive};
use crate::textures::Look;

use super::axes::{direction, heading_rotation};
use super::place::{place, Placed};
use super::{file_name, st_to_uv, Builder};

/// What trees share a mesh by: forest, picture, trunk offset, quads.
type TreeKey = (usize, [u32; 4], u32, u32);

pub(crate) fn trees(b: &mut Builder) -> Vec<usize> {
    let forests = trees::forests(b.art);
    let tmesh = trees::build(b.scene, &forests);
    if tmesh.instances.is_empty() {
        return Vec::new();
    }
    let mut nodes = Vec::new();
    for g in &tmesh.groups {
        let forest = forests.get(g.forest).copied().flatten();
        let forest_name = match (g.forest, forest) {
            (_, Some(f)) => file_name(&f.name),
            (0, None) => b
                .scene
                .forest
                .as_ref()
                .map_or_else(|| "forest".into(), |r| file_name(&r.name)),
            (k, None) => b
                .scene
                .more_forests
                .get(k - 1)
                .map_or_else(|| format!("forest {k}"), |r| file_name(&r.name)),
        };
        let src = match forest {
            Some(f) => f.texture.map_or(TexSource::Checker, TexSource::Image),
            None => {
                b.warn(format!(
                    "forest {forest_name}: missing; its trees are exported in the warning colour"
                ));
                TexSource::Checker
            }
        };
        let (albedo, missing) = b.image(src);
        let look = Look {
            name: b.image_name(src, &format!("placeholder tree ({forest_name})")),
            albedo,
            lit: None,
            normal: None,
            map: None,
            shading: Material::default(),
            alpha: AlphaMode::Mask(trees::ALPHA_CUTOFF),
            double_sided: true,
            missing,
            tint: [1.0; 3],
        };
        let material = b.material(&look);
        let list = &tmesh.instances[g.first as usize..(g.first + g.count) as usize];
        let mut by_key: HashMap<TreeKey, Vec<usize>> = HashMap::new();
        let mut order: Vec<TreeKey> = Vec::new();
        for (k, t) in list.iter().enumerate() {
            let key = (
                g.forest,
                t.uv.map(f32::to_bits),
                t.size_offset[2].to_bits(),
                t.base_heading_quads[3] as u32,
            );
            by_key
                .entry(key)
                .or_insert_with(|| {
                    order.push(key);
                    Vec::new()
                })
                .push(k);
        }
        for (n, key) in order.iter().enumerate() {
            let members = &by_key[key];
            let label = format!("{forest_name} tree {n}");
            let Some(mesh) = b.mesh(
                label.clone(),
                vec![tree_primitive(&list[members[0]], material)],
            ) else {
                continue;
            };
            let placements = members
                .iter()
                .map(|&k| {
                    let t = &list[k];
                    let [x, y, heading, _] = t.base_heading_quads;
                    let [w, h, _, _] = t.size_offset;
                    let up = b.terrain.height_at(x, y) - TRUNK_SINK_M;
                    Placed {
                        name: format!("tree {} {forest_name}", g.first as usize + k),
                        translation: b.axes.point(x, y, up),
                        rotation: heading_rotation(heading),
                        scale: [w, h, w],
                    }
                })
                .collect();
            nodes.extend(place(b, mesh, &label, placements));
        }
    }
    nodes
}

/// A tree's quads, 1 m wide and tall, in glTF's axes.
fn tree_primitive(t: &TreeInstanceGpu, material: usize) -> Primitive {
    let mut p = Primitive {
        material: Some(material),
        ..Primitive::default()
    };
    for quad in trees::quads(t) {
        let base = p.positions.len() as u32;
        for (at, st) in quad {
            p.positions.push(direction(at));
            p.uvs.push(st_to_uv(st));
        }
        p.indices
            .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    p
}
