//! Contours of an autogen string polygon: cleaning them, and finding their corners and
//! sides.

use crate::layout::geom::{self, P2};

/// Two points closer than this (meters) are one point.
pub(crate) const SAME_POINT: f32 = 1e-3;

/// What cleaning a contour did, for the warnings.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cleaned {
    /// Repeated (zero-length) vertices dropped, not counting a closing copy of the first.
    pub repeated: usize,
    /// Vertices where the contour doubled back on itself (a zero-width spike), dropped.
    pub spikes: usize,
    /// The winding was reversed.
    pub reversed: bool,
    /// The area enclosed (square meters, not signed).
    pub area: f32,
}

fn same(a: P2, b: P2) -> bool {
    let d = geom::sub(a, b);
    geom::dot(d, d) < SAME_POINT * SAME_POINT
}

/// Whether the path `a → b → c` doubles straight back at `b` (|sin| of the turn ≤ 1e-6).
fn doubles_back(a: P2, b: P2, c: P2) -> bool {
    let d1 = geom::sub(b, a);
    let d2 = geom::sub(c, b);
    let x = geom::cross(d1, d2);
    geom::dot(d1, d2) < 0.0 && x * x <= 1e-12 * geom::dot(d1, d1) * geom::dot(d2, d2)
}

/// Drops a closing copy of the first point (silently: that is how a DSF closes a winding),
/// repeated points and zero-width spikes, and turns the contour to the wanted winding
/// (`ccw` for the outer contour, clockwise for holes). `spawn[i]` says whether the edge
/// leaving point `i` spawns tiles; the flags follow their edges: a dropped repeated point
/// hands its edge's flag to the point it repeats, a spike keeps the flag of the edge before
/// it, and reversing the contour reverses the flags with it. Every loop is bounded by the
/// point count.
pub fn clean(pts: &[P2], spawn: &[bool], ccw: bool) -> (Vec<P2>, Vec<bool>, Cleaned) {
    let mut info = Cleaned::default();
    let flag = |i: usize| spawn.get(i).copied().unwrap_or(false);
    let mut src = pts;
    while src.len() >= 2 && same(src[0], src[src.len() - 1]) {
        src = &src[..src.len() - 1];
    }
    let mut out: Vec<P2> = Vec::with_capacity(src.len());
    let mut flags: Vec<bool> = Vec::with_capacity(src.len());
    for (i, &p) in src.iter().enumerate() {
        if out.last().is_some_and(|&q| same(q, p)) {
            info.repeated += 1;
            if let Some(f) = flags.last_mut() {
                *f = flag(i);
            }
            continue;
        }
        while out.len() >= 2 && doubles_back(out[out.len() - 2], out[out.len() - 1], p) {
            out.pop();
            flags.pop();
            info.spikes += 1;
        }
        if out.last().is_some_and(|&q| same(q, p)) {
            info.repeated += 1;
            if let Some(f) = flags.last_mut() {
                *f = flag(i);
            }
            continue;
        }
        out.push(p);
        flags.push(flag(i));
    }
    // The seam between the last and the first point, bounded by the point count.
    for _ in 0..=src.len() {
        let n = out.len();
        if n >= 2 && same(out[0], out[n - 1]) {
            out.pop();
            flags.pop();
            info.repeated += 1;
        } else if n >= 3 && doubles_back(out[n - 2], out[n - 1], out[0]) {
            out.pop();
            flags.pop();
            info.spikes += 1;
        } else if n >= 3 && doubles_back(out[n - 1], out[0], out[1]) {
            out.remove(0);
            flags.remove(0);
            info.spikes += 1;
        } else {
            break;
        }
    }
    let area2 = if out.len() >= 3 {
        geom::signed_area2(&out)
    } else {
        0.0
    };
    info.area = area2.abs() * 0.5;
    if out.len() >= 3 && (area2 > 0.0) != ccw {
        out.reverse();
        flags = reversed_flags(&flags);
        info.reversed = true;
    }
    (out, flags, info)
}

