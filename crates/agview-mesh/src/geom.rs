//! Plane geometry for building meshes on the CPU: half-plane clipping, convex pieces of a
//! polygon, triangulation. Points are `[f32; 2]` meters.

pub type P = [f32; 2];

/// Twice the signed area; positive for counter-clockwise.
pub(crate) use agview_core::geom::signed_area2;

fn cross(o: P, a: P, b: P) -> f32 {
    (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
}

/// A half-plane `a·x + b·y + c >= 0`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HalfPlane {
    pub a: f32,
    pub b: f32,
    pub c: f32,
}

impl HalfPlane {
    /// The half-plane left of the directed line `p → q`.
    pub(crate) fn left_of(p: P, q: P) -> Self {
        let a = -(q[1] - p[1]);
        let b = q[0] - p[0];
        HalfPlane {
            a,
            b,
            c: -(a * p[0] + b * p[1]),
        }
    }

    fn eval(&self, p: P) -> f32 {
        self.a * p[0] + self.b * p[1] + self.c
    }
}

/// Clips a convex polygon by a half-plane (Sutherland–Hodgman step) into `out`.
pub(crate) fn clip_half_plane(poly: &[P], h: HalfPlane, out: &mut Vec<P>) {
    out.clear();
    let n = poly.len();
    if n == 0 {
        return;
    }
    for i in 0..n {
        let p = poly[i];
        let q = poly[(i + 1) % n];
        let (dp, dq) = (h.eval(p), h.eval(q));
        if dp >= 0.0 {
            push_distinct(out, p);
        }
        if (dp >= 0.0) != (dq >= 0.0) {
            let t = dp / (dp - dq);
            push_distinct(out, [p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t]);
        }
    }
    while out.len() > 1 && same(out[0], out[out.len() - 1]) {
        out.pop();
    }
    if out.len() < 3 {
        out.clear();
    }
}

/// Appends a point unless it repeats the last one (a vertex on the clip line would
/// otherwise appear twice and make zero-area triangles).
fn push_distinct(out: &mut Vec<P>, p: P) {
    if out.last().is_none_or(|q| !same(*q, p)) {
        out.push(p);
    }
}

/// Clips `poly` (convex) by every half-plane in turn; empty when nothing is left.
#[cfg(test)]
fn clip_convex(poly: &[P], planes: &[HalfPlane]) -> Vec<P> {
    let mut cur = Vec::new();
    let mut next = Vec::with_capacity(poly.len() + planes.len());
    clip_into(poly, planes, &mut cur, &mut next);
    cur
}

/// [`clip_convex`] into `out`, with `tmp` as scratch: no allocation once both have grown.
pub(crate) fn clip_into(poly: &[P], planes: &[HalfPlane], out: &mut Vec<P>, tmp: &mut Vec<P>) {
    out.clear();
    out.extend_from_slice(poly);
    for h in planes {
        clip_half_plane(out, *h, tmp);
        std::mem::swap(out, tmp);
        if out.is_empty() {
            break;
        }
    }
}

/// The half-planes whose intersection is a convex, counter-clockwise polygon.
pub(crate) fn planes_of(convex_ccw: &[P]) -> Vec<HalfPlane> {
    let n = convex_ccw.len();
    (0..n)
        .map(|i| HalfPlane::left_of(convex_ccw[i], convex_ccw[(i + 1) % n]))
        .collect()
}

/// The polygon with repeated and non-finite points removed and turned counter-clockwise;
/// `None` when fewer than three points or no area remain.
pub(crate) fn normalized(poly: &[P]) -> Option<Vec<P>> {
    let mut pts: Vec<P> = Vec::with_capacity(poly.len());
    for p in poly {
        if !(p[0].is_finite() && p[1].is_finite()) {
            continue;
        }
        if pts.last().is_some_and(|q| same(*q, *p)) {
            continue;
        }
        pts.push(*p);
    }
    while pts.len() > 1 && same(pts[0], pts[pts.len() - 1]) {
        pts.pop();
    }
    if pts.len() < 3 {
        return None;
    }
    let area = signed_area2(&pts);
    if area.abs() < 1e-6 {
        return None;
    }
    if area < 0.0 {
        pts.reverse();
    }
    Some(pts)
}

