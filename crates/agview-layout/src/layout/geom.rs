//! Small 2-D geometry the layout needs: points in meters (`[f32; 2]`, x east, y north).

pub type P2 = [f32; 2];

pub fn add(a: P2, b: P2) -> P2 {
    [a[0] + b[0], a[1] + b[1]]
}
pub fn sub(a: P2, b: P2) -> P2 {
    [a[0] - b[0], a[1] - b[1]]
}
pub fn scale(a: P2, s: f32) -> P2 {
    [a[0] * s, a[1] * s]
}
pub fn dot(a: P2, b: P2) -> f32 {
    a[0] * b[0] + a[1] * b[1]
}
pub fn cross(a: P2, b: P2) -> f32 {
    a[0] * b[1] - a[1] * b[0]
}
pub fn len(a: P2) -> f32 {
    dot(a, a).sqrt()
}
pub fn lerp(a: P2, b: P2, t: f32) -> P2 {
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
}

/// Rotates `v` clockwise by `deg` degrees (headings are clockwise from north).
pub(crate) fn rotate_cw(v: P2, deg: f32) -> P2 {
    let (s, c) = deg.to_radians().sin_cos();
    [v[0] * c + v[1] * s, -v[0] * s + v[1] * c]
}

/// Twice the signed area (positive counter-clockwise).
pub use agview_core::geom::signed_area2;

/// Normalises an angle to `(-180, 180]` degrees.
pub fn wrap_deg(a: f32) -> f32 {
    let mut a = a % 360.0;
    if a <= -180.0 {
        a += 360.0;
    } else if a > 180.0 {
        a -= 360.0;
    }
    a
}

/// Whether segments `ab` and `cd` cross (touching at shared end points does not count).
pub(crate) fn segments_cross(a: P2, b: P2, c: P2, d: P2) -> bool {
    let d1 = cross(sub(b, a), sub(c, a));
    let d2 = cross(sub(b, a), sub(d, a));
    let d3 = cross(sub(d, c), sub(a, c));
    let d4 = cross(sub(d, c), sub(b, c));
    (d1 * d2 < 0.0) && (d3 * d4 < 0.0)
}

/// Whether a closed ring crosses itself (any two non-adjacent edges cross).
pub(crate) fn self_intersects(ring: &[P2]) -> bool {
    let n = ring.len();
    for i in 0..n {
        for j in i + 1..n {
            if j == i + 1 || (i == 0 && j == n - 1) {
                continue;
            }
            if segments_cross(ring[i], ring[(i + 1) % n], ring[j], ring[(j + 1) % n]) {
                return true;
            }
        }
    }
    false
}

/// Point in polygon (even-odd over every ring: holes count).
pub(crate) fn point_in_rings(p: P2, rings: &[Vec<P2>]) -> bool {
    rings.iter().filter(|r| point_in_ring(p, r)).count() % 2 == 1
}

/// Even-odd point in one ring.
pub(crate) fn point_in_ring(p: P2, ring: &[P2]) -> bool {
    let mut inside = false;
    let mut j = ring.len().wrapping_sub(1);
    for (i, &a) in ring.iter().enumerate() {
        let b = ring[j];
        if (a[1] > p[1]) != (b[1] > p[1]) {
            let x = a[0] + (p[1] - a[1]) / (b[1] - a[1]) * (b[0] - a[0]);
            if p[0] < x {
                inside = !inside;
            }
        }
        j = i;
    }
    inside
}

/// Distance from `p` to the segment `ab`.
pub(crate) fn dist_to_segment(p: P2, a: P2, b: P2) -> f32 {
    let ab = sub(b, a);
    let l2 = dot(ab, ab);
    let t = if l2 > 0.0 {
        (dot(sub(p, a), ab) / l2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    len(sub(p, lerp(a, b, t)))
}

/// A local frame: an origin and two unit axes (`u` along, `v` to its left).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Frame {
    pub origin: P2,
    pub u: P2,
    pub v: P2,
}

impl Frame {
    /// The frame with `u` from `a` towards `b` and `v` to the left of it.
    pub fn along(a: P2, b: P2) -> Frame {
        let d = sub(b, a);
        let l = len(d).max(f32::MIN_POSITIVE);
        let u = scale(d, 1.0 / l);
        Frame {
            origin: a,
            u,
            v: [-u[1], u[0]],
        }
    }
    /// Local `(s, t)` to world.
    pub(crate) fn to_world(self, p: P2) -> P2 {
        add(self.origin, add(scale(self.u, p[0]), scale(self.v, p[1])))
    }
    /// World to local `(s, t)`.
    pub(crate) fn to_local(self, p: P2) -> P2 {
        let d = sub(p, self.origin);
        [dot(d, self.u), dot(d, self.v)]
    }
    /// The heading (degrees clockwise from north) of the local `+t` axis.
    pub(crate) fn up_heading(&self) -> f32 {
        self.v[0].atan2(self.v[1]).to_degrees()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clockwise_rotation() {
        let e = rotate_cw([0.0, 1.0], 90.0);
        assert!((e[0] - 1.0).abs() < 1e-6 && e[1].abs() < 1e-6);
    }

    #[test]
    fn frames_round_trip() {
        let f = Frame::along([1.0, 2.0], [4.0, 6.0]);
        let p = [3.0, -7.0];
        let q = f.to_world(f.to_local(p));
        assert!((p[0] - q[0]).abs() < 1e-5 && (p[1] - q[1]).abs() < 1e-5);
        assert!((Frame::along([0.0, 0.0], [1.0, 0.0]).up_heading()).abs() < 1e-5);
    }

    #[test]
    fn polygon_tests() {
        let sq = vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        assert!(signed_area2(&sq) > 0.0);
        assert!(!self_intersects(&sq));
        let bow = vec![[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]];
        assert!(self_intersects(&bow));
        assert!(point_in_rings([0.5, 0.5], std::slice::from_ref(&sq)));
        let hole = vec![[0.25, 0.25], [0.25, 0.75], [0.75, 0.75], [0.75, 0.25]];
        assert!(!point_in_rings([0.5, 0.5], &[sq, hole]));
    }
}