/// The edge flags of a ring walked backwards: reversed point `j` is old point `n - 1 - j`,
/// and the edge leaving it is the old edge arriving there, `n - 2 - j` (mod n).
pub(crate) fn reversed_flags(flags: &[bool]) -> Vec<bool> {
    let n = flags.len();
    (0..n).map(|j| flags[(2 * n - 2 - j) % n]).collect()
}

/// The turn in degrees at `at`, walking `prev → at → next`: left turns negative, right
/// turns positive, as the AGS spec measures corners (a counter-clockwise square turns −90 at
/// each corner).
pub(crate) fn turn_angle(prev: P2, at: P2, next: P2) -> f32 {
    let d1 = geom::sub(at, prev);
    let d2 = geom::sub(next, at);
    -geom::cross(d1, d2).atan2(geom::dot(d1, d2)).to_degrees()
}

/// Whether a turn makes a corner: left turns beyond `left` degrees, right turns beyond
/// `right`.
pub(crate) fn is_corner(turn: f32, left: f32, right: f32) -> bool {
    if turn < 0.0 {
        -turn > left
    } else {
        turn > right
    }
}

/// A corner of a contour.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Corner {
    /// Index of the vertex in the contour.
    pub vertex: usize,
    pub pos: P2,
    /// Turn in degrees (left negative).
    pub turn: f32,
    /// Unit directions of the segment arriving at the corner and of the one leaving it.
    pub d_in: P2,
    pub d_out: P2,
    /// Lengths of those two single segments.
    pub len_in: f32,
    pub len_out: f32,
}

/// The corners of a closed contour, in vertex order.
pub fn corners(ring: &[P2], left: f32, right: f32) -> Vec<Corner> {
    let n = ring.len();
    let mut out = Vec::new();
    if n < 3 {
        return out;
    }
    // A turn beyond the crease has a cosine below the crease's; only those (with a little
    // margin) pay for the exact angle.
    let (cos_left, cos_right) = (
        left.to_radians().cos() + 1e-4,
        right.to_radians().cos() + 1e-4,
    );
    for i in 0..n {
        let prev = ring[(i + n - 1) % n];
        let at = ring[i];
        let next = ring[(i + 1) % n];
        let (a, b) = (geom::sub(at, prev), geom::sub(next, at));
        let (la, lb) = (geom::len(a), geom::len(b));
        let cos = geom::dot(a, b) / (la * lb).max(f32::MIN_POSITIVE);
        let limit = if geom::cross(a, b) >= 0.0 {
            cos_left
        } else {
            cos_right
        };
        if cos > limit {
            continue;
        }
        let turn = turn_angle(prev, at, next);
        if is_corner(turn, left, right) {
            out.push(Corner {
                vertex: i,
                pos: at,
                turn,
                d_in: geom::scale(a, 1.0 / la.max(f32::MIN_POSITIVE)),
                d_out: geom::scale(b, 1.0 / lb.max(f32::MIN_POSITIVE)),
                len_in: la,
                len_out: lb,
            });
        }
    }
    out
}

/// A side: the poly-line between two consecutive corners (or, on a contour without
/// corners, the whole contour from its sharpest vertex back to it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Side<'a> {
    /// The points, first corner to last; `segments = pts.len() - 1`.
    pub pts: &'a [P2],
    /// Arc length at each point, from 0.
    pub cum: &'a [f32],
    /// Index (into the contour's corners) of the corners at the start and the end.
    pub start_corner: Option<usize>,
    pub end_corner: Option<usize>,
}

/// The sides of a contour, stored together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sides {
    pts: Vec<P2>,
    cum: Vec<f32>,
    /// `(first point, end point, start corner, end corner)` of each side.
    spans: Vec<(usize, usize, Option<usize>, Option<usize>)>,
}

impl Sides {
    fn push(&mut self, pts: impl Iterator<Item = P2>, start: Option<usize>, end: Option<usize>) {
        let first = self.pts.len();
        let mut s = 0.0;
        for p in pts {
            if self.pts.len() > first {
                s += geom::len(geom::sub(p, self.pts[self.pts.len() - 1]));
            }
            self.pts.push(p);
            self.cum.push(s);
        }
        self.spans.push((first, self.pts.len(), start, end));
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn get(&self, j: usize) -> Side<'_> {
        let (a, b, start_corner, end_corner) = self.spans[j];
        Side {
            pts: &self.pts[a..b],
            cum: &self.cum[a..b],
            start_corner,
            end_corner,
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = Side<'_>> {
        (0..self.len()).map(|j| self.get(j))
    }
}

impl Side<'_> {
    pub fn len(&self) -> f32 {
        self.cum.last().copied().unwrap_or(0.0)
    }

