//! Meshes used more than once are instanced:
//!
//! - [`Instancing::Extension`]: `EXT_mesh_gpu_instancing`, the instances grouped into square
//!   cells of [`CELL_M`] on the ground, one node per (cell, mesh), as the extension advises
//!   so that a viewer can cull cell by cell;
//! - [`Instancing::Nodes`]: one core glTF node per instance, all sharing the mesh.
//!
//! A mesh used once is a plain node either way.

use std::collections::BTreeMap;

use crate::document::{Instances, Node};
use crate::Instancing;

use super::Builder;

/// The side of the square cells instances are grouped in (m): the renderer culls trees in
/// cells of the same size (`agview_mesh::trees`).
pub const CELL_M: f32 = 256.0;

/// One use of a mesh: its node's name and its transform (glTF axes).
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub name: String,
    pub translation: [f32; 3],
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
}

/// The nodes drawing `mesh` at each of `list`: one plain node for a single use, else
/// instanced as the options say. `label` names the cells' nodes ("hangar.obj").
pub(crate) fn place(b: &mut Builder, mesh: usize, label: &str, list: Vec<Placed>) -> Vec<usize> {
    let node = |p: Placed| Node {
        name: p.name,
        mesh: Some(mesh),
        translation: p.translation,
        rotation: p.rotation,
        scale: p.scale,
        ..Node::default()
    };
    if list.len() == 1 || b.opts.instancing == Instancing::Nodes {
        return list.into_iter().map(|p| b.node(node(p))).collect();
    }
    let mut cells: BTreeMap<(i64, i64), Instances> = BTreeMap::new();
    for p in list {
        let cell = |v: f32| (v / CELL_M).floor() as i64;
        // glTF's X east and Z south: the cell's column east, its row south.
        let c = cells
            .entry((cell(p.translation[0]), cell(p.translation[2])))
            .or_default();
        c.translation.push(p.translation);
        c.rotation.push(p.rotation);
        c.scale.push(p.scale);
    }
    cells
        .into_iter()
        .map(|((x, z), instances)| {
            b.node(Node {
                name: format!("{label} ×{} (cell {x} {z})", instances.translation.len()),
                mesh: Some(mesh),
                instances: Some(instances),
                ..Node::default()
            })
        })
        .collect()
}
