//! Choosing among rules: the priority tiers of corners and spellings, and the best-fit
//! spelling picker.

use crate::layout::rng::Rng;

/// Lengths within this (meters) count as fitting and as equally good.
pub const FIT_TOLERANCE: f32 = 0.01;

/// An edge spelling that may come next: its index (into the asset's spellings), its length
/// in meters and its priority tier (0 first).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub index: usize,
    pub len: f32,
    pub tier: u32,
}

/// Picks the next spelling for a side with `rem` meters left, following WED's facade
/// picker: while even the longest candidate fits, any candidate of the first tier that has
/// one is drawn with equal probability (the side fills with variety); once the longest no
/// longer fits, the candidate that lands closest to the end without passing it wins, taken
/// from the first tier that has a fitting one (ties within [`FIT_TOLERANCE`] drawn with the
/// seed). Returns a position in `cands`; `None` when nothing fits.
pub fn choose(cands: &[Candidate], rem: f32, rng: &mut Rng) -> Option<usize> {
    let fits = |c: &Candidate| c.len <= rem + FIT_TOLERANCE;
    let longest = cands
        .iter()
        .map(|c| c.len)
        .fold(f32::NEG_INFINITY, f32::max);
    let tier = cands.iter().filter(|c| fits(c)).map(|c| c.tier).min()?;
    let in_tier = |c: &Candidate| c.tier == tier && fits(c);
    let least = if longest <= rem + FIT_TOLERANCE {
        f32::NEG_INFINITY
    } else {
        let best = cands
            .iter()
            .filter(|c| in_tier(c))
            .map(|c| c.len)
            .fold(f32::NEG_INFINITY, f32::max);
        best - FIT_TOLERANCE
    };
    let pool = |c: &&Candidate| in_tier(c) && c.len >= least;
    let n = cands.iter().filter(pool).count();
    let k = rng.below(n);
    cands
        .iter()
        .enumerate()
        .filter(|(_, c)| pool(c))
        .nth(k)
        .map(|(i, _)| i)
}

/// Puts `rules` (`(rule, tier)`) in the order to try them: tier 0 first, each tier
/// shuffled with the seed (every rule of a tier equally likely to come first).
pub fn tier_order(rules: &mut [(usize, u32)], rng: &mut Rng) {
    rules.sort_unstable_by_key(|&(i, t)| (t, i));
    let mut start = 0;
    while start < rules.len() {
        let tier = rules[start].1;
        let end = start + rules[start..].iter().take_while(|r| r.1 == tier).count();
        // Fisher-Yates within the tier.
        for i in (start + 1..end).rev() {
            let j = start + rng.below(i - start + 1);
            rules.swap(i, j);
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(index: usize, len: f32, tier: u32) -> Candidate {
        Candidate { index, len, tier }
    }

    #[test]
    fn closest_fit_from_the_first_tier_that_fits() {
        let mut rng = Rng::new(1);
        let cands = [c(0, 50.0, 0), c(1, 32.0, 0), c(2, 40.0, 1), c(3, 10.0, 1)];
        // 45 m: the longest (50) does not fit; tier 0 has 32 → it wins over tier 1's 40.
        assert_eq!(choose(&cands, 45.0, &mut rng), Some(1));
        // 20 m: nothing in tier 0 fits; tier 1's closest is 10.
        assert_eq!(choose(&cands, 20.0, &mut rng), Some(3));
        assert_eq!(choose(&cands, 5.0, &mut rng), None);
        assert_eq!(choose(&[], 5.0, &mut rng), None);
    }

    #[test]
    fn long_sides_draw_evenly_within_the_first_tier() {
        let mut rng = Rng::new(2);
        let cands = [c(0, 10.0, 0), c(1, 20.0, 0), c(2, 5.0, 1)];
        let mut seen = [0; 3];
        for _ in 0..3000 {
            seen[choose(&cands, 100.0, &mut rng).unwrap()] += 1;
        }
        assert_eq!(seen[2], 0, "tier 1 is a backup");
        assert!(seen[0] > 1300 && seen[1] > 1300, "{seen:?}");
    }

    #[test]
    fn tiers_come_in_order_and_shuffle_within() {
        let rules = [(0, 1), (1, 0), (2, 0), (3, 1), (4, 0)];
        let mut firsts = [0; 5];
        for seed in 0..600 {
            let mut o = rules;
            tier_order(&mut o, &mut Rng::new(seed));
            let tiers: Vec<u32> = o.iter().map(|r| r.1).collect();
            assert_eq!(tiers, vec![0, 0, 0, 1, 1]);
            let mut ids: Vec<usize> = o.iter().map(|r| r.0).collect();
            ids.sort_unstable();
            assert_eq!(ids, vec![0, 1, 2, 3, 4]);
            firsts[o[0].0] += 1;
        }
        assert!(
            firsts[1] > 150 && firsts[2] > 150 && firsts[4] > 150,
            "{firsts:?}"
        );
    }
}
