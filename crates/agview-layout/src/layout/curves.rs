//! Bezier curves as DSFs and WED write them, flattened to straight segments (GROUND.md §4).
//!
//! A curved DSF polygon carries, with each point P, one control C: its outgoing ("hi")
//! handle; the incoming ("lo") one is the mirror `2P − C`, and `C == P` means no handle.
//! A node whose handles do not mirror (a split node) is written as two or three points at
//! the same place: `(P, 2P − lo)` when it has a lo handle, then `(P, P)`, then `(P, hi)`
//! when it has a hi one. Runs of equal points are merged back into one node first
//! ([`merge_runs`]), so no zero-length cubic draws a false loop. The side from node i to
//! i + 1 is the cubic `(P_i, hi_i, lo_{i+1}, P_{i+1})`, a missing handle standing at its
//! own end point.
//!
//! Each side is flattened by halving until its control points lie within [`TOLERANCE`] of
//! its chord (de Casteljau), so the polyline stays within the tolerance of the cubic.

use crate::layout::geom::P2;

/// How far (meters) a flattened curve may stray from the cubic.
pub const TOLERANCE: f32 = 0.1;

/// The most halvings of one side (2^12 pieces): enough for a kilometre at 0.1 m.
const MAX_DEPTH: u32 = 12;

/// One merged node: its point, its handles, and (for an orthophoto) its texture
/// coordinates with their handles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Node {
    pub p: P2,
    pub lo: Option<P2>,
    pub hi: Option<P2>,
    pub st: [f32; 2],
    pub st_lo: Option<[f32; 2]>,
    pub st_hi: Option<[f32; 2]>,
}

fn mirror(p: P2, c: P2) -> P2 {
    [2.0 * p[0] - c[0], 2.0 * p[1] - c[1]]
}

/// Merges the DSF's points-with-controls into nodes: runs of points at one place become
/// one node (the run's first control gives the lo handle, its last the hi one); a lone
/// point's control is its hi handle and its mirror the lo one. `st` and `st_ctrl`, when
/// given, are the points' texture coordinates and their controls, merged alike. A closed
/// ring whose last node stands where its first does is folded into the first.
pub fn merge_runs(
    pts: &[P2],
    ctrl: &[P2],
    st: Option<&[[f32; 2]]>,
    st_ctrl: Option<&[[f32; 2]]>,
    closed: bool,
) -> Vec<Node> {
    let handle = |p: P2, c: P2| (c != p).then_some(c);
    let st_of = |i: usize| st.and_then(|s| s.get(i)).copied().unwrap_or([0.0, 0.0]);
    let stc_of = |i: usize| st_ctrl.and_then(|s| s.get(i)).copied();
    let mut nodes: Vec<Node> = Vec::with_capacity(pts.len());
    let mut i = 0;
    while i < pts.len() {
        let p = pts[i];
        let mut j = i;
        while j + 1 < pts.len() && pts[j + 1] == p {
            j += 1;
        }
        let c_first = ctrl.get(i).copied().unwrap_or(p);
        let c_last = ctrl.get(j).copied().unwrap_or(p);
        let (s_first, s_last) = (st_of(i), st_of(j));
        let (sc_first, sc_last) = (stc_of(i).unwrap_or(s_first), stc_of(j).unwrap_or(s_last));
        let node = if i == j {
            Node {
                p,
                lo: handle(p, c_first).map(|c| mirror(p, c)),
                hi: handle(p, c_first),
                st: s_first,
                st_lo: (sc_first != s_first).then(|| mirror(s_first, sc_first)),
                st_hi: (sc_first != s_first).then_some(sc_first),
            }
        } else {
            Node {
                p,
                lo: handle(p, c_first).map(|c| mirror(p, c)),
                hi: handle(p, c_last),
                st: s_first,
                st_lo: (sc_first != s_first).then(|| mirror(s_first, sc_first)),
                st_hi: (sc_last != s_last).then_some(sc_last),
            }
        };
        nodes.push(node);
        i = j + 1;
    }
    if closed && nodes.len() > 1 && nodes[0].p == nodes[nodes.len() - 1].p {
        let last = nodes.pop().expect("more than one");
        nodes[0].lo = last.lo;
        nodes[0].st_lo = last.st_lo;
    }
    nodes
}

/// Whether any node has a handle.
#[cfg(test)]
pub(crate) fn is_curved(nodes: &[Node]) -> bool {
    nodes.iter().any(|n| n.lo.is_some() || n.hi.is_some())
}

fn lerp(a: P2, b: P2, t: f32) -> P2 {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
}

/// The cubic at `t`.
pub fn cubic(b: [P2; 4], t: f32) -> P2 {
    let u = 1.0 - t;
    let (w0, w1, w2, w3) = (u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t);
    [
        w0 * b[0][0] + w1 * b[1][0] + w2 * b[2][0] + w3 * b[3][0],
        w0 * b[0][1] + w1 * b[1][1] + w2 * b[2][1] + w3 * b[3][1],
    ]
}

/// Distance from `p` to the segment `a`–`b`.
fn off_chord(p: P2, a: P2, b: P2) -> f32 {
    crate::layout::geom::dist_to_segment(p, a, b)
}

