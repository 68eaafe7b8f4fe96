//! Trees: each placed tree as crossed vertical quads (its forest tree's `quads`), for
//! `tree.wgsl`. The ground height is found in the shader, so trees follow exaggeration.

use bytemuck::{Pod, Zeroable};

use crate::art::{ForestArt, TreeArt};
use crate::scene::Scene;

/// One tree corner as uploaded (32 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct TreeVertex {
    pub base: [f32; 2],
    pub offset: [f32; 2],
    pub up: f32,
    pub st: [f32; 2],
    pub _pad: f32,
}

#[derive(Debug, Default)]
pub(crate) struct TreeMesh {
    pub vertices: Vec<TreeVertex>,
    pub indices: Vec<u32>,
    /// One draw per forest that has trees: `(forest, first index, index count)`, in forest
    /// order (0 is `Scene::forest`, k is `Scene::more_forests[k - 1]`).
    pub groups: Vec<(usize, u32, u32)>,
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

/// Builds the trees, grouped by forest. `forests[k]` is the art of forest k, `None` when it
/// is missing (or a tree names a forest past the list): those trees are placeholders.
pub(crate) fn build(scene: &Scene, forests: &[Option<&ForestArt>]) -> TreeMesh {
    let mut mesh = TreeMesh::default();
    // Trees bucketed by forest, each bucket in scene order.
    let mut buckets: Vec<Vec<usize>> = Vec::new();
    for (i, t) in scene.trees.iter().enumerate() {
        let k = t.forest as usize;
        if buckets.len() <= k {
            buckets.resize_with(k + 1, Vec::new);
        }
        buckets[k].push(i);
    }
    for (k, bucket) in buckets.iter().enumerate() {
        let first = mesh.indices.len() as u32;
        let forest = forests.get(k).copied().flatten();
        for &i in bucket {
            add_tree(&mut mesh, &scene.trees[i], forest);
        }
        let count = mesh.indices.len() as u32 - first;
        if count > 0 {
            mesh.groups.push((k, first, count));
        }
    }
    mesh
}

fn add_tree(mesh: &mut TreeMesh, t: &crate::scene::TreeInstance, forest: Option<&ForestArt>) {
    {
        if !(t.pos[0].is_finite() && t.pos[1].is_finite() && t.heading.is_finite()) {
            return;
        }
        let art = forest
            .and_then(|f| f.tree(t.layer, t.pick))
            .filter(|a| {
                a.width > 0.0 && a.height > 0.0 && a.width.is_finite() && a.height.is_finite()
            })
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
        } else if t.width > 0.0 && t.width.is_finite() {
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
        let [s1, t1, s2, t2] = art.uv;
        for q in 0..quads {
            let angle = (t.heading + q as f32 * 180.0 / quads as f32).to_radians();
            // The quad's horizontal axis: east at heading 0, turned clockwise.
            let axis = [angle.cos(), -angle.sin()];
            let (left, right) = (-offset * w, (1.0 - offset) * w);
            let start = mesh.vertices.len() as u32;
            for (along, up, s, tt) in [
                (left, 0.0, s1, t1),
                (right, 0.0, s2, t1),
                (right, h, s2, t2),
                (left, h, s1, t2),
            ] {
                mesh.vertices.push(TreeVertex {
                    base: t.pos,
                    offset: [axis[0] * along, axis[1] * along],
                    up,
                    st: [s, tt],
                    _pad: 0.0,
                });
            }
            mesh.indices.extend_from_slice(&[
                start,
                start + 1,
                start + 2,
                start,
                start + 2,
                start + 3,
            ]);
        }
        // Seen from straight above, the vertical quads are edge-on and vanish: a horizontal
        // quad across the crown (the picture's upper part, where the foliage is) keeps the
        // tree visible from above, and is itself edge-on from the side.
        let (sn, cs) = t.heading.to_radians().sin_cos();
        let r = 0.4 * w;
        let crown = t1 + CROWN_FROM * (t2 - t1);
        let start = mesh.vertices.len() as u32;
        for (x, y, s, tt) in [
            (-r, -r, s1, crown),
            (r, -r, s2, crown),
            (r, r, s2, t2),
            (-r, r, s1, t2),
        ] {
            mesh.vertices.push(TreeVertex {
                base: t.pos,
                offset: [x * cs + y * sn, -x * sn + y * cs],
                up: CROWN_AT * h,
                st: [s, tt],
                _pad: 0.0,
            });
        }
        mesh.indices
            .extend_from_slice(&[start, start + 1, start + 2, start, start + 2, start + 3]);
    }
}

/// Where the crown quad sits, as a fraction of the tree's height.
const CROWN_AT: f32 = 0.6;
/// The part of the picture mapped onto the crown quad: from this fraction of its height up.
const CROWN_FROM: f32 = 0.4;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::TreeInstance;

