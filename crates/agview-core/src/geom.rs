//! Plane geometry every layer shares. Points are `[f32; 2]` meters.

/// Twice the signed area of a ring: positive when it runs counter-clockwise.
#[inline]
pub fn signed_area2(pts: &[[f32; 2]]) -> f32 {
    let n = pts.len();
    (0..n)
        .map(|i| {
            let (a, b) = (pts[i], pts[(i + 1) % n]);
            a[0] * b[1] - b[0] * a[1]
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_clockwise_is_positive_and_twice_the_area() {
        let square = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]];
        assert_eq!(signed_area2(&square), 8.0);
        let mut cw = square;
        cw.reverse();
        assert_eq!(signed_area2(&cw), -8.0);
        assert_eq!(signed_area2(&[]), 0.0);
    }
}
