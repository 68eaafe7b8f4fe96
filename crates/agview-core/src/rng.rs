//! The one seeded random generator the layout and the resolver use: SplitMix64. Small, fast,
//! and stable across versions of everything, so the same seed gives the same layout (and
//! screenshot) forever.

/// A SplitMix64 generator.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    #[inline]
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x5851_F42D_4C95_7F2D)
    }

    /// A generator for a sub-stream (e.g. one per block), independent of draw order elsewhere.
    #[inline]
    pub fn fork(&self, stream: u64) -> Rng {
        let mut r = Rng(self.0 ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next_u64();
        r
    }

    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    #[inline]
    pub fn f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[0, n)`; 0 when `n` is 0.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * n as f64) as usize % n
    }

    #[inline]
    pub fn u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// An index drawn with the given non-negative weights; `None` when they sum to zero.
    #[inline]
    pub fn weighted(&mut self, weights: &[f32]) -> Option<usize> {
        self.weighted_by(weights.iter().copied())
    }

    /// [`Rng::weighted`] over weights given as an iterator (walked twice), so a caller
    /// need not collect them: the same draw for the same weights.
    pub fn weighted_by<I: Iterator<Item = f32> + Clone>(&mut self, weights: I) -> Option<usize> {
        let total: f64 = weights.clone().map(|w| f64::from(w.max(0.0))).sum();
        if total <= 0.0 {
            return None;
        }
        let mut x = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
        let mut last_positive = None;
        for (i, w) in weights.enumerate() {
            let w = f64::from(w.max(0.0));
            if w > 0.0 {
                last_positive = Some(i);
            }
            if x < w {
                return Some(i);
            }
            x -= w;
        }
        last_positive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let a: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(Rng::new(7).next_u64(), Rng::new(8).next_u64());
    }

    #[test]
    fn weighted_follows_weights() {
        let mut r = Rng::new(1);
        let mut counts = [0usize; 3];
        for _ in 0..30_000 {
            counts[r.weighted(&[1.0, 0.0, 3.0]).unwrap()] += 1;
        }
        assert_eq!(counts[1], 0);
        let ratio = counts[2] as f64 / counts[0] as f64;
        assert!((ratio - 3.0).abs() < 0.2, "{counts:?}");
        assert_eq!(r.weighted(&[0.0, 0.0]), None);
    }

    #[test]
    fn ranges() {
        let mut r = Rng::new(3);
        for _ in 0..1000 {
            let f = r.f32();
            assert!((0.0..1.0).contains(&f));
            assert!(r.below(7) < 7);
        }
        assert_eq!(r.below(0), 0);
    }
}
