//! Choosing among rules: the priority tiers of corners and spellings, and the best-fit
//! search along a side.
//!
//! **Best fit** ("X-Plane randomly selects spellings to fill the edges with the best fit it
//! can find"). At each place along a side the candidates are the spellings of the highest
//! `PRIORITY_MARKER` tier that has one that can be placed there: it fits in what is left of
//! the side and meets its `ATOMIC_SPELLING` conditions (the length of the segment where it
//! starts; the group of the tile placed before it). Among the sequences those candidates
//! allow, the layout takes one that leaves the least unfilled length, drawn with the seed
//! among all that do equally well. [`Plan`] finds, for every length left and every kind of
//! tile placed before, the most a sequence can fill: a table over the free stretch cut into
//! quanta, filled from the end (dynamic programming). The quantum is the largest common
//! measure of the spellings' lengths (whole centimetres), but at least 1/[`MAX_PLAN`] of the
//! stretch, so a side costs at most `MAX_PLAN × classes × spellings` steps however long it
//! is: linear in its length, and exact whenever the spellings' lengths are multiples of that
//! quantum (20, 25 and 30 m spellings on a 45 m side: 20 + 25 or 25 + 20, never 30 and a
//! 15 m gap). Otherwise lengths are rounded to the quantum, and a sequence that would run
//! past the end is refused when it is placed and the next best one taken. "Classes" are the
//! kinds of previous tile the `ATOMIC_SPELLING` groups tell apart (at most one per tile).

use crate::layout::rng::Rng;

/// At most this many quanta in one side's best-fit table.
pub(crate) const MAX_PLAN: usize = 512;

/// A spelling as the best-fit search sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spelling {
    /// Index into the asset's spellings.
    pub index: usize,
    /// Meters.
    pub len: f32,
    pub tier: u32,
    /// `ATOMIC_SPELLING`: the segment length range, and the group bit the previous tile's
    /// class must have (`None`: group 0, or the group is not told apart).
    pub atomic: Option<([f32; 2], Option<u32>)>,
    /// The class of its last tile (what it leaves as "the previous tile").
    pub class_after: usize,
}

/// The largest common measure of the spellings' lengths, in whole centimetres (at least
/// 1 cm): the quantum under which the best-fit table is exact.
pub(crate) fn quantum(spellings: &[Spelling]) -> f32 {
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let cm = spellings
        .iter()
        .map(|s| (f64::from(s.len) * 100.0).round().clamp(1.0, 1e12) as u64)
        .fold(0, gcd)
        .max(1);
    cm as f32 / 100.0
}

/// Whether a spelling may follow a tile of class mask `mask`.
fn group_ok(sp: &Spelling, mask: u64) -> bool {
    match sp.atomic {
        Some((_, Some(bit))) => mask & (1u64 << bit) != 0,
        _ => true,
    }
}

fn within(r: [f32; 2], v: f32) -> bool {
    v >= r[0].min(r[1]) - 1e-3 && v <= r[0].max(r[1]) + 1e-3
}

/// One side's best-fit table (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The quantum, meters.
    pub q: f32,
    /// Quanta in the stretch.
    pub n: usize,
    /// Each spelling's length in quanta.
    units: Vec<u32>,
    /// `best[c * (n + 1) + r]`: quanta a sequence can fill of the last `r`, after a tile of
    /// class `c`.
    best: Vec<u32>,
    /// Segment length at `r` quanta from the end (only when some spelling needs it).
    seg: Vec<f32>,
}

