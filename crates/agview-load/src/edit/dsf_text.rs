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
//! (`autogen_windings`, in agview-format; `input::dsf_polygon` applies it); every other polygon gets one winding per ring, as edited.

use std::path::Path;

use super::{EditedShape, SaveError, Shape};
use crate::format::dsf;
pub use crate::format::wed::autogen_windings as wed_ags_windings;
pub use crate::input::{autogen_param, dsf_polygon};
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

/// Whether a polygon is an `.ags`: its definition's name, else the asset's.
pub fn is_ags(def: Option<&str>, asset: &str) -> bool {
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
        let (windings, param) = dsf_polygon(rings, shape, poly.param, ags);

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
