//! From the polygon as given to the contours the layout walks: closed rings whose edges each
//! know whether they spawn tiles.
//!
//! The AGS spec's "DSF Usage": the windings of a DSF polygon are independent poly-lines
//! ("3 points in a contour sequence define two lines"); every winding is closed, "two adjacent
//! windings share and duplicate a vertex"; the spawning windings come first and the
//! parameter's low byte counts them. WED writes exactly this when only some sides of a string
//! spawn (xptools `WED_DSFExport.cpp`: the spawning runs of the outer ring first, then the
//! non-spawning runs, then the holes) and reads it back by joining windings at their shared
//! end points (`WED_DSFImport.cpp`, `EndPolygon`: a winding whose first point is the ring's
//! last is appended, one whose last point is the ring's first is prepended, and the duplicated
//! point is dropped). [`join`] does the same for every chain, not only the first.
//!
//! Rings (GeoJSON, `--rect`, the built-in polygon) are closed already: [`rings`] gives each
//! edge its flag from the GeoJSON `spawn` property, else from the low byte (the first N
//! rings spawn whole).

use std::borrow::Cow;

use super::contour::SAME_POINT;
use crate::layout::geom::{self, P2};

/// A contour before cleaning: its points (the closing edge from the last back to the first is
/// implied) and, for each point, whether the edge leaving it spawns tiles.
#[derive(Debug, Clone, PartialEq)]
pub struct RawContour<'a> {
    /// Borrowed from the input when it is a ring already.
    pub pts: Cow<'a, [P2]>,
    pub spawn: Vec<bool>,
    /// Windings only: the chain did not come back to its start; its closing edge was added
    /// (and spawns no tiles: no winding holds it).
    pub unclosed: bool,
    /// Windings only: the windings joined into it, by index.
    pub windings: Vec<usize>,
}

fn same(a: P2, b: P2) -> bool {
    let d = geom::sub(a, b);
    geom::dot(d, d) < SAME_POINT * SAME_POINT
}

/// Joins DSF windings into closed contours: winding `i` spawns tiles when `i < spawning`.
/// Each chain starts at the first winding not yet used and takes, while it is not closed, the
/// first unused winding that starts where it ends (appended) or ends where it starts
/// (prepended). Windings of fewer than two points hold no edge (WED writes a one-point
/// winding first when its ring's first edge does not spawn) and are left out. Chains are in
/// the order of their first winding; the one enclosing the largest area comes first (the
/// outer contour). Bounded by the square of the winding count.
pub fn join(windings: &[Vec<P2>], spawning: usize) -> Vec<RawContour<'static>> {
    let n = windings.len();
    let mut used: Vec<bool> = windings.iter().map(|w| w.len() < 2).collect();
    let mut out = Vec::new();
    for start in 0..n {
        if used[start] {
            continue;
        }
        used[start] = true;
        let w = &windings[start];
        let mut pts = w.clone();
        let mut spawn = vec![start < spawning; w.len() - 1];
        let mut members = vec![start];
        let mut closed = false;
        for _ in 0..n {
            let (first, last) = (pts[0], pts[pts.len() - 1]);
            if pts.len() >= 3 && same(first, last) {
                closed = true;
                break;
            }
            let next = (0..n).find(|&j| !used[j] && same(windings[j][0], last));
            if let Some(j) = next {
                used[j] = true;
                members.push(j);
                let wj = &windings[j];
                pts.pop();
                pts.extend_from_slice(wj);
                spawn.extend(std::iter::repeat_n(j < spawning, wj.len() - 1));
                continue;
            }
            let prev =
                (0..n).find(|&j| !used[j] && same(windings[j][windings[j].len() - 1], first));
            if let Some(j) = prev {
                used[j] = true;
                members.insert(0, j);
                let wj = &windings[j];
                let mut p = wj[..wj.len() - 1].to_vec();
                p.extend_from_slice(&pts);
                pts = p;
                let mut s = vec![j < spawning; wj.len() - 1];
                s.extend_from_slice(&spawn);
                spawn = s;
                continue;
            }
            break;
        }
        if closed {
            pts.pop();
        } else {
            spawn.push(false);
        }
        out.push(RawContour {
            pts: Cow::Owned(pts),
            spawn,
            unclosed: !closed,
            windings: members,
        });
    }
    // The outer contour first: the one enclosing the most area.
    let area = |c: &RawContour| {
        if c.pts.len() >= 3 {
            geom::signed_area2(&c.pts).abs()
        } else {
            0.0
        }
    };
    if let Some(k) = (0..out.len()).fold(None, |best: Option<usize>, k| match best {
        Some(b) if area(&out[b]) >= area(&out[k]) => Some(b),
        _ => Some(k),
    }) {
        let outer = out.remove(k);
        out.insert(0, outer);
    }
    out
}

