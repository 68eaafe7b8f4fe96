//! Meshes used more than once are instanced:
//!
//! - [`Instancing::Extension`]: `EXT_mesh_gpu_instancing`, the instances grouped into square
//!   cells of [`CELL_M`] on the ground, one node per (cell, mesh), as the extension advises
//!   so that a viewer can cull cell by cell. A mesh spread wider than [`MAX_CELLS`] cells
//!   takes cells twice, four times… as large ([`cell_side`]): a tile-sized scene in 256 m
//!   cells would be hundreds of thousands of nodes of a few instances each, whose JSON
//!   alone takes longer to write and to read than the meshes;
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

/// The most cells a mesh's instances span along either axis before its cells grow.
pub const MAX_CELLS: f32 = 64.0;

/// The side of the cells `translations` are grouped in: [`CELL_M`], doubled until their
/// extent along X and Z spans at most [`MAX_CELLS`] cells.
pub fn cell_side(translations: impl Iterator<Item = [f32; 3]>) -> f32 {
    let mut lo = [f32::INFINITY; 2];
    let mut hi = [f32::NEG_INFINITY; 2];
    for t in translations {
        for (k, v) in [t[0], t[2]].into_iter().enumerate() {
            if v.is_finite() {
                lo[k] = lo[k].min(v);
                hi[k] = hi[k].max(v);
            }
        }
    }
    let extent = (hi[0] - lo[0]).max(hi[1] - lo[1]);
    let mut side = CELL_M;
    // 2^20 × 256 m is far beyond any extent that a finite f32 holds in metres of one scene.
    for _ in 0..20 {
        if extent.is_nan() || extent <= side * MAX_CELLS {
            break;
        }
        side *= 2.0;
    }
    side
}

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
    let side = cell_side(list.iter().map(|p| p.translation));
    let mut cells: BTreeMap<(i64, i64), Instances> = BTreeMap::new();
    for p in list {
        let cell = |v: f32| (v / side).floor() as i64;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_grow_only_for_meshes_spread_wider_than_the_most_cells() {
        let at = |x: f32, z: f32| [x, 0.0, z];
        let side = |pts: &[[f32; 3]]| cell_side(pts.iter().copied());
        assert_eq!(side(&[]), CELL_M);
        assert_eq!(side(&[at(0.0, 0.0), at(5_000.0, -16_000.0)]), CELL_M);
        // A tile: 100 km across takes 2,048 m cells (49 of them), not 391 of 256 m.
        assert_eq!(side(&[at(0.0, 0.0), at(100_000.0, 60_000.0)]), 2_048.0);
        assert_eq!(side(&[at(f32::NAN, 0.0), at(f32::INFINITY, 1.0)]), CELL_M);
        assert!(side(&[at(-f32::MAX, 0.0), at(f32::MAX, 0.0)]).is_finite());
    }
}