impl Plan {
    /// Fills the table for a stretch `len` meters long. `masks[c]` is class `c`'s group
    /// bits; `segment(r)` the length of the side's segment `r` quanta before the end.
    pub fn build(
        &mut self,
        spellings: &[Spelling],
        masks: &[u64],
        quantum: f32,
        len: f32,
        mut segment: impl FnMut(f32) -> f32,
    ) {
        let q = quantum.max(len / MAX_PLAN as f32).max(1e-3);
        // What fits within the tolerance counts as fitting, here as when placing.
        let n = ((len + FIT_TOLERANCE) / q).floor().max(0.0) as usize;
        self.q = q;
        self.n = n;
        self.units.clear();
        self.units.extend(
            spellings
                .iter()
                .map(|s| ((s.len / q).round() as u32).max(1)),
        );
        self.seg.clear();
        if spellings.iter().any(|s| s.atomic.is_some()) {
            self.seg.extend((0..=n).map(|r| segment(r as f32 * q)));
        }
        let classes = masks.len().max(1);
        self.best.clear();
        self.best.resize(classes * (n + 1), 0);
        for r in 1..=n {
            for (c, &mask) in masks.iter().enumerate() {
                let mut tier = u32::MAX;
                let mut value = 0;
                for (sp, &l) in spellings.iter().zip(&self.units) {
                    if l as usize > r || sp.tier > tier {
                        continue;
                    }
                    if let Some((range, _)) = sp.atomic {
                        if !within(range, self.seg[r]) || !group_ok(sp, mask) {
                            continue;
                        }
                    }
                    let v = l + self.best[sp.class_after * (n + 1) + r - l as usize];
                    if sp.tier < tier {
                        tier = sp.tier;
                        value = v;
                    } else {
                        value = value.max(v);
                    }
                }
                self.best[c * (n + 1) + r] = value;
            }
        }
    }

    /// Quanta in `rem` meters (at most the table's).
    pub(crate) fn quanta(&self, rem: f32) -> usize {
        (((rem + FIT_TOLERANCE) / self.q).floor().max(0.0) as usize).min(self.n)
    }

    /// How many quanta the best sequence starting with spelling `k` fills of the last `r`.
    pub fn value(&self, k: usize, sp: &Spelling, r: usize) -> Option<u32> {
        let l = *self.units.get(k)? as usize;
        if l > r {
            return None;
        }
        Some(l as u32 + self.best.get(sp.class_after * (self.n + 1) + r - l)?)
    }
}

/// The spelling to place next, as a position in `spellings`: among those `allowed` (they fit
/// what is left and meet their conditions there), the highest tier; in it, those whose best
/// sequence fills the most of the last `r` quanta; among equals, drawn with the seed.
pub fn pick(
    plan: &Plan,
    spellings: &[Spelling],
    r: usize,
    mut allowed: impl FnMut(&Spelling) -> bool,
    rng: &mut Rng,
) -> Option<usize> {
    let mut tier = u32::MAX;
    let mut best = 0u32;
    let mut ties = 0usize;
    let mut chosen = None;
    for (k, sp) in spellings.iter().enumerate() {
        if sp.tier > tier || !allowed(sp) {
            continue;
        }
        let v = plan.value(k, sp, r).unwrap_or(0);
        if sp.tier < tier || v > best {
            tier = sp.tier;
            best = v;
            ties = 1;
            chosen = Some(k);
        } else if v == best {
            // Reservoir draw: each of the equals is kept with probability 1 / count.
            ties += 1;
            if rng.below(ties) == 0 {
                chosen = Some(k);
            }
        }
    }
    chosen
}

/// Lengths within this (meters) count as fitting and as equally good.
pub(crate) const FIT_TOLERANCE: f32 = 0.01;