    pub fn segments(&self) -> usize {
        self.pts.len().saturating_sub(1)
    }

    /// The segment holding arc length `s` (clamped to the side).
    pub(crate) fn segment_at(&self, s: f32) -> usize {
        let n = self.segments();
        if n == 0 {
            return 0;
        }
        // The last k with cum[k] <= s.
        let k = self.cum.partition_point(|&c| c <= s);
        k.saturating_sub(1).min(n - 1)
    }

    pub(crate) fn segment_len(&self, k: usize) -> f32 {
        match (self.cum.get(k), self.cum.get(k + 1)) {
            (Some(a), Some(b)) => b - a,
            _ => 0.0,
        }
    }

    /// The chord of length `w` that starts at arc length `s`: its end is the first point of
    /// the side (or of its last segment extended) at distance `w` from its start. Returns
    /// `(start, end, arc length at the end)`. Bounded by the segment count.
    pub(crate) fn chord(&self, s: f32, w: f32) -> (P2, P2, f32) {
        let n = self.segments();
        let k0 = self.segment_at(s);
        let a = match (self.pts.get(k0), self.pts.get(k0 + 1)) {
            (Some(&p), Some(&q)) => geom::lerp(
                p,
                q,
                (s - self.cum[k0]) / self.segment_len(k0).max(f32::MIN_POSITIVE),
            ),
            _ => self.pts.first().copied().unwrap_or([0.0; 2]),
        };
        for k in k0..n {
            let p0 = if k == k0 { a } else { self.pts[k] };
            let s0 = if k == k0 { s } else { self.cum[k] };
            let p1 = self.pts[k + 1];
            let to_end = geom::sub(p1, a);
            if geom::dot(to_end, to_end) >= w * w {
                let d = geom::sub(p1, p0);
                let f = geom::sub(p0, a);
                let qa = geom::dot(d, d);
                if qa <= 0.0 {
                    continue;
                }
                let qb = 2.0 * geom::dot(f, d);
                let qc = geom::dot(f, f) - w * w;
                let disc = (qb * qb - 4.0 * qa * qc).max(0.0);
                let t = ((-qb + disc.sqrt()) / (2.0 * qa)).clamp(0.0, 1.0);
                let b = geom::add(p0, geom::scale(d, t));
                return (a, b, s0 + t * geom::len(d));
            }
        }
        // Past the end: along the last segment, extended.
        let e = self.pts.last().copied().unwrap_or(a);
        let dir = if n > 0 {
            geom::scale(
                geom::sub(self.pts[n], self.pts[n - 1]),
                1.0 / self.segment_len(n - 1).max(f32::MIN_POSITIVE),
            )
        } else {
            [1.0, 0.0]
        };
        let f = geom::sub(e, a);
        let fd = geom::dot(f, dir);
        let t = (-fd + (fd * fd - (geom::dot(f, f) - w * w)).max(0.0).sqrt()).max(0.0);
        (a, geom::add(e, geom::scale(dir, t)), self.len() + t)
    }

    /// The points strictly between arc lengths `s0` and `s1`.
    pub(crate) fn points_between(&self, s0: f32, s1: f32) -> &[P2] {
        let i0 = self.cum.partition_point(|&c| c <= s0);
        let i1 = self.cum.partition_point(|&c| c < s1).max(i0);
        &self.pts[i0.min(self.pts.len())..i1.min(self.pts.len())]
    }
}

