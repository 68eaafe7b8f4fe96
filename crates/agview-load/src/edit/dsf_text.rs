//! Writing one polygon or object of a DSF text file back.
//!
//! Only the edited feature's lines change: a polygon's `BEGIN_POLYGON` parameter (the rest
//! of that line is kept byte for byte) and the lines between it and its `END_POLYGON`
//! (its windings, written anew); an object's longitude, latitude and heading on its
//! `OBJECT` line. Every other line keeps its bytes and its line end (`\n`, `\r\n` or `\r`);
//! the new lines take the `BEGIN_POLYGON` line's end and the indentation of the lines they
//! replace. Numbers are written as DSFTool writes them (`%.9lf` for coordinates, `%.3lf` for
//! a heading).
//!
//! An `.ags`'s windings follow its spawn flags as WED's exporter writes them
//! ([`wed_ags_windings`]); every other polygon gets one winding per ring, as edited.

use std::path::Path;

use agview_core::geom::signed_area2;

use super::{EditedShape, SaveError, Shape};
use crate::format::dsf;
use crate::lines::{find_line_end, line_end_len};

/// One line of the file: its bytes `[start, end)` without the line end, which runs to `next`.
#[derive(Debug, Clone, Copy)]
struct RawLine {
    start: usize,
    end: usize,
    next: usize,
}

fn raw_lines(src: &[u8]) -> Vec<RawLine> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < src.len() {
        let rest = &src[pos..];
        let len = find_line_end(rest);
        let next = pos + len + line_end_len(&rest[len..]);
        out.push(RawLine {
            start: pos,
            end: pos + len,
            next,
        });
        pos = next;
    }
    out
}

/// The whitespace-separated words of a line with their byte ranges.
fn words(line: &[u8], base: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < line.len() {
        while i < line.len() && matches!(line[i], b' ' | b'\t') {
            i += 1;
        }
        let s = i;
        while i < line.len() && !matches!(line[i], b' ' | b'\t') {
            i += 1;
        }
        if i > s {
            out.push((base + s, base + i));
        }
    }
    out
}

