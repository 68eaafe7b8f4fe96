//! WED's windings for an autogen placement (`.agb` or `.ags`), the one rule agview writes
//! them by: the WED reader's export (`export.rs`), the viewer's save of an edited shape and
//! its panel's contour count all call [`autogen_windings`].
//!
//! From xptools `src/WEDImportExport/WED_DSFExport.cpp` ("AUTOGEN STRING EXPORTER") and
//! `src/WEDCore/WED_GISUtils.cpp` (`WED_PolygonWithHolesForPolygon` on `Polygon2p`, which
//! turns a ring by reversing its segments and swapping each one's ends, so each edge keeps
//! its spawn flag): see `docs/spec-decisions.md`, "Editing features inside documents".

use agview_core::geom::signed_area2;

/// WED's windings for an autogen string (`WED_DSFExport.cpp`, "AUTOGEN STRING EXPORTER";
/// `docs/spec-decisions.md`, "Edit mode: saving"), from rings in (lon, lat) and one spawn
/// flag per edge (edge i from point i to i + 1): the outer ring is made counter-clockwise,
/// each edge keeping its flag (`WED_PolygonForPointSequence` on segments), and split where
/// the flag changes; the spawning runs come first, then the non-spawning runs, each ending on
/// the next run's first point and the last closed on the ring's first point (so a ring that
/// spawns whole is one winding that repeats its first point, and one whose first edge does
/// not spawn starts with a one-point winding, counted). Holes are clockwise and written
/// whole, not closed, after every run. Returns the windings and the number of spawning ones
/// (the parameter's low byte, before its clamp to 255).
///
/// WED's holes never spawn. A hole with a spawning edge (which only agview's editor can
/// make) is split like the outer ring, starting at a spawning run: its spawning runs follow
/// the outer ring's, its other runs the outer ring's other runs.
pub fn autogen_windings(
    rings: &[Vec<[f64; 2]>],
    spawn: &[Vec<bool>],
) -> (Vec<Vec<[f64; 2]>>, usize) {
    let mut spawning: Vec<Vec<[f64; 2]>> = Vec::new();
    let mut others: Vec<Vec<[f64; 2]>> = Vec::new();
    let mut whole_holes: Vec<Vec<[f64; 2]>> = Vec::new();
    for (k, ring) in rings.iter().enumerate() {
        if ring.is_empty() {
            continue;
        }
        let flags: Vec<bool> = (0..ring.len())
            .map(|i| {
                spawn
                    .get(k)
                    .and_then(|f| f.get(i))
                    .copied()
                    .unwrap_or(k == 0)
            })
            .collect();
        let (pts, flags) = oriented(ring, &flags, k == 0);
        if k > 0 && !flags.iter().any(|f| *f) {
            whole_holes.push(pts);
            continue;
        }
        // A hole starts at the first edge of a spawning run, so it needs no one-point
        // winding; the outer ring starts where it starts, as in WED.
        let start = if k == 0 {
            0
        } else {
            let n = flags.len();
            (0..n)
                .find(|&i| flags[i] && !flags[(i + n - 1) % n])
                .unwrap_or(0)
        };
        let n = pts.len();
        let pts: Vec<[f64; 2]> = (0..n).map(|i| pts[(start + i) % n]).collect();
        let flags: Vec<bool> = (0..n).map(|i| flags[(start + i) % n]).collect();
        let (mut sp, mut other) = split_runs(&pts, &flags);
        spawning.append(&mut sp);
        others.append(&mut other);
    }
    let n_spawning = spawning.len();
    let mut windings = spawning;
    windings.extend(others);
    windings.extend(whole_holes);
    (windings, n_spawning)
}

/// The ring (and its flags) turned counter-clockwise (`ccw`) or clockwise as WED turns a
/// ring of segments: the segments reversed, each keeping its flag, so point order becomes
/// p0, p(n-1), …, p1.
fn oriented(ring: &[[f64; 2]], flags: &[bool], ccw: bool) -> (Vec<[f64; 2]>, Vec<bool>) {
    let area = signed_area2(ring);
    if (area > 0.0) == ccw {
        return (ring.to_vec(), flags.to_vec());
    }
    let n = ring.len();
    let pts = (0..n).map(|k| ring[(n - k) % n]).collect();
    let f = (0..n).map(|k| flags[n - 1 - k]).collect();
    (pts, f)
}

