//! Tree heights: each tree of a forest gets a height seeded within the `TREE` range its
//! pick chooses ([`crate::format::forest::choose`], the rule the renderer draws it with).
//!
//! The fraction of the range comes from the tree's own `pick` through a mixing function, not
//! from the layout's random stream: adding heights moves no tree and changes no other
//! choice, and the same tree gets the same height in every run.

use crate::format::forest::{choose, ForestFacts};
use crate::scene::TreeInstance;

/// Gives every tree of forest `forest` (an index into the scene's forests) that has no height
/// yet one seeded within its `TREE`'s range. Trees whose range is empty or invalid keep none
/// (they are drawn at the picture's own size).
pub fn seed_heights(trees: &mut [TreeInstance], forest: u32, facts: &ForestFacts) {
    for t in trees
        .iter_mut()
        .filter(|t| t.forest == forest && t.height <= 0.0)
    {
        let Some((_, [lo, hi])) = choose(&facts.heights, |h| h.0, t.layer, t.pick) else {
            continue;
        };
        let (lo, hi) = (lo.min(*hi), lo.max(*hi));
        if !(lo.is_finite() && hi.is_finite() && hi > 0.0) {
            continue;
        }
        let h = lo.max(0.0) + (hi - lo.max(0.0)) * unit(t.pick);
        t.height = (h * 100.0).round() / 100.0;
    }
}

/// A number in `[0, 1)` from `pick` (splitmix64's finaliser), independent of `pick`'s low
/// bits, which choose the tree.
fn unit(pick: u32) -> f32 {
    let mut z = u64::from(pick).wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z >> 40) as f32 / (1u64 << 24) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(layer: i32, pick: u32) -> TreeInstance {
        TreeInstance {
            layer,
            pick,
            ..TreeInstance::default()
        }
    }

    #[test]
    fn heights_fall_within_the_chosen_trees_range_and_are_seeded() {
        let facts = ForestFacts {
            spacing: [8.0, 8.0],
            heights: vec![(0, [6.0, 9.0]), (0, [12.0, 20.0]), (2, [3.0, 4.0])],
        };
        let mut trees: Vec<TreeInstance> = (0..200).map(|i| tree(i % 3, i as u32 * 7919)).collect();
        seed_heights(&mut trees, 0, &facts);
        for t in &trees {
            let range = choose(&facts.heights, |h| h.0, t.layer, t.pick).unwrap().1;
            assert!(
                t.height >= range[0] - 0.01 && t.height <= range[1] + 0.01,
                "{t:?}"
            );
        }
        // Layer 1 has no tree of its own: any tree, as the renderer picks.
        assert!(trees
            .iter()
            .filter(|t| t.layer == 1)
            .all(|t| t.height > 0.0));
        // Spread over the range, the same every run.
        let tall: Vec<f32> = trees
            .iter()
            .filter(|t| t.height > 12.0)
            .map(|t| t.height)
            .collect();
        assert!(tall.iter().any(|&h| h < 14.0) && tall.iter().any(|&h| h > 18.0));
        let mut again: Vec<TreeInstance> = (0..200).map(|i| tree(i % 3, i as u32 * 7919)).collect();
        seed_heights(&mut again, 0, &facts);
        assert_eq!(again, trees);
    }

    #[test]
    fn own_heights_other_forests_and_empty_ranges_are_left_alone() {
        let facts = ForestFacts {
            spacing: [8.0, 8.0],
            heights: vec![(0, [0.0, 0.0])],
        };
        let mut trees = vec![
            TreeInstance {
                height: 7.5,
                ..tree(0, 1)
            },
            TreeInstance {
                forest: 1,
                ..tree(0, 2)
            },
            tree(0, 3),
        ];
        seed_heights(&mut trees, 0, &facts);
        assert_eq!(trees[0].height, 7.5);
        assert_eq!(trees[1].height, 0.0);
        assert_eq!(trees[2].height, 0.0);
    }
}
