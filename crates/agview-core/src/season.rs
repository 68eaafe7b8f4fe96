//! The seasons of X-Plane 12: the words `spr`, `sum`, `fal` and `win` of a `library.txt`'s
//! `EXPORT*_SEASON` lists (XP12.md §2.1), the season a load resolves library paths in
//! (`--season`), and the one the `Scene` names.
//!
//! One place for the words, so the reader, the command line, the JSON and the window agree.

use serde::Serialize;

/// One of X-Plane 12's four seasons, named by the word a season list writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
pub enum Season {
    #[serde(rename = "spr")]
    Spring,
    /// The default: what WED shows, and what agview showed before it knew seasons.
    #[default]
    #[serde(rename = "sum")]
    Summer,
    #[serde(rename = "fal")]
    Fall,
    #[serde(rename = "win")]
    Winter,
}

/// A set of seasons, one [`Season::bit`] each.
pub type SeasonMask = u8;

/// Every season's bit.
pub const ALL_SEASONS: SeasonMask = 0b1111;

impl Season {
    /// Every season, in the year's order.
    pub const ALL: [Season; 4] = [Season::Spring, Season::Summer, Season::Fall, Season::Winter];

    /// The word a season list writes (`spr`, `sum`, `fal`, `win`).
    pub fn word(self) -> &'static str {
        match self {
            Season::Spring => "spr",
            Season::Summer => "sum",
            Season::Fall => "fal",
            Season::Winter => "win",
        }
    }

    /// The season a word names, exactly as `library.txt` writes it (lower case).
    pub fn from_word(word: &str) -> Option<Season> {
        Season::ALL.into_iter().find(|s| s.word() == word)
    }

    /// Its bit in a [`SeasonMask`].
    pub fn bit(self) -> SeasonMask {
        1 << self as u8
    }

    /// The season after this one (winter is followed by spring): the viewer's `N` key.
    pub fn next(self) -> Season {
        Season::ALL[(self as usize + 1) % 4]
    }

    /// The seasons of `mask`, in the year's order.
    pub fn of_mask(mask: SeasonMask) -> impl Iterator<Item = Season> {
        Season::ALL.into_iter().filter(move |s| mask & s.bit() != 0)
    }
}

/// The seasons of `mask` as a list joined by `sep` (`spr, sum`; `spr,sum`).
pub fn mask_words(mask: SeasonMask, sep: &str) -> String {
    Season::of_mask(mask)
        .map(Season::word)
        .collect::<Vec<_>>()
        .join(sep)
}

impl std::fmt::Display for Season {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

impl std::str::FromStr for Season {
    type Err = String;

    fn from_str(s: &str) -> Result<Season, String> {
        Season::from_word(s)
            .ok_or_else(|| format!("unknown season `{s}` (expected spr, sum, fal or win)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_bits_and_order() {
        for s in Season::ALL {
            assert_eq!(Season::from_word(s.word()), Some(s));
            assert_eq!(s.word().parse::<Season>(), Ok(s));
        }
        assert_eq!(Season::from_word("Sum"), None);
        assert!("winter".parse::<Season>().unwrap_err().contains("spr, sum"));
        assert_eq!(Season::default(), Season::Summer);
        assert_eq!(Season::Winter.next(), Season::Spring);
        let mask = Season::Spring.bit() | Season::Fall.bit();
        assert_eq!(mask_words(mask, ", "), "spr, fal");
        assert_eq!(mask_words(ALL_SEASONS, ","), "spr,sum,fal,win");
        assert_eq!(serde_json::to_string(&Season::Winter).unwrap(), "\"win\"");
    }
}