/// WED's walk over one ring: spawning runs and non-spawning runs (see [`autogen_windings`]).
#[allow(clippy::type_complexity)]
fn split_runs(pts: &[[f64; 2]], flags: &[bool]) -> (Vec<Vec<[f64; 2]>>, Vec<Vec<[f64; 2]>>) {
    let mut spawning: Vec<Vec<[f64; 2]>> = vec![Vec::new()];
    let mut others: Vec<Vec<[f64; 2]>> = Vec::new();
    let mut last = true;
    for (p, &f) in pts.iter().zip(flags) {
        let run = if last {
            spawning.last_mut()
        } else {
            others.last_mut()
        };
        if let Some(run) = run {
            run.push(*p);
        }
        if f != last {
            if last {
                others.push(vec![*p]);
            } else {
                spawning.push(vec![*p]);
            }
            last = f;
        }
    }
    let run = if last {
        spawning.last_mut()
    } else {
        others.last_mut()
    };
    if let (Some(run), Some(first)) = (run, pts.first()) {
        run.push(*first);
    }
    (spawning, others)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQ: [[f64; 2]; 4] = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];

    #[test]
    fn a_ring_that_spawns_whole_is_one_closed_winding() {
        let (w, n) = autogen_windings(&[SQ.to_vec()], &[vec![true; 4]]);
        assert_eq!(n, 1);
        assert_eq!(w, vec![vec![SQ[0], SQ[1], SQ[2], SQ[3], SQ[0]]]);
    }

    #[test]
    fn runs_split_where_the_flag_changes() {
        let (w, n) = autogen_windings(&[SQ.to_vec()], &[vec![true, false, true, true]]);
        assert_eq!(n, 2);
        assert_eq!(
            w,
            vec![
                vec![SQ[0], SQ[1]],
                vec![SQ[2], SQ[3], SQ[0]],
                vec![SQ[1], SQ[2]]
            ]
        );
    }

    #[test]
    fn a_first_edge_that_does_not_spawn_gives_a_one_point_winding() {
        let (w, n) = autogen_windings(&[SQ.to_vec()], &[vec![false, true, true, true]]);
        assert_eq!(n, 2);
        assert_eq!(
            w,
            vec![
                vec![SQ[0]],
                vec![SQ[1], SQ[2], SQ[3], SQ[0]],
                vec![SQ[0], SQ[1]]
            ]
        );
        let (w, n) = autogen_windings(&[SQ.to_vec()], &[vec![false; 4]]);
        assert_eq!(n, 1);
        assert_eq!(
            w,
            vec![vec![SQ[0]], vec![SQ[0], SQ[1], SQ[2], SQ[3], SQ[0]]]
        );
    }

    #[test]
    fn a_clockwise_outer_ring_is_turned_keeping_each_edges_flag() {
        // Clockwise: (0,0) → (0,1) → (1,1) → (1,0); only the edge (0,1)–(1,1) spawns.
        let cw = vec![SQ[0], SQ[3], SQ[2], SQ[1]];
        let (w, n) = autogen_windings(&[cw], &[vec![false, true, false, false]]);
        // Turned: (0,0) (1,0) (1,1) (0,1); the spawning edge is now (1,1) → (0,1), edge 2.
        assert_eq!(n, 2);
        assert_eq!(
            w,
            vec![
                vec![SQ[0]],
                vec![SQ[2], SQ[3]],
                vec![SQ[0], SQ[1], SQ[2]],
                vec![SQ[3], SQ[0]]
            ]
        );
    }

    #[test]
    fn holes_are_clockwise_whole_and_last() {
        let hole_ccw = vec![[0.2, 0.2], [0.4, 0.2], [0.4, 0.4]];
        let (w, n) = autogen_windings(
            &[SQ.to_vec(), hole_ccw.clone()],
            &[vec![true; 4], vec![false; 3]],
        );
        assert_eq!(n, 1);
        assert_eq!(w[1], vec![[0.2, 0.2], [0.4, 0.4], [0.4, 0.2]]);
    }
}
