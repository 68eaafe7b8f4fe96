//! Culling by cells on the CPU: trees, tile pieces and facades, drawn straight from their
//! buffers, and the object instances before their culling passes (`cull.rs`). At upload
//! their records are grouped into *cells*, each a run of consecutive records with the box
//! they fill; each frame and view the cells, not the records, are tested against the
//! frustum, their reach (LOD) and the haze ([`visible`]), and the runs of cells that pass
//! are the draws (or, for objects, what the culling passes test). The work per frame
//! follows the cells (the ground the scene covers), not the records: a tile's 1.6 million
//! trees are some 30,000 cells, its 2.3 million tile triangles some 2,300.
//!
//! The tests are conservative (a meter of slack): a record left out is wholly outside the
//! view or past its reach, so the image is the one drawing everything gives.

use std::ops::Range;

use glam::Vec3;

/// Runs one group is drawn in per view at most: past it, the runs closest to each other
/// are joined (what is between them is drawn, and clipped), so the draws stay few on any
/// scene. Eight left a whole tile's frame drawing a third more tile triangles and a fifth
/// more trees than its cells showed; a draw more costs far less than those.
pub const MAX_RUNS: usize = 64;

/// Triangles a cell of triangles ([`of_triangles`]) holds at most.
const CELL_TRIANGLES: u32 = 1024;

/// Records (object instances) a cell of records ([`of_records`]) holds at most.
const CELL_RECORDS: u32 = 256;

/// The widest a cell grows across (m), unless its first triangle (or record) alone is
/// wider.
const CELL_SPAN_M: f32 = 2000.0;

/// A run of records (`first..first + count`: instances, or indices) and what they fill:
/// the box across (m), the height above the ground they reach (m), and the distance from
/// the eye past which none of them is drawn (m).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cell {
    pub first: u32,
    pub count: u32,
    pub lo: [f32; 2],
    pub hi: [f32; 2],
    pub top: f32,
    pub far: f32,
}

impl Cell {
    /// An empty cell starting at record `first`, drawn out to `far`.
    pub fn empty(first: u32, far: f32) -> Self {
        Cell {
            first,
            count: 0,
            lo: [f32::INFINITY; 2],
            hi: [f32::NEG_INFINITY; 2],
            top: 0.0,
            far,
        }
    }

    /// Widens the box to the square of half-side `reach` round `at`, up to `top`.
    pub fn cover(&mut self, at: [f32; 2], reach: f32, top: f32) {
        self.lo = [self.lo[0].min(at[0] - reach), self.lo[1].min(at[1] - reach)];
        self.hi = [self.hi[0].max(at[0] + reach), self.hi[1].max(at[1] + reach)];
        self.top = self.top.max(top);
    }
}

/// What one view is culled against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellView {
    /// The view's inward frustum planes (`camera::frustum_planes`).
    pub planes: [[f32; 4]; 6],
    /// Where reach and haze distances are measured from: the camera's LOD eye in every
    /// view.
    pub eye: Vec3,
    /// The lowest and highest ground, exaggerated (m).
    pub ground: (f32, f32),
    /// Past this distance the haze leaves nothing of what is behind it (m; infinite
    /// without haze).
    pub haze_end: f32,
}

/// The runs of records of `cells` (in record order) that `view` may show.
pub fn visible(cells: &[Cell], view: &CellView) -> Vec<Range<u32>> {
    let mut runs: Vec<Range<u32>> = Vec::new();
    let (g0, g1) = view.ground;
    for cell in cells {
        if cell.count == 0 {
            continue;
        }
        let lo = Vec3::new(cell.lo[0], cell.lo[1], g0.min(g1) - 1.0);
        let hi = Vec3::new(cell.hi[0], cell.hi[1], g0.max(g1) + cell.top + 1.0);
        let reach = cell.far.min(view.haze_end);
        let nearest = view.eye.clamp(lo, hi);
        if nearest.distance(view.eye) > reach * 1.001 + 1.0 || !box_in_view(view, lo, hi) {
            continue;
        }
        let run = cell.first..cell.first + cell.count;
        match runs.last_mut() {
            Some(last) if last.end == run.start => last.end = run.end,
            _ => runs.push(run),
        }
    }
    join_closest(runs, MAX_RUNS)
}