/// The sides of a closed contour: the runs of spawning edges (`spawn[i]`: the edge leaving
/// vertex `i`), cut at the corners. A side starts at a corner or where spawning starts, and
/// ends at the next corner or where spawning stops; its `start_corner`/`end_corner` name
/// the corner (index into `corners`) when there is one. A corner between a spawning and a
/// non-spawning edge cuts nothing: it is where a run starts or stops anyway. A contour
/// whose every edge spawns and that has no corners is one side that starts and ends at its
/// sharpest vertex (the first of equals).
pub fn sides(ring: &[P2], corners: &[Corner], spawn: &[bool]) -> Sides {
    let n = ring.len();
    let mut out = Sides::default();
    if n < 3 || spawn.len() != n || !spawn.iter().any(|&f| f) {
        return out;
    }
    out.pts.reserve(n + corners.len().max(1));
    out.cum.reserve(n + corners.len().max(1));
    // Vertices from..=to going forward, `to` taken modulo n (to > from, to <= from + n).
    let run = |from: usize, to: usize| (from..=to).map(move |i| ring[i % n]);
    let all = spawn.iter().all(|&f| f);
    if corners.is_empty() && all {
        // The sharpest turn has the smallest cosine.
        let mut start = 0;
        let mut lowest = f32::INFINITY;
        for i in 0..n {
            let a = geom::sub(ring[i], ring[(i + n - 1) % n]);
            let b = geom::sub(ring[(i + 1) % n], ring[i]);
            let cos = geom::dot(a, b) / (geom::len(a) * geom::len(b)).max(f32::MIN_POSITIVE);
            if cos < lowest {
                lowest = cos;
                start = i;
            }
        }
        out.push(run(start, start + n), None, None);
        return out;
    }
    let mut corner_at = vec![None; n];
    for (k, c) in corners.iter().enumerate() {
        if let Some(slot) = corner_at.get_mut(c.vertex) {
            *slot = Some(k);
        }
    }
    // A vertex cuts the contour when it is a corner or the flag changes there.
    let cuts = |v: usize| corner_at[v].is_some() || spawn[(v + n - 1) % n] != spawn[v];
    let Some(first) = (0..n).find(|&v| cuts(v)) else {
        return out;
    };
    // Walk once round from the first cut, by absolute position.
    let mut pos = first;
    while pos < first + n {
        let v = pos % n;
        if !spawn[v] {
            pos += 1;
            continue;
        }
        // A run of spawning edges from v to the next cut (at the latest `first` again).
        let mut to = pos + 1;
        while to < first + n && !cuts(to % n) {
            to += 1;
        }
        let end = to % n;
        let start_corner = corner_at[v].filter(|_| spawn[(v + n - 1) % n]);
        let end_corner = corner_at[end].filter(|_| spawn[end]);
        out.push(run(v, v + (to - pos)), start_corner, end_corner);
        pos = to;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_turns_minus_ninety() {
        let sq = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]];
        let c = corners(&sq, 30.0, 30.0);
        assert_eq!(c.len(), 4);
        for k in &c {
            assert!((k.turn + 90.0).abs() < 1e-4, "{k:?}");
        }
        // Clockwise: right turns, +90.
        let mut cw = sq.to_vec();
        cw.reverse();
        assert!(corners(&cw, 30.0, 30.0)
            .iter()
            .all(|k| (k.turn - 90.0).abs() < 1e-4));
        // A crease angle above 90 makes none; one just under makes all four.
        assert!(corners(&sq, 95.0, 95.0).is_empty());
        assert_eq!(corners(&sq, 89.99, 89.99).len(), 4);
        // Left and right creases apply to their own turns.
        let ell = [
            [0.0, 0.0],
            [20.0, 0.0],
            [20.0, 10.0],
            [10.0, 10.0],
            [10.0, 20.0],
            [0.0, 20.0],
        ];
        let c = corners(&ell, 95.0, 30.0);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].vertex, 3);
        assert!((c[0].turn - 90.0).abs() < 1e-4);
    }

    #[test]
    fn cleaning_drops_repeats_spikes_and_fixes_winding() {
        let pts = [
            [0.0, 0.0],
            [0.0, 0.0],
            [10.0, 0.0],
            [15.0, 0.0],
            [10.0, 0.0],
            [10.0, 10.0],
            [0.0, 10.0],
            [0.0, 0.0],
        ];
        let (out, flags, info) = clean(&pts, &[true; 8], true);
        assert_eq!(flags, vec![true; 4]);
        // The first repeat, and the spike 10 → 15 → 10 returning to a point already there.
        assert_eq!(info.repeated, 2);
        assert_eq!(info.spikes, 1, "{out:?}");
        assert!(!info.reversed);
        assert_eq!(
            out,
            vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]
        );
        let (out2, _, info2) = clean(&out, &[true; 4], false);
        assert!(info2.reversed);
        assert!(geom::signed_area2(&out2) < 0.0);
    }

    #[test]
    fn sides_are_the_spawning_runs_cut_at_corners() {
        let sq = [[0.0, 0.0], [100.0, 0.0], [100.0, 60.0], [0.0, 60.0]];
        let c = corners(&sq, 30.0, 30.0);
        // Only the south edge spawns: one side, no corner tile at either end.
        let s = sides(&sq, &c, &[true, false, false, false]);
        assert_eq!(s.len(), 1);
        let side = s.get(0);
        assert_eq!(side.pts, &[[0.0, 0.0], [100.0, 0.0]]);
        assert_eq!((side.start_corner, side.end_corner), (None, None));
        // South and east: two sides meeting at the live corner (100, 0).
        let s = sides(&sq, &c, &[true, true, false, false]);
        assert_eq!(s.len(), 2);
        assert_eq!(
            (s.get(0).start_corner, s.get(0).end_corner),
            (None, Some(1))
        );
        assert_eq!(
            (s.get(1).start_corner, s.get(1).end_corner),
            (Some(1), None)
        );
        // Everything: the four sides from corner to corner.
        let s = sides(&sq, &c, &[true; 4]);
        assert_eq!(s.len(), 4);
        assert!(s
            .iter()
            .all(|x| x.start_corner.is_some() && x.end_corner.is_some()));
        // Nothing spawns: no side.
        assert_eq!(sides(&sq, &c, &[false; 4]).len(), 0);
        // No corners (a crease above 90), two runs.
        let s = sides(&sq, &[], &[true, false, true, false]);
        assert_eq!(s.len(), 2);
        assert_eq!(s.get(1).pts, &[[100.0, 60.0], [0.0, 60.0]]);
    }

    #[test]
    fn flags_follow_their_edges_when_reversed() {
        // Edge 0 (p0 → p1) spawns; walked backwards it is the edge leaving p1, the last
        // reversed point but one.
        let pts = [[0.0, 0.0], [0.0, 10.0], [10.0, 10.0], [10.0, 0.0]];
        let (out, flags, info) = clean(&pts, &[true, false, false, false], true);
        assert!(info.reversed);
        assert_eq!(out[2], [0.0, 10.0]);
        assert_eq!(flags, vec![false, false, true, false]);
        assert_eq!(
            reversed_flags(&reversed_flags(&[true, false, true, true])),
            vec![true, false, true, true]
        );
        // A repeated point hands its edge's flag to the point it repeats.
        let (out, flags, _) = clean(
            &[[0.0, 0.0], [10.0, 0.0], [10.0, 0.0], [10.0, 10.0]],
            &[false, false, true, false],
            true,
        );
        assert_eq!(out.len(), 3);
        assert_eq!(flags, vec![false, true, false]);
    }

    #[test]
    fn chords_cut_bends_and_stay_on_the_line() {
        let mut sides = Sides::default();
        sides.push(
            [[0.0, 0.0], [10.0, 0.0], [20.0, 2.0]].into_iter(),
            None,
            None,
        );
        let side = sides.get(0);
        let (a, b, s) = side.chord(2.0, 5.0);
        assert_eq!(a, [2.0, 0.0]);
        assert!((b[0] - 7.0).abs() < 1e-5 && b[1] == 0.0 && (s - 7.0).abs() < 1e-5);
        let (a, b, s) = side.chord(8.0, 6.0);
        assert!((geom::len(geom::sub(b, a)) - 6.0).abs() < 1e-4);
        assert!(s > 14.0 && s < side.len(), "{s}");
        // Past the end: straight on.
        let (_, b, s) = side.chord(18.0, 10.0);
        assert!(s > side.len() && b[0] > 20.0);
        assert_eq!(side.points_between(8.0, s), &[[10.0, 0.0], [20.0, 2.0]]);
    }
}