/// Closed rings: ring `k`'s edges spawn as `spawn[k]` says (when given with one flag per
/// point), else all of them when `k < spawning`.
pub fn rings<'a>(
    rings: &'a [Vec<P2>],
    spawn: Option<&[Vec<bool>]>,
    spawning: usize,
) -> Vec<RawContour<'a>> {
    rings
        .iter()
        .enumerate()
        .map(|(k, r)| RawContour {
            pts: Cow::Borrowed(&r[..]),
            spawn: match spawn.and_then(|s| s.get(k)).filter(|f| f.len() == r.len()) {
                Some(f) => f.clone(),
                None => vec![k < spawning; r.len()],
            },
            unclosed: false,
            windings: Vec::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partly_spawning_block_joins_into_one_ring() {
        // The example: (SW→SE), then (SE→NE→NW→SW), low byte 1.
        let sw = [0.0, 0.0];
        let se = [100.0, 0.0];
        let ne = [100.0, 60.0];
        let nw = [0.0, 60.0];
        let c = join(&[vec![sw, se], vec![se, ne, nw, sw]], 1);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].pts, vec![sw, se, ne, nw]);
        assert_eq!(c[0].spawn, vec![true, false, false, false]);
        assert!(!c[0].unclosed);
    }

    #[test]
    fn wed_export_forms_join_back() {
        // What WED writes for a ring whose first edge does not spawn: a one-point winding,
        // the spawning run, the non-spawning run (see `format::wed::export`).
        let p = [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]];
        let w = vec![
            vec![p[0]],
            vec![p[2], p[3], p[0]],
            vec![p[0], p[1], p[2]],
            vec![[4.0, 4.0], [4.0, 6.0], [6.0, 6.0], [6.0, 4.0]],
        ];
        let c = join(&w, 2);
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].pts, vec![p[2], p[3], p[0], p[1]]);
        assert_eq!(c[0].spawn, vec![true, true, false, false]);
        assert_eq!(c[0].windings, vec![1, 2]);
        // The hole is written open and does not spawn: closed with a non-spawning edge.
        assert!(c[1].unclosed);
        assert_eq!(c[1].spawn, vec![false; 4]);
        // All spawning: one winding repeating its first point.
        let all = join(&[vec![p[0], p[1], p[2], p[3], p[0]]], 1);
        assert_eq!(all[0].spawn, vec![true; 4]);
        assert!(!all[0].unclosed);
    }

    #[test]
    fn the_largest_chain_is_the_outer_contour() {
        let hole = vec![[4.0, 4.0], [4.0, 6.0], [6.0, 6.0], [6.0, 4.0], [4.0, 4.0]];
        let outer = vec![
            [0.0, 0.0],
            [10.0, 0.0],
            [10.0, 10.0],
            [0.0, 10.0],
            [0.0, 0.0],
        ];
        let c = join(&[hole.clone(), outer.clone()], 1);
        assert_eq!(c[0].pts, outer[..4].to_vec());
        assert_eq!(c[0].spawn, vec![false; 4]);
        assert_eq!(c[1].spawn, vec![true; 4]);
    }

    #[test]
    fn rings_take_flags_or_the_count() {
        let r = vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]];
        let two = [r.clone(), r.clone()];
        let c = rings(&two, None, 1);
        assert_eq!(
            (c[0].spawn.clone(), c[1].spawn.clone()),
            (vec![true; 3], vec![false; 3])
        );
        let flags = vec![vec![false, true, false], vec![true, true, true]];
        let c = rings(&two, Some(&flags), 0);
        assert_eq!(c[0].spawn, flags[0]);
        assert_eq!(c[1].spawn, flags[1]);
    }
}