/// The cells of the triangles `range` of `indices` (three indices each): runs of at most
/// `CELL_TRIANGLES` triangles in drawing order (never reordered: what is drawn later may
/// cover what was drawn before), each starting out to `far` and widened by `cover` for
/// every vertex index of its triangles. Meshes are emitted feature by feature; a run ends
/// where its box would grow past `CELL_SPAN_M`, so that one lies on a small piece of ground
/// even where the features next in the document are far apart (a whole tile's towns and
/// villages). A range past `indices` gives cells of what is there.
pub fn of_triangles(
    indices: &[u32],
    range: Range<u32>,
    far: f32,
    cover: impl FnMut(&mut Cell, u32),
) -> Vec<Cell> {
    let end = range.end.min(indices.len() as u32);
    of_triangles_by(
        |k| indices.get(k as usize).copied(),
        range.start..end,
        far,
        cover,
    )
}

/// [`of_triangles`] of a mesh whose `k`th index is `index(k)` (a mesh held in parts); an
/// index that is not there covers nothing.
pub fn of_triangles_by(
    index: impl Fn(u32) -> Option<u32>,
    range: Range<u32>,
    far: f32,
    cover: impl FnMut(&mut Cell, u32),
) -> Vec<Cell> {
    of_steps(index, range, (3, 3 * CELL_TRIANGLES), far, cover)
}

/// The cells of the records `range` (object instances, in drawing order, never
/// reordered), by the rule of [`of_triangles`]: runs of at most `CELL_RECORDS` records,
/// each starting out to `far` and widened by `cover` for each of its records, ending where
/// the box would grow past `CELL_SPAN_M`.
pub fn of_records(range: Range<u32>, far: f32, cover: impl FnMut(&mut Cell, u32)) -> Vec<Cell> {
    of_steps(Some, range, (1, CELL_RECORDS), far, cover)
}

/// The cells of `range` taken `step` records at a time (a triangle's three indices, or
/// one record), at most `per_cell` records a cell; `index(k)` is what record `k` covers.
fn of_steps(
    index: impl Fn(u32) -> Option<u32>,
    range: Range<u32>,
    (step, per_cell): (u32, u32),
    far: f32,
    mut cover: impl FnMut(&mut Cell, u32),
) -> Vec<Cell> {
    let mut cells = Vec::new();
    let mut at = range.start;
    while at < range.end {
        let most = range.end.min(at.saturating_add(per_cell));
        let mut cell = Cell::empty(at, far);
        let mut end = at;
        while end < most {
            let next = most.min(end.saturating_add(step));
            let mut grown = cell;
            for i in (end..next).filter_map(&index) {
                cover(&mut grown, i);
            }
            let wide =
                grown.hi[0] - grown.lo[0] > CELL_SPAN_M || grown.hi[1] - grown.lo[1] > CELL_SPAN_M;
            if wide && end > at {
                break;
            }
            cell = grown;
            end = next;
        }
        cell.count = end - at;
        cells.push(cell);
        at = end;
    }
    cells
}

/// The runs of `cells` (of the records `all`) that `view` may show ([`visible`]), or `all`
/// whole when not `culled` (`AGVIEW_CULLING=off`).
pub fn visible_or_all(
    cells: &[Cell],
    all: Range<u32>,
    view: &CellView,
    culled: bool,
) -> Vec<Range<u32>> {
    if culled {
        visible(cells, view)
    } else {
        vec![all]
    }
}

