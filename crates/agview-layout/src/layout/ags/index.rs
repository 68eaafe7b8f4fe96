//! A uniform grid over the polygon's edges, so that the questions the string layout asks
//! many times (is this point inside, does this tile cross a contour, is this stop point
//! clear of the road) cost a few edges each instead of all of them.
//!
//! Edges are bucketed by the grid cells their bounding boxes touch (`cells`) and by the
//! finer horizontal bands they span (`rows`, for the even-odd point test and the fill's
//! scanlines, which must see each edge once). Cell counts are bounded (at most [`MAX_CELLS_PER_AXIS`] per axis), so a huge or
//! degenerate polygon costs more per query but never allocates without bound.

use crate::layout::geom::{self, Frame, P2};

/// Upper bound on grid cells along one axis.
pub(crate) const MAX_CELLS_PER_AXIS: usize = 64;

/// One contour edge `a → b`, its bounding box, the contour (position in the cleaned list)
/// and the index of `a` in it.
#[derive(Debug, Clone, Copy)]
pub struct Edge {
    pub a: P2,
    pub b: P2,
    pub lo: P2,
    pub hi: P2,
    pub ring: u32,
    pub k: u32,
}

/// Compressed lists: the items of bucket `i` are `items[start[i]..start[i + 1]]`.
#[derive(Debug, Clone, Default)]
pub struct Buckets {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Buckets {
    /// Builds `n` buckets from the `(bucket, item)` pairs `each` pushes (about `hint` of
    /// them), by a counting sort; items keep their order within a bucket.
    pub fn build(n: usize, hint: usize, each: impl FnOnce(&mut Vec<(u32, u32)>)) -> Buckets {
        let mut pairs = Vec::with_capacity(hint);
        each(&mut pairs);
        let mut start = vec![0u32; n + 1];
        for &(b, _) in &pairs {
            start[b as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut items = vec![0u32; pairs.len()];
        for &(b, item) in &pairs {
            let at = &mut start[b as usize];
            items[*at as usize] = item;
            *at += 1;
        }
        // Each start now holds its bucket's end, which is the next bucket's start.
        start.rotate_right(1);
        start[0] = 0;
        Buckets { start, items }
    }

    /// Where bucket `i` lies in the items (for data kept beside them).
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.start[i] as usize..self.start[i + 1] as usize
    }

    pub fn get(&self, i: usize) -> &[u32] {
        &self.items[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// A regular grid over a bounding box: maps points to cells.
#[derive(Debug, Clone, Copy)]
pub struct Grid {
    pub min: P2,
    pub inv: [f32; 2],
    pub nx: usize,
    pub ny: usize,
}

impl Grid {
    /// A grid over `[lo, hi]` with about `target` cells (each axis within 1..=64).
    pub fn new(lo: P2, hi: P2, target: usize) -> Grid {
        let w = (hi[0] - lo[0]).max(1e-3);
        let h = (hi[1] - lo[1]).max(1e-3);
        let cell = (w * h / target.max(1) as f32).sqrt().max(1e-3);
        let nx = ((w / cell).ceil() as usize).clamp(1, MAX_CELLS_PER_AXIS);
        let ny = ((h / cell).ceil() as usize).clamp(1, MAX_CELLS_PER_AXIS);
        Grid {
            min: lo,
            inv: [nx as f32 / w, ny as f32 / h],
            nx,
            ny,
        }
    }

    pub fn cells(&self) -> usize {
        self.nx * self.ny
    }

    fn cx(&self, x: f32) -> usize {
        slot((x - self.min[0]) * self.inv[0], self.nx)
    }

    fn cy(&self, y: f32) -> usize {
        slot((y - self.min[1]) * self.inv[1], self.ny)
    }

    /// Calls `f` with every cell the box `[lo, hi]` touches.
    pub(crate) fn for_box(&self, lo: P2, hi: P2, mut f: impl FnMut(usize)) {
        let (x0, x1) = (self.cx(lo[0]), self.cx(hi[0]));
        let (y0, y1) = (self.cy(lo[1]), self.cy(hi[1]));
        for y in y0..=y1 {
            for x in x0..=x1 {
                f(y * self.nx + x);
            }
        }
    }
}

/// The slot `0..n` (n ≥ 1) that the scaled coordinate `v` falls in, clamped. `as i32`
/// truncates and saturates (NaN to 0), which is floor for the values kept, and is much
/// cheaper than a conversion to `usize`.
fn slot(v: f32, n: usize) -> usize {
    ((v as i32).max(0) as usize).min(n - 1)
}

/// Bounding box of points.
pub(crate) fn bbox(pts: impl IntoIterator<Item = P2>) -> (P2, P2) {
    let mut lo = [f32::INFINITY; 2];
    let mut hi = [f32::NEG_INFINITY; 2];
    for p in pts {
        lo = [lo[0].min(p[0]), lo[1].min(p[1])];
        hi = [hi[0].max(p[0]), hi[1].max(p[1])];
    }
    (lo, hi)
}

/// Whether `p` lies strictly inside the convex counter-clockwise quad `q`.
#[cfg(test)]
pub(crate) fn in_quad(q: &[P2; 4], p: P2) -> bool {
    (0..4).all(|i| geom::cross(geom::sub(q[(i + 1) % 4], q[i]), geom::sub(p, q[i])) > 0.0)
}

/// Horizontal bands over `[min, min + n / inv]`.
#[derive(Debug, Clone, Copy)]
pub struct Bands {
    pub min: f32,
    pub inv: f32,
    pub n: usize,
}

impl Bands {
    pub fn of(&self, y: f32) -> usize {
        slot((y - self.min) * self.inv, self.n)
    }
}

/// The polygon's edges in a grid.
#[derive(Debug, Clone)]
pub struct PolyIndex {
    pub grid: Grid,
    edges: Vec<Edge>,
    /// Vertex count of each contour, to tell neighbouring edges apart.
    ring_len: Vec<u32>,
    cells: Buckets,
    /// The bounding box `[x0, y0, x1, y1]` of each item of `cells`, beside it, so that a query
    /// rejects far edges without touching them.
    cell_boxes: Vec<[f32; 4]>,
    /// Finer horizontal bands than the grid's rows, for the even-odd test.
    pub bands: Bands,
    rows: Buckets,
}

impl PolyIndex {
    /// Indexes the contours (each a closed ring of at least 3 points; shorter ones are left
    /// out).
    pub fn new(rings: &[&[P2]]) -> PolyIndex {
        let mut edges = Vec::with_capacity(rings.iter().map(|r| r.len()).sum());
        let mut ring_len = Vec::with_capacity(rings.len());
        for (ri, ring) in rings.iter().enumerate() {
            let n = ring.len();
            ring_len.push(n as u32);
            if n < 3 {
                continue;
            }
            for k in 0..n {
                let (a, b) = (ring[k], ring[(k + 1) % n]);
                let (lo, hi) = bbox([a, b]);
                edges.push(Edge {
                    a,
                    b,
                    lo,
                    hi,
                    ring: ri as u32,
                    k: k as u32,
                });
            }
        }
        let (lo, hi) = bbox(edges.iter().map(|e| e.a));
        let (lo, hi) = if edges.is_empty() {
            ([0.0; 2], [1.0; 2])
        } else {
            (lo, hi)
        };
        let grid = Grid::new(lo, hi, (edges.len() / 2).clamp(16, 4096));
        let cells = Buckets::build(grid.cells(), 2 * edges.len(), |pairs| {
            for (i, e) in edges.iter().enumerate() {
                grid.for_box(e.lo, e.hi, |c| pairs.push((c as u32, i as u32)));
            }
        });
        let cell_boxes = cells
            .items
            .iter()
            .map(|&i| {
                let e = &edges[i as usize];
                [e.lo[0], e.lo[1], e.hi[0], e.hi[1]]
            })
            .collect();
        // Bands about four edges tall, fewer when tall edges would make the lists large.
        let height = (hi[1] - lo[1]).max(1e-3);
        let mut n = (edges.len() / 4).clamp(8, 512);
        let bands = loop {
            let b = Bands {
                min: lo[1],
                inv: n as f32 / height,
                n,
            };
            let items: usize = edges
                .iter()
                .map(|e| b.of(e.hi[1]) - b.of(e.lo[1]) + 1)
                .sum();
            if items <= 8 * edges.len() + 4096 || n <= 8 {
                break b;
            }
            n /= 2;
        };
        let rows = Buckets::build(bands.n, 3 * edges.len(), |pairs| {
            for (i, e) in edges.iter().enumerate() {
                for y in bands.of(e.lo[1])..=bands.of(e.hi[1]) {
                    pairs.push((y as u32, i as u32));
                }
            }
        });
        PolyIndex {
            grid,
            edges,
            ring_len,
            cell_boxes,
            cells,
            bands,
            rows,
        }
    }

    /// Even-odd point in polygon over every contour (holes count).
    pub fn contains(&self, p: P2) -> bool {
        let mut inside = false;
        for &i in self.rows.get(self.bands.of(p[1])) {
            let e = &self.edges[i as usize];
            let (a, b) = (e.a, e.b);
            if (a[1] > p[1]) != (b[1] > p[1]) {
                let x = a[0] + (p[1] - a[1]) / (b[1] - a[1]) * (b[0] - a[0]);
                if p[0] < x {
                    inside = !inside;
                }
            }
        }
        inside
    }

    /// Where the horizontal line at `y` crosses the contours, sorted: `x` is inside (by
    /// [`PolyIndex::contains`]) when it lies in some `[out[2k], out[2k + 1])`.
    pub(crate) fn crossings(&self, y: f32, out: &mut Vec<f32>) {
        out.clear();
        for &i in self.rows.get(self.bands.of(y)) {
            let e = &self.edges[i as usize];
            let (a, b) = (e.a, e.b);
            if (a[1] > y) != (b[1] > y) {
                out.push(a[0] + (y - a[1]) / (b[1] - a[1]) * (b[0] - a[0]));
            }
        }
        out.sort_unstable_by(f32::total_cmp);
    }

    /// Whether no contour edge comes within `r` of `p`.
    #[cfg(test)]
    pub(crate) fn clear_of_edges(&self, p: P2, r: f32) -> bool {
        let mut clear = true;
        self.grid
            .for_box([p[0] - r, p[1] - r], [p[0] + r, p[1] + r], |c| {
                if clear {
                    for &i in self.cells.get(c) {
                        let e = &self.edges[i as usize];
                        if e.hi[0] <= p[0] - r
                            || e.lo[0] >= p[0] + r
                            || e.hi[1] <= p[1] - r
                            || e.lo[1] >= p[1] + r
                        {
                            continue;
                        }
                        if geom::dist_to_segment(p, e.a, e.b) < r {
                            clear = false;
                            break;
                        }
                    }
                }
            });
        clear
    }

    /// Whether the box `[lo, hi]` in `frame`'s local coordinates lies inside the polygon: no
    /// contour edge meets it (touching counts) and its centre is inside. Each edge is tested
    /// in the box's frame by separating axes: the box's two, then the edge's normal.
    pub(crate) fn box_inside(&self, frame: &Frame, lo: P2, hi: P2) -> bool {
        let corners = [lo, [hi[0], lo[1]], hi, [lo[0], hi[1]]].map(|p| frame.to_world(p));
        let (wlo, whi) = bbox(corners);
        let mut clear = true;
        self.grid.for_box(wlo, whi, |c| {
            if !clear {
                return;
            }
            let r = self.cells.range(c);
            for (&i, b) in self.cells.items[r.clone()].iter().zip(&self.cell_boxes[r]) {
                if b[2] < wlo[0] || b[0] > whi[0] || b[3] < wlo[1] || b[1] > whi[1] {
                    continue;
                }
                let e = &self.edges[i as usize];
                let p = frame.to_local(e.a);
                let q = frame.to_local(e.b);
                if (p[0] < lo[0] && q[0] < lo[0])
                    || (p[0] > hi[0] && q[0] > hi[0])
                    || (p[1] < lo[1] && q[1] < lo[1])
                    || (p[1] > hi[1] && q[1] > hi[1])
                {
                    continue;
                }
                let d = geom::sub(q, p);
                let side = |x: f32, y: f32| geom::cross(d, [x - p[0], y - p[1]]);
                let s = [
                    side(lo[0], lo[1]),
                    side(hi[0], lo[1]),
                    side(hi[0], hi[1]),
                    side(lo[0], hi[1]),
                ];
                if !(s.iter().all(|v| *v > 0.0) || s.iter().all(|v| *v < 0.0)) {
                    clear = false;
                    return;
                }
            }
        });
        clear && self.contains(frame.to_world([(lo[0] + hi[0]) * 0.5, (lo[1] + hi[1]) * 0.5]))
    }

    /// The first pair of edges that cross, as `(ring, ring)`: a contour crossing itself or
    /// another. Neighbouring edges of one contour share a vertex and do not count.
    pub(crate) fn first_crossing(&self) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for c in 0..self.grid.cells() {
            let list = self.cells.get(c);
            for (x, &i) in list.iter().enumerate() {
                let e = &self.edges[i as usize];
                for &j in &list[x + 1..] {
                    let f = &self.edges[j as usize];
                    if e.hi[0] < f.lo[0]
                        || f.hi[0] < e.lo[0]
                        || e.hi[1] < f.lo[1]
                        || f.hi[1] < e.lo[1]
                    {
                        continue;
                    }
                    if e.ring == f.ring {
                        let n = self.ring_len[e.ring as usize];
                        let (p, q) = (e.k.min(f.k), e.k.max(f.k));
                        if q == p + 1 || (p == 0 && q + 1 == n) || p == q {
                            continue;
                        }
                    }
                    if geom::segments_cross(e.a, e.b, f.a, f.b) {
                        let pair = (e.ring.min(f.ring) as usize, e.ring.max(f.ring) as usize);
                        if best.is_none_or(|b| pair < b) {
                            best = Some(pair);
                        }
                    }
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(lo: f32, hi: f32, ccw: bool) -> Vec<P2> {
        let mut v = vec![[lo, lo], [hi, lo], [hi, hi], [lo, hi]];
        if !ccw {
            v.reverse();
        }
        v
    }

    #[test]
    fn contains_matches_the_plain_test() {
        let outer = square(0.0, 100.0, true);
        let hole = square(40.0, 60.0, false);
        let idx = PolyIndex::new(&[&outer, &hole]);
        let rings = vec![outer.clone(), hole.clone()];
        for i in 0..50 {
            for j in 0..50 {
                let p = [i as f32 * 2.3 - 7.0, j as f32 * 2.3 - 7.0];
                assert_eq!(idx.contains(p), geom::point_in_rings(p, &rings), "{p:?}");
                let mut xs = Vec::new();
                idx.crossings(p[1], &mut xs);
                let by_runs = xs
                    .chunks(2)
                    .any(|c| c.len() == 2 && p[0] >= c[0] && p[0] < c[1]);
                assert_eq!(by_runs, idx.contains(p), "{p:?} {xs:?}");
            }
        }
    }

    #[test]
    fn quads_and_crossings() {
        let outer = square(0.0, 100.0, true);
        let hole = square(40.0, 60.0, false);
        let idx = PolyIndex::new(&[&outer, &hole]);
        let id = Frame::along([0.0, 0.0], [1.0, 0.0]);
        let q = |x0: f32, y0: f32, x1: f32, y1: f32| idx.box_inside(&id, [x0, y0], [x1, y1]);
        assert!(q(1.0, 1.0, 30.0, 30.0));
        assert!(!q(30.0, 30.0, 45.0, 45.0), "overlaps the hole");
        assert!(!q(35.0, 35.0, 65.0, 65.0), "covers the hole");
        assert!(!q(90.0, 10.0, 110.0, 20.0), "leaves the polygon");
        assert!(!q(45.0, 45.0, 55.0, 55.0), "inside the hole");
        // Turned 45 degrees: a box whose corner pokes out past the outer contour.
        let turned = Frame::along([50.0, 85.0], [51.0, 86.0]);
        assert!(!idx.box_inside(&turned, [-5.0, -5.0], [5.0, 25.0]));
        assert!(idx.box_inside(&turned, [-5.0, -5.0], [5.0, 15.0]));
        assert!(idx.clear_of_edges([10.0, 10.0], 5.0));
        assert!(!idx.clear_of_edges([10.0, 2.0], 5.0));
        assert_eq!(idx.first_crossing(), None);
        let bow = vec![[0.0, 0.0], [10.0, 10.0], [10.0, 0.0], [0.0, 10.0]];
        assert_eq!(PolyIndex::new(&[&bow]).first_crossing(), Some((0, 0)));
        let off = square(90.0, 120.0, false);
        assert_eq!(
            PolyIndex::new(&[&outer, &off]).first_crossing(),
            Some((0, 1))
        );
    }
}
