//! Culling of object instances by cells (`cells.rs`), before the culling passes or the CPU
//! path's loop (`cull.rs`) test them one by one: each mesh's instances are cut into cells
//! at upload, and each frame and view only the runs of instances whose cells the view may
//! show are tested.

use std::ops::Range;

use super::cells::{self, Cell, CellView};
use super::cull::{sphere_of, SegmentGpu};
use super::objects::ObjectSet;

/// The cells of a scene's object instances (`cells.rs`), batch by batch: runs of each
/// mesh's instances in their order ([`cells::of_records`]), each with a box that holds its
/// instances' bounding spheres as the cull test places and turns them (with a meter's
/// slack), out to the mesh's farthest LOD. Each frame and view, the runs of instances
/// whose cells the view may show are kept ([`ObjectCells::runs`]) and only those go
/// through the per-instance test, which decides as it did: a cell left out holds no
/// instance the test would submit, bar those past the haze.
#[derive(Debug, Clone, Default)]
pub(crate) struct ObjectCells {
    cells: Vec<Cell>,
    /// Each batch's cells' range in `cells`.
    of_batch: Vec<Range<usize>>,
    /// How far below its ground any instance's sphere reaches (m).
    below: f32,
}

impl ObjectCells {
    /// The cells of `set`'s instances, reaching as far as each mesh's farthest LOD with a
    /// fade band of `band` (the widest a frame takes).
    pub(crate) fn of(set: &ObjectSet, band: f32) -> Self {
        let (list, ranges) = set.instances();
        let mut out = ObjectCells::default();
        // Sizes kept finite (so that the box tests never meet infinities), huge where the
        // bounds give none: such a cell is never left out.
        let sane = |v: f32, none: f32| {
            if v.is_finite() {
                v.clamp(-HUGE, HUGE)
            } else {
                none
            }
        };
        for (batch, range) in set.batches.iter().zip(ranges) {
            let sphere = sphere_of(batch);
            // The cull test's radius (`test_instance`) and a meter's slack.
            let r = sphere[3] * 1.001 + 0.01 + 1.0;
            let reach = sane(sphere[0].hypot(sphere[2]) + r, HUGE);
            let (top, bottom) = (sane(sphere[1] + r, HUGE), sane(sphere[1] - r, -HUGE));
            let far = batch
                .lods
                .iter()
                .map(|l| lod_reach(l.far, band))
                .fold(0.0, f32::max);
            let below = &mut out.below;
            let start = out.cells.len();
            out.cells
                .extend(cells::of_records(range.clone(), far, |cell, i| {
                    let Some(inst) = list.get(i as usize) else {
                        return;
                    };
                    // Raised (or lowered) by its offset where its placement adds one.
                    let lift = if (inst.ground_mode[1] as u32) & 3 >= 2 {
                        inst.pos_heading[3]
                    } else {
                        0.0
                    };
                    *below = below.max(-(bottom + lift)).min(HUGE);
                    // (An instance this far, or not finite, is never drawn: it only must
                    // not make the box's sums infinite.)
                    let at =
                        [inst.pos_heading[0], inst.pos_heading[1]].map(|v| v.clamp(-HUGE, HUGE));
                    cell.cover(at, reach, (top + lift).clamp(-HUGE, HUGE));
                }));
            out.of_batch.push(start..out.cells.len());
        }
        out
    }

    /// Batch `b`'s cells.
    pub(crate) fn of_batch(&self, b: usize) -> &[Cell] {
        self.of_batch
            .get(b)
            .and_then(|r| self.cells.get(r.clone()))
            .unwrap_or(&[])
    }

    /// For each segment (of `segments`, with its owner), the runs of its batch's instances
    /// (`ranges`) whose cells `view` may show within the segment's LOD reach (with the fade
    /// band `band`; a first LOD's within its mesh's farthest, since the instances in view
    /// are counted there), or all of them when not `culled`.
    pub(crate) fn runs(
        &self,
        ranges: &[Range<u32>],
        (segments, owners): (&[SegmentGpu], &[(usize, usize)]),
        view: &CellView,
        band: f32,
        culled: bool,
    ) -> Vec<Vec<Range<u32>>> {
        let (g0, g1) = view.ground;
        let view = CellView {
            ground: (g0.min(g1) - self.below, g0.max(g1)),
            ..*view
        };
        segments
            .iter()
            .zip(owners)
            .map(|(seg, &(b, _))| {
                let reach = if seg.rank == 0 {
                    f32::INFINITY
                } else {
                    lod_reach(seg.far, band)
                };
                let within = CellView {
                    haze_end: view.haze_end.min(reach),
                    ..view
                };
                let all = ranges.get(b).cloned().unwrap_or(0..0);
                cells::visible_or_all(self.of_batch(b), all, &within, culled)
            })
            .collect()
    }
}

