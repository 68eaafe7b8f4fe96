//! Trees: one instance record per placed tree, from which `tree.wgsl` builds the tree's
//! crossed vertical quads (its forest tree's `quads`) and a flat crown quad. A tile holds
//! millions of trees: a 48-byte record each, where four corners per quad were 450 bytes
//! (and most of a tile's upload time). The ground height is found in the shader, so trees
//! follow exaggeration.
//!
//! A forest's trees are sorted into square cells ([`CELL_M`], in Morton order) that each
//! frame and view culls (`cells.rs`).

use std::ops::Range;

use bytemuck::{Pod, Zeroable};

use super::cells::Cell;

use crate::art::{ArtSet, ForestArt, TreeArt};
use crate::scene::Scene;

use super::atlas;

/// Side of the square cells trees are culled in, meters.
pub(crate) const CELL_M: f32 = 256.0;

/// One placed tree as uploaded (48 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct TreeInstanceGpu {
    /// The trunk's x, y; the heading (radians clockwise from north) the first quad faces
    /// across; the number of crossed quads (1..=8).
    pub base_heading_quads: [f32; 4],
    /// Width and height (m); where the trunk stands across the width (0..=1); 1 when the
    /// shader keeps the samples inside the picture (it is a sub-rectangle of the texture:
    /// [`atlas::clamp_rect`]), else 0.
    pub size_offset: [f32; 4],
    /// The tree's picture [s1, t1, s2, t2], normalised, t up: where its quads' texture
    /// coordinates come from, and the atlas rectangle its samples stay in.
    pub uv: [f32; 4],
}

#[derive(Debug, Default)]
pub struct TreeMesh {
    pub instances: Vec<TreeInstanceGpu>,
    /// One group per forest that has trees, in forest order (0 is `Scene::forest`, k is
    /// `Scene::more_forests[k - 1]`).
    pub groups: Vec<TreeGroup>,
    /// The groups' cells, each group's in Morton order.
    pub cells: Vec<Cell>,
}

/// The trees of one forest: instances `first..first + count`, in cells `cells`, each drawn
/// with `6 × (max_quads + 1)` vertices (its quads, the crown, and nothing for the rest).
#[derive(Debug, Clone, PartialEq)]
pub struct TreeGroup {
    pub forest: usize,
    pub first: u32,
    pub count: u32,
    pub max_quads: u32,
    pub cells: Range<usize>,
    /// How far its trees are drawn (m): the forest's `LOD`, or [`default_far`].
    pub far: f32,
}

impl TreeGroup {
    /// Vertices per instance of this group's draw.
    pub fn vertices(&self) -> u32 {
        6 * (self.max_quads + 1)
    }
}

/// The tree drawn when the forest or its tree list is missing: the whole placeholder
/// image, 6 m wide and 10 m tall, two crossed quads.
pub(crate) const PLACEHOLDER_TREE: TreeArt = TreeArt {
    layer: 0,
    uv: [0.0, 0.0, 1.0, 1.0],
    width: 6.0,
    height: 10.0,
    offset: 0.5,
    quads: 2,
    percent: 100.0,
};

/// The alpha trees are tested at (`tree.wgsl`'s `Material.tint.a`; an export's mask).
pub const ALPHA_CUTOFF: f32 = 0.5;

/// How far a trunk sinks below the ground under it, so slopes show no gap (m).
pub const TRUNK_SINK_M: f32 = 0.3;
/// Where the crown quad sits, as a fraction of the tree's height, and the part of the
/// picture it shows: from this fraction of its height up.
pub const CROWN_AT: f32 = 0.6;
pub const CROWN_FROM: f32 = 0.4;
/// The crown quad's half side, as a fraction of the tree's width.
pub const CROWN_HALF: f32 = 0.4;

/// The art of each forest a scene's trees name (0: `ArtSet::forest`, k: `more_forests[k -
/// 1]`), `None` where it is missing or has no trees: what [`build`] takes.
pub fn forests(art: &ArtSet) -> Vec<Option<&ForestArt>> {
    let usable = |f: &&ForestArt| !f.missing && !f.trees.is_empty();
    std::iter::once(art.forest.as_ref())
        .chain(art.more_forests.iter().map(Some))
        .map(|f| f.filter(usable))
        .collect()
}

/// One corner of a tree's quads ([`quads`]): east, north and up of the trunk's foot for a
/// tree 1 m wide and 1 m tall at heading 0, and its texture coordinates (s, t up).
pub type TreeCorner = ([f32; 3], [f32; 2]);