/// The distance past which the haze of `visibility_m` (`fog()` in `common.wgsl`: a share
/// of `1 − exp(−d / visibility)` of the sky's colour) leaves less than half a step of an
/// 8-bit channel of what is behind it; infinite without haze.
pub fn haze_end(visibility_m: f32) -> f32 {
    if visibility_m > 0.0 && visibility_m.is_finite() {
        visibility_m * 512f32.ln()
    } else {
        f32::INFINITY
    }
}

/// Whether the box `lo..hi` meets every plane of the view's frustum (with a meter's slack).
fn box_in_view(view: &CellView, lo: Vec3, hi: Vec3) -> bool {
    view.planes.iter().all(|p| {
        let n = Vec3::new(p[0], p[1], p[2]);
        // The box's corner farthest along the plane's normal.
        let corner = Vec3::select(n.cmpge(Vec3::ZERO), hi, lo);
        n.dot(corner) + p[3] >= -1.0
    })
}

/// `runs` (in order, apart) joined across their smallest gaps until at most `max` are left.
fn join_closest(runs: Vec<Range<u32>>, max: usize) -> Vec<Range<u32>> {
    let max = max.max(1);
    if runs.len() <= max {
        return runs;
    }
    let mut gaps: Vec<u32> = runs.windows(2).map(|w| w[1].start - w[0].end).collect();
    gaps.sort_unstable();
    // Joining every gap up to this one leaves at most `max` runs.
    let limit = gaps[runs.len() - max - 1];
    let mut joined: Vec<Range<u32>> = Vec::with_capacity(max);
    for r in runs {
        match joined.last_mut() {
            Some(last) if r.start - last.end <= limit => last.end = r.end,
            _ => joined.push(r),
        }
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::camera::frustum_planes;
    use crate::camera::Camera;

    fn cell(first: u32, x: f32, far: f32) -> Cell {
        let mut c = Cell::empty(first, far);
        c.cover([x, 0.0], 5.0, 10.0);
        c.count = 10;
        c
    }

    fn view(camera: Camera) -> CellView {
        CellView {
            planes: frustum_planes(camera.view_proj(16.0 / 9.0)),
            eye: camera.lod_eye(),
            ground: (0.0, 0.0),
            haze_end: f32::INFINITY,
        }
    }

    #[test]
    fn cells_in_view_are_drawn_in_runs_and_the_rest_left_out() {
        // Looking east from the origin, 2 m up, level.
        let v = view(Camera::free(0.0, 0.0, 2.0, 90.0, 0.0));
        let cells = [
            cell(0, 100.0, 1e30),   // ahead
            cell(10, 200.0, 1e30),  // ahead: joins the run
            cell(20, -100.0, 1e30), // behind
            cell(30, 300.0, 250.0), // ahead but past its reach
            cell(40, 400.0, 1e30),  // ahead
        ];
        assert_eq!(visible(&cells, &v), vec![0..20, 40..50]);
        // A cell just behind the eye but reaching into the view is kept.
        let near = [cell(0, -4.0, 1e30)];
        assert_eq!(visible(&near, &v), vec![0..10]);
        // The haze ends the reach too.
        let hazy = CellView {
            haze_end: 150.0,
            ..v
        };
        assert_eq!(visible(&cells, &hazy), vec![0..10]);
    }

    #[test]
    fn runs_are_joined_across_their_smallest_gaps() {
        let runs = vec![0..1, 2..3, 10..11, 12..13, 30..31];
        assert_eq!(join_closest(runs.clone(), 5), runs);
        assert_eq!(join_closest(runs.clone(), 3), vec![0..3, 10..13, 30..31]);
        assert_eq!(join_closest(runs, 1), vec![0..31]);
    }

    #[test]
    fn the_haze_ends_where_it_hides_half_a_step() {
        let end = haze_end(40_000.0);
        assert!((1.0 - (-end / 40_000.0).exp()) * 255.0 > 254.5);
        assert_eq!(haze_end(0.0), f32::INFINITY);
    }
}