fn indent(line: &[u8]) -> &[u8] {
    let n = line
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count();
    &line[..n]
}

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
pub fn wed_ags_windings(
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

/// WED's walk over one ring: spawning runs and non-spawning runs (see [`wed_ags_windings`]).
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

/// WED's autogen parameter: `clamp(intround(height / 4), 0, 255) << 8 | low` (`intround`
/// rounds half up), `low` clamped to 0..=255.
pub fn autogen_param(height_m: f32, low: u32) -> u32 {
    let high = (f64::from(height_m) * 0.25 + 0.5).floor().clamp(0.0, 255.0) as u32;
    high << 8 | low.min(255)
}

fn is_ags(def: Option<&str>, asset: &str) -> bool {
    let ends = |s: &str| s.trim().to_ascii_lowercase().ends_with(".ags");
    def.map_or_else(|| ends(asset), ends)
}

/// The file `src` with the polygon or object on line `line` given `shape`.
pub(super) fn rewrite(
    path: &Path,
    src: &[u8],
    line: usize,
    shape: &EditedShape,
    asset: &str,
) -> Result<Vec<u8>, SaveError> {
    let file = dsf::parse(path, src, &mut Vec::new()).map_err(|d| {
        SaveError(format!(
            "the file does not read as DSF text any more ({d}); nothing was written"
        ))
    })?;
    let lines = raw_lines(src);
    let at = |n: usize| lines.get(n.wrapping_sub(1)).copied();
    let changed = || {
        SaveError(format!(
            "line {line} is not a BEGIN_POLYGON or OBJECT line any more; was the file changed \
             on disk?"
        ))
    };
    let mut out = Vec::with_capacity(src.len() + 1024);
    if let Some(poly) = file.polygons.iter().find(|p| p.line as usize == line) {
        let Shape::Polygon(rings) = &shape.geometry else {
            return Err(SaveError(format!(
                "line {line} begins a polygon: the edited point cannot replace it"
            )));
        };
        if poly.coord_depth != 2 {
            return Err(SaveError(format!(
                "the polygon on line {line} has {} coordinates per point (curves or texture \
                 coordinates); agview writes back only plain polygons: use \"Save as GeoJSON\"",
                poly.coord_depth
            )));
        }
        let begin = at(line).ok_or_else(changed)?;
        // Its END_POLYGON: the first line after it that starts with the keyword.
        let end_no = (line + 1..=lines.len())
            .find(|&n| {
                at(n).is_some_and(|l| {
                    let w = words(&src[l.start..l.end], 0);
                    w.first().map(|(s, e)| &src[l.start + s..l.start + e]) == Some(b"END_POLYGON")
                })
            })
            .ok_or_else(changed)?;
        let inner: Vec<RawLine> = (line + 1..end_no).filter_map(at).collect();
        let first_with = |kw: &[u8]| {
            inner.iter().find_map(|l| {
                let text = &src[l.start..l.end];
                let w = words(text, 0);
                (w.first().map(|(s, e)| &text[*s..*e]) == Some(kw)).then(|| indent(text).to_vec())
            })
        };
        let w_indent = first_with(b"BEGIN_WINDING").unwrap_or_default();
        let p_indent = first_with(b"POLYGON_POINT").unwrap_or_default();
        let eol = &src[begin.end..begin.next];
        let eol: &[u8] = if eol.is_empty() { b"\n" } else { eol };

        let ags = is_ags(file.polygon_def_path(poly), asset);
        let old = shape.param.unwrap_or(poly.param);
        let (windings, low) = if ags {
            let flags = match &shape.spawn {
                Some(f) => f.clone(),
                // No flags: ring k spawns whole when k is below the low byte, as the layout
                // reads rings without flags.
                None => rings
                    .iter()
                    .enumerate()
                    .map(|(k, r)| vec![(k as u32) < (old & 0xFF); r.len()])
                    .collect(),
            };
            let (w, n) = wed_ags_windings(rings, &flags);
            (w, n as u32)
        } else {
            (rings.clone(), old & 0xFF)
        };
        let param = match shape.height {
            Some(h) => autogen_param(h, low),
            None => (old & 0xFF00) | low.min(255),
        };

        // BEGIN_POLYGON def param …: the parameter replaced, the rest kept.
        let w = words(&src[begin.start..begin.end], begin.start);
        let &(ps, pe) = w.get(2).ok_or_else(changed)?;
        out.extend_from_slice(&src[..ps]);
        out.extend_from_slice(param.to_string().as_bytes());
        out.extend_from_slice(&src[pe..begin.next]);
        for wd in &windings {
            out.extend_from_slice(&w_indent);
            out.extend_from_slice(b"BEGIN_WINDING");
            out.extend_from_slice(eol);
            for p in wd {
                out.extend_from_slice(&p_indent);
                out.extend_from_slice(format!("POLYGON_POINT {:.9} {:.9}", p[0], p[1]).as_bytes());
                out.extend_from_slice(eol);
            }
            out.extend_from_slice(&w_indent);
            out.extend_from_slice(b"END_WINDING");
            out.extend_from_slice(eol);
        }
        let end = at(end_no).ok_or_else(changed)?;
        out.extend_from_slice(&src[end.start..]);
    } else if let Some(obj) = file.objects.iter().find(|o| o.line as usize == line) {
        let Shape::Point { lon, lat, heading } = shape.geometry else {
            return Err(SaveError(format!(
                "line {line} places an object: the edited polygon cannot replace it"
            )));
        };
        let l = at(line).ok_or_else(changed)?;
        let w = words(&src[l.start..l.end], l.start);
        let h = if obj.elevation.is_some() { 5 } else { 4 };
        let (Some(&lo), Some(&la), Some(&he)) = (w.get(2), w.get(3), w.get(h)) else {
            return Err(changed());
        };
        let heading = heading.rem_euclid(360.0);
        out.extend_from_slice(&src[..lo.0]);
        out.extend_from_slice(format!("{lon:.9}").as_bytes());
        out.extend_from_slice(&src[lo.1..la.0]);
        out.extend_from_slice(format!("{lat:.9}").as_bytes());
        out.extend_from_slice(&src[la.1..he.0]);
        out.extend_from_slice(format!("{heading:.3}").as_bytes());
        out.extend_from_slice(&src[he.1..]);
    } else {
        return Err(changed());
    }
    dsf::parse(path, &out, &mut Vec::new()).map_err(|d| {
        SaveError(format!(
            "the file agview would write does not read back ({d}); nothing was written"
        ))
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SQ: [[f64; 2]; 4] = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];

    #[test]
    fn a_ring_that_spawns_whole_is_one_closed_winding() {
        let (w, n) = wed_ags_windings(&[SQ.to_vec()], &[vec![true; 4]]);
        assert_eq!(n, 1);
        assert_eq!(w, vec![vec![SQ[0], SQ[1], SQ[2], SQ[3], SQ[0]]]);
    }

    #[test]
    fn runs_split_where_the_flag_changes() {
        let (w, n) = wed_ags_windings(&[SQ.to_vec()], &[vec![true, false, true, true]]);
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
        let (w, n) = wed_ags_windings(&[SQ.to_vec()], &[vec![false, true, true, true]]);
        assert_eq!(n, 2);
        assert_eq!(
            w,
            vec![
                vec![SQ[0]],
                vec![SQ[1], SQ[2], SQ[3], SQ[0]],
                vec![SQ[0], SQ[1]]
            ]
        );
        let (w, n) = wed_ags_windings(&[SQ.to_vec()], &[vec![false; 4]]);
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
        let (w, n) = wed_ags_windings(&[cw], &[vec![false, true, false, false]]);
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
        let (w, n) = wed_ags_windings(
            &[SQ.to_vec(), hole_ccw.clone()],
            &[vec![true; 4], vec![false; 3]],
        );
        assert_eq!(n, 1);
        assert_eq!(w[1], vec![[0.2, 0.2], [0.4, 0.4], [0.4, 0.2]]);
    }

    #[test]
    fn param_is_wed_s() {
        assert_eq!(
            autogen_param(10.0, 3),
            (3 << 8) | 3,
            "10 m rounds half up to 12 m"
        );
        assert_eq!(autogen_param(5000.0, 300), (255 << 8) | 255);
        assert_eq!(autogen_param(-4.0, 0), 0);
    }
}