/// Puts `rules` (`(rule, tier)`) in the order to try them: tier 0 first, each tier
/// shuffled with the seed (every rule of a tier equally likely to come first).
pub(crate) fn tier_order(rules: &mut [(usize, u32)], rng: &mut Rng) {
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

    fn sp(index: usize, len: f32, tier: u32) -> Spelling {
        Spelling {
            index,
            len,
            tier,
            atomic: None,
            class_after: 0,
        }
    }

    /// The sequence `pick` makes on an empty stretch of `len` meters.
    fn fill(spellings: &[Spelling], len: f32, seed: u64) -> Vec<usize> {
        let mut plan = Plan::default();
        plan.build(spellings, &[u64::MAX], quantum(spellings), len, |_| 0.0);
        let mut rng = Rng::new(seed);
        let mut rem = len;
        let mut out = Vec::new();
        while let Some(k) = pick(
            &plan,
            spellings,
            plan.quanta(rem),
            |s| s.len <= rem + FIT_TOLERANCE,
            &mut rng,
        ) {
            out.push(spellings[k].index);
            rem -= spellings[k].len;
        }
        out
    }

    #[test]
    fn a_side_some_combination_fills_is_filled_exactly() {
        // The example: 20, 25 and 30 m on 45 m give 20 + 25 or 25 + 20.
        let s = [sp(0, 20.0, 0), sp(1, 25.0, 0), sp(2, 30.0, 0)];
        let mut orders = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let seq = fill(&s, 45.0, seed);
            let total: f32 = seq.iter().map(|&i| s[i].len).sum();
            assert!((total - 45.0).abs() < 1e-3, "{seq:?}");
            orders.insert(seq);
        }
        assert_eq!(orders.len(), 2, "the seed varies the order: {orders:?}");
        // 100.3 m with 20 and 25: 100 (four 25s, or 20s and 25s), never less.
        for seed in 0..20 {
            let seq = fill(&s[..2], 100.3, seed);
            let total: f32 = seq.iter().map(|&i| s[i].len).sum();
            assert!((total - 100.0).abs() < 1e-3, "{seq:?}");
        }
    }

    #[test]
    fn tiers_are_kept_in_order_at_each_place() {
        // Tier 0 (14 m) wherever it fits; tier 1 (6 m) only for what is left after.
        let s = [sp(0, 14.0, 0), sp(1, 6.0, 1)];
        let seq = fill(&s, 90.0, 1);
        assert_eq!(seq, vec![0, 0, 0, 0, 0, 0, 1]);
        // Nothing fits: nothing placed.
        assert!(fill(&s, 5.0, 0).is_empty());
    }

    #[test]
    fn atomic_groups_constrain_the_search() {
        // Classes: 0 first (passes every group), 1 a tile outside group bit 0, 2 one in it.
        // Spelling 1 (atomic, 30 m) needs a previous tile in the group; both leave class 1.
        let mut s = [sp(0, 20.0, 0), sp(1, 30.0, 0)];
        s[0].class_after = 1;
        s[1].class_after = 1;
        s[1].atomic = Some(([0.0, 1000.0], Some(0)));
        let masks = [u64::MAX, 0, 1];
        let mut plan = Plan::default();
        plan.build(&s, &masks, 10.0, 30.0, |_| 100.0);
        assert_eq!(plan.n, 3);
        let at = |c: usize| plan.best[c * (plan.n + 1) + 3];
        assert_eq!((at(0), at(1), at(2)), (3, 2, 3));
        // The segment-length condition: a 50 m segment is outside 0..40.
        s[1].atomic = Some(([0.0, 40.0], None));
        plan.build(&s, &masks, 10.0, 30.0, |_| 50.0);
        assert_eq!(plan.best[3], 2);
    }

    proptest::proptest! {
        /// With whole-metre spellings of one tier, the fill is the longest sum of spelling
        /// lengths (with repeats) that fits the side: a brute-force knapsack agrees.
        #[test]
        fn the_fill_is_the_best_sum(
            lens in proptest::collection::vec(3u32..30, 1..5),
            side in 10.0f32..200.0,
            seed in 0u64..1000,
        ) {
            let s: Vec<Spelling> = lens.iter().enumerate().map(|(i, &l)| sp(i, l as f32, 0)).collect();
            let seq = fill(&s, side, seed);
            let total: u32 = seq.iter().map(|&i| lens[i]).sum();
            // Within the tolerance a spelling counts as fitting.
            let cap = (side + FIT_TOLERANCE).floor() as usize;
            let mut reach = vec![false; cap + 1];
            reach[0] = true;
            for x in 1..=cap {
                reach[x] = lens.iter().any(|&l| l as usize <= x && reach[x - l as usize]);
            }
            let best = (0..=cap).rev().find(|&x| reach[x]).unwrap_or(0) as u32;
            proptest::prop_assert_eq!(total, best, "{:?} on {}", seq, side);
        }
    }

    #[test]
    fn the_table_stays_bounded() {
        let s = [sp(0, 13.37, 0), sp(1, 20.0, 0)];
        let mut plan = Plan::default();
        plan.build(&s, &[u64::MAX], 0.01, 100_000.0, |_| 0.0);
        assert!(plan.n <= MAX_PLAN);
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