/// The parameters (excluding 0, including 1) at which the cubic `b` is cut so every piece's
/// control points lie within `tol` of its chord.
pub fn cut_parameters(b: [P2; 4], tol: f32) -> Vec<f32> {
    fn rec(b: [P2; 4], t0: f32, t1: f32, tol: f32, depth: u32, out: &mut Vec<f32>) {
        let flat = off_chord(b[1], b[0], b[3]).max(off_chord(b[2], b[0], b[3])) <= tol;
        if flat || depth >= MAX_DEPTH || !(b.iter().flatten().all(|v| v.is_finite())) {
            out.push(t1);
            return;
        }
        // de Casteljau halves.
        let ab = lerp(b[0], b[1], 0.5);
        let bc = lerp(b[1], b[2], 0.5);
        let cd = lerp(b[2], b[3], 0.5);
        let abc = lerp(ab, bc, 0.5);
        let bcd = lerp(bc, cd, 0.5);
        let m = lerp(abc, bcd, 0.5);
        let tm = (t0 + t1) * 0.5;
        rec([b[0], ab, abc, m], t0, tm, tol, depth + 1, out);
        rec([m, bcd, cd, b[3]], tm, t1, tol, depth + 1, out);
    }
    let mut out = Vec::new();
    rec(b, 0.0, 1.0, tol.max(1e-4), 0, &mut out);
    out
}

/// The nodes flattened: each side's cubic cut within [`TOLERANCE`], points and texture
/// coordinates. A closed ring's last side (back to the first node) is flattened too, and
/// the first point is not repeated at the end.
pub fn flatten(nodes: &[Node], closed: bool) -> (Vec<P2>, Vec<[f32; 2]>) {
    let mut pts = Vec::with_capacity(nodes.len() * 4);
    let mut sts = Vec::with_capacity(nodes.len() * 4);
    let n = nodes.len();
    if n == 0 {
        return (pts, sts);
    }
    pts.push(nodes[0].p);
    sts.push(nodes[0].st);
    let sides = if closed { n } else { n - 1 };
    for i in 0..sides {
        let (a, b) = (nodes[i], nodes[(i + 1) % n]);
        let bez = [a.p, a.hi.unwrap_or(a.p), b.lo.unwrap_or(b.p), b.p];
        let sbez = [a.st, a.st_hi.unwrap_or(a.st), b.st_lo.unwrap_or(b.st), b.st];
        let ts = if a.hi.is_none() && b.lo.is_none() {
            vec![1.0]
        } else {
            cut_parameters(bez, TOLERANCE)
        };
        for t in ts {
            pts.push(cubic(bez, t));
            sts.push(cubic(sbez, t));
        }
    }
    if closed {
        // The last side ends on the first point, which is already there.
        pts.pop();
        sts.pop();
    }
    (pts, sts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_plain_ring_stays_as_it_is() {
        let pts = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0]];
        let nodes = merge_runs(&pts, &pts, None, None, true);
        assert!(!is_curved(&nodes));
        assert_eq!(flatten(&nodes, true).0, pts.to_vec());
        assert_eq!(flatten(&nodes, false).0, pts.to_vec());
    }

    #[test]
    fn split_nodes_merge_without_loops() {
        // A corner at (10, 0) written as a split node: lo handle (8, 0) (mirror (12, 0)),
        // then (P, P), then hi handle (10, 2).
        let pts = [
            [0.0, 0.0],
            [10.0, 0.0],
            [10.0, 0.0],
            [10.0, 0.0],
            [10.0, 10.0],
        ];
        let ctrl = [
            [0.0, 0.0],
            [12.0, 0.0],
            [10.0, 0.0],
            [10.0, 2.0],
            [10.0, 10.0],
        ];
        let nodes = merge_runs(&pts, &ctrl, None, None, false);
        assert_eq!(nodes.len(), 3);
        assert_eq!(nodes[1].lo, Some([8.0, 0.0]));
        assert_eq!(nodes[1].hi, Some([10.0, 2.0]));
        let (flat, _) = flatten(&nodes, false);
        // Every point stays within the two legs' box: no loop past the corner.
        assert!(
            flat.iter().all(|p| p[0] <= 10.0 + 1e-4 && p[1] >= -1e-4),
            "{flat:?}"
        );
    }

    #[test]
    fn a_closed_ring_folds_its_repeated_first_node() {
        let pts = [[0.0, 0.0], [0.0, 0.0], [10.0, 0.0], [0.0, 0.0]];
        let ctrl = [[0.0, 0.0], [2.0, -2.0], [10.0, 0.0], [2.0, 2.0]];
        let nodes = merge_runs(&pts, &ctrl, None, None, true);
        assert_eq!(nodes.len(), 2);
        assert_eq!(nodes[0].hi, Some([2.0, -2.0]));
        assert_eq!(nodes[0].lo, Some([-2.0, -2.0]));
    }

    proptest! {
        /// Every flattened point lies on the cubic, and every point of the cubic lies within
        /// the tolerance of the polyline.
        #[test]
        fn flattening_follows_the_cubic(
            c in prop::array::uniform8(-200.0f32..200.0),
        ) {
            let b = [[c[0], c[1]], [c[2], c[3]], [c[4], c[5]], [c[6], c[7]]];
            let nodes = [
                Node { p: b[0], lo: None, hi: Some(b[1]), st: [0.0; 2], st_lo: None, st_hi: None },
                Node { p: b[3], lo: Some(b[2]), hi: None, st: [0.0; 2], st_lo: None, st_hi: None },
            ];
            let (line, _) = flatten(&nodes, false);
            prop_assert_eq!(line[0], b[0]);
            prop_assert_eq!(*line.last().unwrap(), b[3]);
            for k in 0..=200 {
                let p = cubic(b, k as f32 / 200.0);
                let d = line
                    .windows(2)
                    .map(|s| off_chord(p, s[0], s[1]))
                    .fold(f32::INFINITY, f32::min);
                prop_assert!(d <= TOLERANCE * 1.01 + 1e-3, "{} m off at t = {}", d, k as f32 / 200.0);
            }
        }
    }
}