    #[test]
    fn trees_are_crossed_quads_of_their_art() {
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
        // Three crossed quads and the crown quad.
        assert_eq!(mesh.vertices.len(), 16);
        assert_eq!(mesh.indices.len(), 24);
        // Scaled to 8 m wide: 16 m tall; the trunk at a quarter of the width.
        let v = &mesh.vertices[..4];
        assert_eq!(v[2].up, 16.0);
        assert!((v[0].offset[0] + 2.0).abs() < 1e-5 && (v[1].offset[0] - 6.0).abs() < 1e-5);
        assert_eq!(v[2].st, [0.25, 1.0]);
        assert_eq!(v[0].base, [10.0, 20.0]);
    }

    /// From straight above a tree is not edge-on: its crown quad lies flat, at 60 % of its
    /// height, over the trunk, with the picture's foliage.
    #[test]
    fn a_tree_has_a_flat_crown_seen_from_above() {
        let scene = Scene {
            trees: vec![TreeInstance {
                pos: [3.0, 4.0],
                height: 10.0,
                heading: 30.0,
                ..TreeInstance::default()
            }],
            ..Scene::default()
        };
        let mesh = build(&scene, &[None]);
        let crown = &mesh.vertices[8..12];
        assert!(crown.iter().all(|v| v.up == 6.0 && v.base == [3.0, 4.0]));
        let area = {
            let p: Vec<[f32; 2]> = crown.iter().map(|v| v.offset).collect();
            (0..4)
                .map(|i| p[i][0] * p[(i + 1) % 4][1] - p[(i + 1) % 4][0] * p[i][1])
                .sum::<f32>()
                .abs()
                / 2.0
        };
        // 6 m wide placeholder: a 4.8 m square.
        assert!((area - 4.8 * 4.8).abs() < 1e-3, "{area}");
        assert_eq!(crown[0].st[1], 0.4);
        assert_eq!(crown[2].st[1], 1.0);
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
        let v = &mesh.vertices;
        assert_eq!(v[2].up, 15.0);
        assert!((v[1].offset[0] - 4.5).abs() < 1e-5, "{:?}", v[1].offset);
        // Two crossed quads and the crown per tree: 12 vertices.
        assert_eq!(v[12 + 2].up, 5.0);
        assert!((v[12 + 1].offset[0] - 20.0).abs() < 1e-5);
        // Not a number: the art's own height.
        assert_eq!(v[24 + 2].up, 10.0);
    }

    #[test]
    fn a_missing_forest_draws_placeholders() {
        let scene = Scene {
            trees: vec![TreeInstance::default()],
            ..Scene::default()
        };
        let mesh = build(&scene, &[None]);
        assert_eq!(mesh.vertices.len(), 12);
        assert_eq!(mesh.vertices[2].up, 10.0);
    }

    #[test]
    fn trees_draw_in_one_group_per_forest() {
        let tall = ForestArt {
            trees: vec![TreeArt {
                height: 20.0,
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
        // Forest 0: one placeholder; 1: two tall trees; 3 (past the list): a placeholder.
        let groups: Vec<(usize, u32)> = mesh.groups.iter().map(|g| (g.0, g.2)).collect();
        // Each tree: two crossed quads and the crown, 18 indices.
        assert_eq!(groups, vec![(0, 18), (1, 36), (3, 18)]);
        let first_tall = mesh.indices[18] as usize;
        assert_eq!(mesh.vertices[first_tall + 2].up, 20.0);
    }
}