/// A size that stands for "unbounded" in a cell's box: sums of a few stay finite.
const HUGE: f32 = 1e30;

/// How far from the eye an instance may stand and still be submitted for a LOD ending at
/// `far` with the fade band `band` (the slack of `cull::test_instance` included).
fn lod_reach(far: f32, band: f32) -> f32 {
    far * (1.0 + 0.5 * band.max(0.0)) * 1.002 + 1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camera::frustum_planes;
    use crate::cull::{kept, segments, test_instance, CullView};
    use crate::objects::InstanceGpu;

    #[test]
    fn cells_leave_out_only_instances_the_test_would_not_submit() {
        use crate::bench::{bench_camera, synthetic_city, BenchCamera, BenchOptions};
        // 3,000 houses of three meshes.
        let opts = BenchOptions {
            blocks: 64,
            tiles_per_side: 1,
            objects: 3000,
            meshes: 3,
            ..BenchOptions::default()
        };
        let (mut scene, art, terrain) = synthetic_city(&opts);
        // The city's houses in runs of 50 in three places: ahead of the eye at the origin
        // (looking north), 5 km behind it, and 50 km east, past every LOD.
        let houses = scene.objects.clone();
        let places = [[0.0, 300.0], [0.0, -5000.0], [50_000.0, 0.0]];
        scene.objects = houses
            .into_iter()
            .enumerate()
            .map(|(k, mut o)| {
                let at = places[(k / 50) % 3];
                let (dx, dy) = ((k % 10) as f32 * 20.0, (k / 10 % 5) as f32 * 20.0);
                o.pos = [at[0] + dx, at[1] + dy];
                o.ground_pt = o.pos;
                o
            })
            .collect();
        let set = ObjectSet::build(&scene, &art, &terrain);
        let (list, ranges) = set.instances();
        let (segs, owners) = segments(&set.batches, ranges, 0..list.len() as u32);
        let cells = ObjectCells::of(&set, 0.1);
        let every: Vec<Vec<Range<u32>>> = segs
            .iter()
            .map(|s| std::iter::once(s.first..s.first + s.count).collect())
            .collect();
        let slots: usize = segs.iter().map(|s| s.count as usize).sum();
        let far_away = crate::Camera::free(1e5, 1e5, 2.0, 45.0, 0.0);
        let cameras = [
            crate::Camera::free(0.0, 0.0, 2.0, 0.0, 0.0),
            bench_camera(BenchCamera::Orbit, &scene, &terrain),
            far_away,
        ];
        for (n, camera) in cameras.iter().enumerate() {
            let view_proj = camera.view_proj(16.0 / 9.0);
            let cull = CullView {
                view_proj,
                lod_eye: camera.lod_eye(),
                exaggeration: 1.0,
                band: 0.1,
                density: 6,
            };
            let uniform = cull.uniform(0, 0);
            let view = CellView {
                planes: frustum_planes(view_proj),
                eye: camera.lod_eye(),
                ground: terrain.height_range(),
                haze_end: f32::INFINITY,
            };
            let runs = cells.runs(ranges, (&segs, &owners), &view, 0.1, true);
            let held: usize = segs
                .iter()
                .zip(&runs)
                .map(|(s, r)| kept(list, s, r).map(<[_]>::len).sum::<usize>())
                .sum();
            match n {
                // Only the houses ahead.
                0 => assert!(held > 0 && held < slots / 2, "{held} of {slots} kept"),
                // 100 km away, past every LOD: nothing.
                2 => assert_eq!(held, 0),
                _ => assert!(held <= slots),
            }
            // What is submitted is what testing every instance submits, in the same order.
            for (k, seg) in segs.iter().enumerate() {
                let submitted = |runs: &[Range<u32>]| -> Vec<*const InstanceGpu> {
                    kept(list, seg, runs)
                        .flatten()
                        .filter(|i| test_instance(i, seg, &uniform).1)
                        .map(|i| i as *const InstanceGpu)
                        .collect()
                };
                assert_eq!(
                    submitted(runs[k].as_slice()),
                    submitted(every[k].as_slice()),
                    "camera {n}"
                );
            }
            // Not culled (`AGVIEW_CULLING=off`): every instance.
            assert_eq!(
                cells.runs(ranges, (&segs, &owners), &view, 0.1, false),
                every
            );
        }
    }
}
