//! `FILL_LAYER`: trees over the interior outside every tile and hole, in jittered rows.

use super::*;

/// How far (m) a fill tree stays from the end of its free run (a tile's or the polygon's
/// edge).
const EDGE_CLEAR: f32 = 0.01;

/// A placed tile as the fill's scanlines meet it.
struct Span {
    /// The tile's least and greatest `y`.
    y: P2,
    origin: P2,
    /// For each of the tile's axes `(u, v)`: its `y` component, `1 / x` component (0 when
    /// the axis is vertical) and the tile's length along it.
    axes: [(f32, f32, f32); 2],
}

impl Span {
    fn new(p: &Placed) -> Span {
        let q = p.quad();
        let axis = |a: P2, len: f32| {
            let inv = if a[0].abs() < 1e-9 { 0.0 } else { 1.0 / a[0] };
            (a[1], inv, len)
        };
        Span {
            y: [
                q[0][1].min(q[1][1]).min(q[2][1].min(q[3][1])),
                q[0][1].max(q[1][1]).max(q[2][1].max(q[3][1])),
            ],
            origin: p.frame.origin,
            axes: [axis(p.frame.u, p.size[0]), axis(p.frame.v, p.size[1])],
        }
    }

    /// Where the horizontal line at `y` crosses the tile: `[min x, max x]`. Each axis bounds
    /// `x` to an interval (`0 <= (x - o.x)·a.x + (y - o.y)·a.y <= len`); the answer is their
    /// intersection.
    fn at(&self, y: f32) -> Option<P2> {
        if y < self.y[0] || y > self.y[1] {
            return None;
        }
        let dy = y - self.origin[1];
        let mut lo = f32::NEG_INFINITY;
        let mut hi = f32::INFINITY;
        for (ay, inv, len) in self.axes {
            let base = dy * ay;
            if inv == 0.0 {
                if base < 0.0 || base > len {
                    return None;
                }
                continue;
            }
            let a = self.origin[0] - base * inv;
            let b = self.origin[0] + (len - base) * inv;
            lo = lo.max(a.min(b));
            hi = hi.min(a.max(b));
        }
        (lo <= hi).then_some([lo, hi])
    }
}

/// Trees of `layer` over the interior outside every tile: rows at the forest's spacing,
/// each row shifted by a seeded jitter (and every other one by half a spacing), each tree
/// jittered along its row. Rows make the inside test a scanline.
pub(super) fn fill(
    placer: &Placer,
    index: &PolyIndex,
    input: &LayoutInput,
    layer: i32,
    mut rng: Rng,
    scene: &mut Scene,
    msgs: &mut Msgs,
) {
    let (lo, hi) = index::bbox(scene.polygon.iter().flatten().copied());
    if !(lo[0] < hi[0] && lo[1] < hi[1]) {
        return;
    }
    let base = input
        .forest_spacing
        .unwrap_or([DEFAULT_TREE_SPACING; 2])
        .map(|s| {
            if s.is_finite() {
                s.max(1.0)
            } else {
                DEFAULT_TREE_SPACING
            }
        });
    let mut sp = base;
    let cells =
        f64::from((hi[0] - lo[0]) / sp[0]).ceil() * f64::from((hi[1] - lo[1]) / sp[1]).ceil();
    if cells > MAX_FILL_TREES as f64 {
        let k = (cells / MAX_FILL_TREES as f64).sqrt() as f32 * 1.01;
        sp = [sp[0] * k, sp[1] * k];
        msgs.file(format!(
            "the fill would need about {cells:.0} trees at {:.1} x {:.1} m; spaced {:.1} x {:.1} m instead",
            base[0], base[1], sp[0], sp[1]
        ));
    }
    let nx = (((hi[0] - lo[0]) / sp[0]).ceil() as usize + 1).min(MAX_FILL_TREES);
    let ny = (((hi[1] - lo[1]) / sp[1]).ceil() as usize).min(MAX_FILL_TREES);
    let bands = index.bands;
    let spans: Vec<Span> = placer.placed.iter().map(Span::new).collect();
    let by_band = Buckets::build(bands.n, 8 * spans.len(), |pairs| {
        for (i, sp) in spans.iter().enumerate() {
            for b in bands.of(sp.y[0])..=bands.of(sp.y[1]) {
                pairs.push((b as u32, i as u32));
            }
        }
    });
    let mut xs = Vec::new();
    let mut cover: Vec<P2> = Vec::new();
    let mut free: Vec<P2> = Vec::new();
    let mut count = 0;
    for iy in 0..ny {
        let y = lo[1] + (iy as f32 + 0.5 + rng.f32() * 0.8 - 0.4) * sp[1];
        // Each tree draws from its own grid cell's stream, so a contour or tile moved by
        // millimetres (a binary DSF's quantised points) changes only the trees it reaches,
        // never the draws of the trees after them.
        let row_rng = rng.fork(iy as u64);
        index.crossings(y, &mut xs);
        if xs.len() < 2 {
            continue;
        }
        // The row's free runs: inside the polygon, outside every tile.
        cover.clear();
        cover.extend(
            by_band
                .get(bands.of(y))
                .iter()
                .filter_map(|&i| spans[i as usize].at(y)),
        );
        if cover.len() > 1 {
            cover.sort_unstable_by(|a, b| a[0].total_cmp(&b[0]));
        }
        free.clear();
        for run in xs.chunks_exact(2) {
            let mut from = run[0];
            for c in &cover {
                if c[1] < from {
                    continue;
                }
                if c[0] >= run[1] {
                    break;
                }
                if c[0] > from {
                    free.push([from, c[0]]);
                }
                from = from.max(c[1]);
            }
            if from < run[1] {
                free.push([from, run[1]]);
            }
        }
        let shift = if iy % 2 == 1 { 1.0 } else { 0.5 };
        // Grid column of x (before jitter): x = lo + (ix + shift + jitter) * sp.
        let col = |x: f32| (x - lo[0]) / sp[0] - shift;
        let mut next_ix = 0usize;
        for f in &free {
            let first = (col(f[0]) - 0.4).ceil().max(0.0) as usize;
            let last = ((col(f[1]) + 0.4).floor().max(-1.0) + 1.0) as usize;
            for ix in first.max(next_ix)..last.min(nx) {
                next_ix = ix + 1;
                let mut tree_rng = row_rng.fork(ix as u64);
                let x = lo[0] + (ix as f32 + shift + tree_rng.f32() * 0.8 - 0.4) * sp[0];
                // A centimetre clear of the runs' ends: a tree exactly on a tile's edge
                // (to float rounding) would stand on the tile.
                if x <= f[0] + EDGE_CLEAR || x >= f[1] - EDGE_CLEAR {
                    continue;
                }
                scene.trees.push(TreeInstance {
                    pos: [x, y],
                    width: 0.0,
                    heading: tree_rng.f32() * 360.0,
                    layer,
                    pick: tree_rng.u32(),
                    forest: 0,
                    height: 0.0,
                    feature: None,
                });
                count += 1;
                if count >= MAX_FILL_TREES {
                    return;
                }
            }
        }
    }
}