/// The quads `tree.wgsl` draws for a tree record, on the CPU (the shader is the GPU's
/// copy of this): its crossed vertical quads, evenly turned over half a circle, then the
/// flat crown quad; each quad's corners counter-clockwise from its lower left, for a tree
/// of width and height 1 at heading 0 (scale east and north by the width, up by the
/// height, then turn clockwise by the heading). The foot sinks [`TRUNK_SINK_M`] below the
/// ground.
pub fn quads(t: &TreeInstanceGpu) -> Vec<[TreeCorner; 4]> {
    let n = (t.base_heading_quads[3] as u32).clamp(1, 8);
    let offset = t.size_offset[2];
    let [s1, t1, s2, t2] = t.uv;
    let corners = [(0.0f32, 0.0f32), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
    let mut out = Vec::with_capacity(n as usize + 1);
    for q in 0..n {
        let angle = q as f32 * std::f32::consts::PI / n as f32;
        let axis = [angle.cos(), -angle.sin()];
        out.push(corners.map(|(cx, cy)| {
            let along = -offset + cx;
            (
                [axis[0] * along, axis[1] * along, cy],
                [s1 + (s2 - s1) * cx, t1 + (t2 - t1) * cy],
            )
        }));
    }
    let crown = t1 + CROWN_FROM * (t2 - t1);
    out.push(corners.map(|(cx, cy)| {
        let r = CROWN_HALF;
        (
            [-r + 2.0 * r * cx, -r + 2.0 * r * cy, CROWN_AT],
            [s1 + (s2 - s1) * cx, crown + (t2 - crown) * cy],
        )
    }));
    out
}

/// Builds the trees, grouped by forest and sorted into cells. `forests[k]` is the art of
/// forest k, `None` when it is missing (or a tree names a forest past the list): those
/// trees are placeholders. A forest's trees are drawn out to its `LOD`, or without one to
/// [`default_far`] of its tallest tree.
pub fn build(scene: &Scene, forests: &[Option<&ForestArt>]) -> TreeMesh {
    let mut mesh = TreeMesh::default();
    let finite: Vec<usize> = (0..scene.trees.len())
        .filter(|&i| is_finite(&scene.trees[i]))
        .collect();
    if finite.is_empty() {
        return mesh;
    }
    // Cells counted from the trees' south-west corner; sorted by (forest, cell in Morton
    // order, scene order): the same order on every run.
    let mut origin = [f32::INFINITY; 2];
    for &i in &finite {
        let p = scene.trees[i].pos;
        origin = [origin[0].min(p[0]), origin[1].min(p[1])];
    }
    let cell_of = |p: [f32; 2]| -> u64 {
        let c = |v: f32, o: f32| (((v - o) / CELL_M) as u64).min((1 << 20) - 1);
        morton(c(p[0], origin[0]), c(p[1], origin[1]))
    };
    let mut order: Vec<(u64, u32)> = finite
        .iter()
        .map(|&i| {
            let t = &scene.trees[i];
            let forest = u64::from(t.forest).min((1 << 23) - 1);
            ((forest << 40) | cell_of(t.pos), i as u32)
        })
        .collect();
    order.sort_unstable();

    mesh.instances.reserve_exact(order.len());
    let mut current_key = None;
    for &(key, i) in &order {
        let t = &scene.trees[i as usize];
        let k = t.forest as usize;
        let g = tree_instance(t, forests.get(k).copied().flatten());
        let at = mesh.instances.len() as u32;
        if mesh.groups.last().is_none_or(|last| last.forest != k) {
            mesh.groups.push(TreeGroup {
                forest: k,
                first: at,
                count: 0,
                max_quads: 1,
                cells: mesh.cells.len()..mesh.cells.len(),
                far: 0.0,
            });
        }
        if current_key != Some(key) {
            current_key = Some(key);
            mesh.cells.push(Cell::empty(at, 0.0));
        }
        let group = mesh.groups.last_mut().expect("pushed above");
        group.count += 1;
        group.max_quads = group.max_quads.max(g.base_heading_quads[3] as u32);
        group.cells.end = mesh.cells.len();
        let cell = mesh.cells.last_mut().expect("pushed above");
        cell.count += 1;
        // A tree reaches its width from its trunk at most.
        let [x, y, _, _] = g.base_heading_quads;
        let [w, h, _, _] = g.size_offset;
        cell.cover([x, y], w, h);
        mesh.instances.push(g);
    }
    // How far each forest's trees are drawn.
    for g in &mut mesh.groups {
        let cells = &mut mesh.cells[g.cells.clone()];
        let tallest = cells.iter().map(|c| c.top).fold(0.0, f32::max);
        g.far = forests
            .get(g.forest)
            .copied()
            .flatten()
            .and_then(|f| f.lod)
            .filter(|l| *l > 0.0)
            .unwrap_or_else(|| default_far(tallest));
        cells.iter_mut().for_each(|c| c.far = g.far);
    }
    mesh
}

/// How far the trees of a forest without `LOD` are drawn, from its tallest tree's height
/// (m): until that tree is about a pixel tall in a 1080-line, 60° view (1,000 heights: a
/// 20 m tree to 20 km), never under 2 km. X-Plane has set forests' distances from the
/// user's settings since version 9 and publishes no figure; see `docs/spec-decisions.md`.
pub(crate) fn default_far(tallest: f32) -> f32 {
    let far = (tallest * 1000.0).max(2000.0);
    if far.is_finite() {
        far
    } else {
        super::objects::INFINITE_LOD
    }
}

/// `x` and `y` (20 bits each) interleaved: nearby cells are mostly near in the order.
fn morton(x: u64, y: u64) -> u64 {
    let spread = |mut v: u64| {
        v &= 0xf_ffff;
        v = (v | (v << 16)) & 0x0000_ffff_0000_ffff;
        v = (v | (v << 8)) & 0x00ff_00ff_00ff_00ff;
        v = (v | (v << 4)) & 0x0f0f_0f0f_0f0f_0f0f;
        v = (v | (v << 2)) & 0x3333_3333_3333_3333;
        v = (v | (v << 1)) & 0x5555_5555_5555_5555;
        v
    };
    spread(x) | (spread(y) << 1)
}

fn is_finite(t: &crate::scene::TreeInstance) -> bool {
    t.pos[0].is_finite() && t.pos[1].is_finite() && t.heading.is_finite()
}

/// A tree's record: its art (or the placeholder), its size and its picture.
fn tree_instance(t: &crate::scene::TreeInstance, forest: Option<&ForestArt>) -> TreeInstanceGpu {
    let art = forest
        .and_then(|f| f.tree(t.layer, t.pick))
        .filter(|a| a.width > 0.0 && a.height > 0.0 && a.width.is_finite() && a.height.is_finite())
        .unwrap_or(&PLACEHOLDER_TREE);
    // A tree's own width (an explicit `TREE` width) and height (seeded in its `TREE`'s
    // range) both count; with one of them, the other follows the art's aspect; with
    // neither, the art's own size.
    let given = |v: f32| v > 0.0 && v.is_finite();
    let (w, h) = if given(t.height) && given(t.width) {
        (t.width.min(500.0), t.height.min(500.0))
    } else if given(t.height) {
        let h = t.height.min(500.0);
        (art.width * h / art.height, h)
    } else if given(t.width) {
        (
            t.width.min(500.0),
            art.height * t.width.min(500.0) / art.width,
        )
    } else {
        (art.width, art.height)
    };
    let quads = art.quads.clamp(1, 8);
    let offset = if (0.0..=1.0).contains(&art.offset) {
        art.offset
    } else {
        0.5
    };
    TreeInstanceGpu {
        base_heading_quads: [t.pos[0], t.pos[1], t.heading.to_radians(), quads as f32],
        size_offset: [w, h, offset, clamp_flag(art.uv)],
        uv: art.uv,
    }
}

/// [`TreeInstanceGpu::size_offset`]'s last number.
fn clamp_flag(uv: [f32; 4]) -> f32 {
    if atlas::clamp_rect(uv).is_some() {
        1.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::TreeInstance;

    /// `quads` is `tree.wgsl`'s geometry: crossed quads turned over half a circle with the
    /// trunk at its offset, then the crown quad at 60% of the height showing the picture's
    /// top 60%.
    #[test]
    fn a_trees_quads_are_the_shaders() {
        let t = TreeInstanceGpu {
            base_heading_quads: [0.0, 0.0, 0.0, 2.0],
            size_offset: [1.0, 1.0, 0.25, 0.0],
            uv: [0.0, 0.5, 0.5, 1.0],
        };
        let q = quads(&t);
        assert_eq!(q.len(), 3);
        // Quad 0 runs east, from 0.25 west of the trunk to 0.75 east of it.
        assert_eq!(q[0][0], ([-0.25, 0.0, 0.0], [0.0, 0.5]));
        assert_eq!(q[0][2], ([0.75, 0.0, 1.0], [0.5, 1.0]));
        // Quad 1 is turned a quarter clockwise: it runs south.
        let [x, y, _] = q[1][1].0;
        assert!(x.abs() < 1e-6 && (y + 0.75).abs() < 1e-6, "{x} {y}");
        // The crown: flat at 0.6, 0.8 across, the picture from 40% of its height.
        assert!(q[2].iter().all(|c| c.0[2] == CROWN_AT));
        assert_eq!(q[2][0].0, [-0.4, -0.4, 0.6]);
        assert!((q[2][0].1[1] - 0.7).abs() < 1e-6);
    }

    #[test]
    fn a_tree_is_one_record_of_its_art() {
        let forest = ForestArt {
            trees: vec![TreeArt {
                layer: 1,
                uv: [0.0, 0.5, 0.25, 1.0],
                width: 4.0,
                height: 8.0,
                offset: 0.25,
                quads: 3,
                percent: 100.0,
            }],
            ..ForestArt::default()
        };
        let scene = Scene {
            trees: vec![
                TreeInstance {
                    pos: [10.0, 20.0],
                    width: 8.0,
                    heading: 90.0,
                    layer: 1,
                    ..TreeInstance::default()
                },
                TreeInstance {
                    pos: [f32::NAN, 0.0],
                    ..TreeInstance::default()
                },
            ],
            ..Scene::default()
        };
        let mesh = build(&scene, &[Some(&forest)]);
        // The tree that is not a number is left out.
        assert_eq!(mesh.instances.len(), 1);
        let t = mesh.instances[0];
        // Three crossed quads, turned to its heading; scaled to 8 m wide: 16 m tall, the
        // trunk at a quarter of the width.
        assert_eq!(t.base_heading_quads, [10.0, 20.0, 90f32.to_radians(), 3.0]);
        assert_eq!(t.size_offset, [8.0, 16.0, 0.25, 1.0]);
        // Its picture, a sub-rectangle of the texture its samples stay in.
        assert_eq!(t.uv, [0.0, 0.5, 0.25, 1.0]);
        // Its draw: three quads and the crown.
        assert_eq!(mesh.groups[0].vertices(), 24);
    }

    #[test]
    fn a_tree_height_scales_the_tree_keeping_its_aspect() {
        let scene = Scene {
            trees: vec![
                TreeInstance {
                    height: 15.0,
                    ..TreeInstance::default()
                },
                // A width and a height: both count.
                TreeInstance {
                    height: 5.0,
                    width: 40.0,
                    ..TreeInstance::default()
                },
                TreeInstance {
                    height: f32::NAN,
                    ..TreeInstance::default()
                },
            ],
            ..Scene::default()
        };
        // The placeholder is 6 m wide and 10 m tall, its trunk in the middle.
        let mesh = build(&scene, &[None]);
        let size: Vec<[f32; 2]> = mesh
            .instances
            .iter()
            .map(|t| [t.size_offset[0], t.size_offset[1]])
            .collect();
        // Not a number: the art's own size.
        assert_eq!(size, vec![[9.0, 15.0], [40.0, 5.0], [6.0, 10.0]]);
    }

    /// A picture inside the texture keeps its samples in it; one reaching past the edge
    /// wraps, as the sampler repeats, and is not clamped.
    #[test]
    fn only_a_picture_inside_the_texture_is_clamped() {
        assert_eq!(clamp_flag([0.25, 0.0, 0.5, 1.0]), 1.0);
        assert_eq!(clamp_flag([0.5, 1.0, 0.25, 0.0]), 1.0);
        assert_eq!(clamp_flag([0.75, 0.0, 1.25, 1.0]), 0.0);
    }

    #[test]
    fn a_missing_forest_draws_placeholders() {
        let scene = Scene {
            trees: vec![TreeInstance::default()],
            ..Scene::default()
        };
        let mesh = build(&scene, &[None]);
        let t = mesh.instances[0];
        assert_eq!(t.base_heading_quads[3], 2.0);
        assert_eq!(t.size_offset, [6.0, 10.0, 0.5, 1.0]);
        assert_eq!(t.uv, [0.0, 0.0, 1.0, 1.0]);
    }

    #[test]
    fn trees_draw_in_one_group_per_forest() {
        let tall = ForestArt {
            trees: vec![TreeArt {
                height: 20.0,
                quads: 4,
                ..PLACEHOLDER_TREE
            }],
            ..ForestArt::default()
        };
        let scene = Scene {
            trees: [1, 0, 1, 3]
                .iter()
                .map(|&forest| TreeInstance {
                    forest,
                    ..TreeInstance::default()
                })
                .collect(),
            ..Scene::default()
        };
        let mesh = build(&scene, &[None, Some(&tall)]);
        // Forest 0: one placeholder; 1: two tall trees of four quads; 3 (past the list): a
        // placeholder.
        let groups: Vec<(usize, u32, u32, u32)> = mesh
            .groups
            .iter()
            .map(|g| (g.forest, g.first, g.count, g.max_quads))
            .collect();
        assert_eq!(groups, vec![(0, 0, 1, 2), (1, 1, 2, 4), (3, 3, 1, 2)]);
        assert_eq!(mesh.instances[1].size_offset[1], 20.0);
        assert_eq!(mesh.instances[3].size_offset[1], 10.0);
    }
}