fn same(a: P, b: P) -> bool {
    (a[0] - b[0]).abs() < 1e-5 && (a[1] - b[1]).abs() < 1e-5
}

/// Whether a counter-clockwise polygon is convex.
pub(crate) fn is_convex(ccw: &[P]) -> bool {
    let n = ccw.len();
    (0..n).all(|i| cross(ccw[i], ccw[(i + 1) % n], ccw[(i + 2) % n]) >= -1e-6)
}

/// Convex pieces covering a polygon: itself when convex, else its triangles.
pub(crate) fn convex_pieces(poly: &[P]) -> Vec<Vec<P>> {
    let Some(ccw) = normalized(poly) else {
        return Vec::new();
    };
    if is_convex(&ccw) {
        return vec![ccw];
    }
    triangulate(&ccw)
        .into_iter()
        .map(|[a, b, c]| vec![ccw[a], ccw[b], ccw[c]])
        .collect()
}

/// The triangles of a simple polygon (either orientation), counter-clockwise index
/// triples: the workspace's one triangulator ([`agview_core::geom::triangulate`]), with the
/// ring turned counter-clockwise first. A polygon that is not simple gets earcut's best
/// effort.
pub(crate) fn triangulate(poly: &[P]) -> Vec<[usize; 3]> {
    if poly.len() < 3 {
        return Vec::new();
    }
    let mut ring = poly.to_vec();
    let turned = signed_area2(poly) < 0.0;
    if turned {
        ring.reverse();
    }
    let n = poly.len();
    let index = |i: u32| {
        if turned {
            n - 1 - i as usize
        } else {
            i as usize
        }
    };
    agview_core::geom::triangulate(&[&ring])
        .into_iter()
        .map(|[a, b, c]| [index(a), index(b), index(c)])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(poly: &[P]) -> f32 {
        signed_area2(poly).abs() * 0.5
    }

    #[test]
    fn clipping_a_square_by_a_half_plane() {
        let sq = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
        // Keep x <= 1: west of a line running north.
        let h = HalfPlane::left_of([1.0, 0.0], [1.0, 2.0]);
        let out = clip_convex(&sq, &[h]);
        assert!((area(&out) - 2.0).abs() < 1e-5, "{out:?}");
        assert!(out.iter().all(|p| p[0] <= 1.0 + 1e-6));
        // Entirely outside.
        let h = HalfPlane::left_of([5.0, 2.0], [5.0, 0.0]);
        let g = HalfPlane::left_of([3.0, 0.0], [3.0, 2.0]);
        assert!(clip_convex(&sq, &[h, g]).is_empty());
    }

    #[test]
    fn triangulation_covers_a_concave_polygon() {
        // An L shape, clockwise.
        let l = [
            [0.0, 0.0],
            [0.0, 2.0],
            [1.0, 2.0],
            [1.0, 1.0],
            [2.0, 1.0],
            [2.0, 0.0],
        ];
        let tris = triangulate(&l);
        assert_eq!(tris.len(), 4);
        let total: f32 = tris
            .iter()
            .map(|t| area(&[l[t[0]], l[t[1]], l[t[2]]]))
            .sum();
        assert!((total - 3.0).abs() < 1e-5);
        for t in &tris {
            assert!(cross(l[t[0]], l[t[1]], l[t[2]]) > 0.0);
        }
        let pieces = convex_pieces(&l);
        assert_eq!(pieces.len(), 4);
    }

    #[test]
    fn normalizing_drops_junk() {
        assert!(normalized(&[[0.0, 0.0], [1.0, 0.0]]).is_none());
        assert!(normalized(&[[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]]).is_none());
        let p = normalized(&[
            [0.0, 0.0],
            [0.0, 1.0],
            [0.0, 1.0],
            [f32::NAN, 3.0],
            [1.0, 0.0],
            [0.0, 0.0],
        ])
        .unwrap();
        assert_eq!(p.len(), 3);
        assert!(signed_area2(&p) > 0.0);
        assert!(is_convex(&p));
    }

    #[test]
    fn self_intersecting_input_terminates() {
        let bow = [[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]];
        let _ = triangulate(&bow);
        let _ = convex_pieces(&bow);
    }
}
