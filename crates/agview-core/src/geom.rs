//! Plane geometry every layer shares: the signed area and the triangulator. Points are
//! `[f32; 2]` meters, except where a reader keeps doubles (WED's degrees, AGN's meters);
//! [`signed_area2`] takes both.

use std::iter::Sum;
use std::ops::{Mul, Sub};

/// Twice the signed area of a ring: positive when it runs counter-clockwise.
///
/// The shoelace sum, for `[f32; 2]` and `[f64; 2]` points alike: one term per edge,
/// `a.x·b.y − b.x·a.y`, added in ring order from the first point, so every caller gets the
/// same bits for the same ring.
#[inline]
pub fn signed_area2<T>(pts: &[[T; 2]]) -> T
where
    T: Copy + Mul<Output = T> + Sub<Output = T> + Sum,
{
    let n = pts.len();
    (0..n)
        .map(|i| {
            let (a, b) = (pts[i], pts[(i + 1) % n]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum()
}

/// The triangles of a polygon with holes (`rings[0]` the outer ring, the rest holes),
/// counter-clockwise, as index triples into the rings' points taken in order: the one
/// triangulator of every layer (earcut, which gives a best effort on a ring that crosses
/// itself rather than failing). The rings keep the orientation they are given: a caller that
/// needs the outer ring counter-clockwise and the holes clockwise turns them first.
pub fn triangulate(rings: &[&[[f32; 2]]]) -> Vec<[u32; 3]> {
    let mut holes: Vec<u32> = Vec::with_capacity(rings.len().saturating_sub(1));
    let mut flat: Vec<[f32; 2]> = Vec::new();
    for (i, ring) in rings.iter().enumerate() {
        if i > 0 {
            holes.push(flat.len() as u32);
        }
        flat.extend_from_slice(ring);
    }
    let mut indices: Vec<u32> = Vec::new();
    earcut::Earcut::new().earcut(flat.iter().copied(), &holes, &mut indices);
    indices
        .chunks_exact(3)
        .map(|t| {
            // earcut gives clockwise triangles in a y-up frame: turn them.
            let (a, b, c) = (
                flat[t[0] as usize],
                flat[t[1] as usize],
                flat[t[2] as usize],
            );
            if signed_area2(&[a, b, c]) < 0.0 {
                [t[0], t[2], t[1]]
            } else {
                [t[0], t[1], t[2]]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_clockwise_is_positive_and_twice_the_area() {
        let square = [[0.0f32, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
        assert_eq!(signed_area2(&square), 8.0);
        let mut cw = square;
        cw.reverse();
        assert_eq!(signed_area2(&cw), -8.0);
        assert_eq!(signed_area2::<f32>(&[]), 0.0);
    }

    #[test]
    fn doubles_follow_the_same_rule() {
        let square = [[0.0f64, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
        assert_eq!(signed_area2(&square), 8.0);
        let mut cw = square;
        cw.reverse();
        assert_eq!(signed_area2(&cw), -8.0);
        // Summed edge by edge in ring order: the bits match the hand-written loop.
        let ring = [[0.1f64, 0.7], [3.3, -0.2], [2.9, 4.1], [-1.7, 2.2]];
        let n = ring.len();
        let mut by_hand = 0.0f64;
        for i in 0..n {
            let (a, b) = (ring[i], ring[(i + 1) % n]);
            by_hand += a[0] * b[1] - b[0] * a[1];
        }
        assert_eq!(signed_area2(&ring).to_bits(), by_hand.to_bits());
    }
}
