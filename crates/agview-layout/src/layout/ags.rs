//! Autogen string layout: tiles along the contours of a polygon, corners first, then edge
//! spellings, then caps, then trees in what is left.
//!
//! The steps follow the AGS spec:
//! 1. **Contours** (see [`join`]). A DSF polygon's windings are poly-lines; adjacent ones
//!    share a duplicated end point, and the first N (the parameter's low byte) spawn tiles.
//!    They are joined into closed contours at those shared points, as WED's importer joins
//!    them, and every edge keeps whether it spawns. Rings (GeoJSON, `--rect`) are closed
//!    already; their edges spawn as the GeoJSON `spawn` property says, else the first N
//!    rings spawn whole. The outer contour (counter-clockwise) comes first, then the holes
//!    (clockwise), in local meters; the high byte is the height / 4 (scrapers use it).
//! 2. **Corners.** Walking each contour in its vertex order (the polygon's interior on the
//!    left), a vertex is a corner when the heading turns by more than the crease angle (left
//!    turns, which are negative, against the left crease; right turns, positive, against
//!    the right one). A side is a run of spawning edges from a corner, or from where
//!    spawning starts, to the next corner or to where it stops. Corner rules are tried at
//!    the corners between two spawning edges, tier by tier (`PRIORITY_MARKER_CORNER`), in a
//!    seeded shuffle within a tier.
//! 3. **Edges.** What is left of each side between its corners' tiles is filled with
//!    spellings by the best fit (see [`spell`]): at each place the highest tier that has a
//!    spelling that can go there, and among the sequences those allow one that leaves the
//!    least unfilled length, drawn with the seed among equals.
//! 4. **Caps** cover the end of the last tile of each side.
//! 5. **Fill.** `FILL_LAYER` trees over the interior outside every tile and every hole, at
//!    the forest's `SPACING` (`LayoutInput::forest_spacing`, else 8 m): rows at that
//!    spacing, each row moved by a seeded jitter and every other one by half a spacing, each
//!    tree jittered along its row; at most [`MAX_FILL_TREES`] (the spacing grows, with a
//!    warning). Trees therefore stand in (jittered, staggered) rows: a row is one scanline.
//!    Jittering each tree off its row too, with the exact test that then needs, cost 17–22 %
//!    of the whole layout on [`bench_polygons`], so it is not done.
//!
//! **Stop points** decide where a tile goes, as the spec says, and nothing else does: a
//! tile's stop points must lie inside the polygon (a hole is outside), and it must not cover
//! a stop point placed before it (one on its edge, within [`COVER_EPS`], is not covered, so
//! tiles with stop points at their ends abut). An edge tile whose stop point is outside
//! slides forward along its side in [`SLIDE_STEP`] steps, then back by halves to within
//! 2 cm of where its stop points come inside (an atomic spelling moves in whole steps); one
//! that covers an earlier stop
//! point slides forward just to it; at most [`MAX_SLIDES`] moves, never past the side's free
//! length, else it is skipped (an atomic spelling slides and is skipped whole). Corner tiles
//! and caps do not slide. A tile that crosses the boundary or a hole with no stop point to
//! stop it is placed, as X-Plane would place it, and marked `crosses` (drawn in a warning
//! colour by the `edges` overlay). Holes keep out fill trees and stop points, not tiles.
//!
//! Decisions where the spec leaves room (to be collected in `docs/spec-decisions.md`; the
//! tests named are in `src/layout/ags/tests.rs`):
//! - **Tile frame.** Texture +s runs along the contour in its walking direction, texture +t
//!   into the interior; the tile's bottom edge (its `TILE` bottom) lies on the contour.
//!   `ROTATION`, `ANCHOR_PT` and `--convention` do not apply to string tiles (the contour
//!   places them); `CROP_POLY` does. Test: `check_spec` in every layout test.
//! - **Across bends** under the crease angle a tile is a chord: it starts where the previous
//!   tile ended and ends on the side where the side is its width away, so both bottom
//!   corners lie on the contour and tiles are contiguous. Within one segment this is the
//!   segment itself. Where the side's vertices poke into the tile from below (right bends on
//!   an outer contour), the band up to the highest such vertex is not counted as crossing
//!   the contour (it is road edge), up to [`BEND_BAND`] of the tile's depth; deeper, the
//!   tile is marked `crosses`. Test: `spellings_fill_by_priority_and_best_fit` (a
//!   90-segment circle).
//! - **A one-tile corner** has its bottom edge on the line of the segment arriving at the
//!   corner. At a convex corner (left turn) it ends at the corner vertex (its bottom-right
//!   on the vertex, its right edge along the next side at a square corner); at a reflex
//!   corner (right turn) it starts at the vertex and fills the pocket the two sides leave.
//!   Test: `one_tile_corners_end_at_convex_vertices_and_fill_reflex_pockets`.
//! - **A three-tile corner** (preceding, middle, trailing): the preceding tile's bottom on
//!   the arriving segment's line, the trailing tile's bottom on the leaving segment's line,
//!   the middle turned by half the turn, each tile's `PIVOT_LEAD_PT` on the next one's
//!   `PIVOT_TRAIL_PT` (defaults: bottom-right and bottom-left). This fixes the chain.
//!   `CORNER_ORDER` sets the placement (and drawing) order; default middle, preceding,
//!   trailing. Test: `articulated_corners_join_at_pivots_with_equal_turns`.
//! - **What a corner takes from its sides:** the farthest any of its tiles reaches along
//!   the arriving side (backwards) and along the leaving side; edges fill the rest.
//! - **Corner rules.** `CORNER_LEN`/`ATOMIC_SPELLING_CORNER` lengths are the single segments
//!   arriving at and leaving the corner. `CORNER_PAIR` needs the next corner of the contour
//!   (not one wrapped around to the start) and takes as its length the single segment
//!   leaving the first corner (as `CORNER_LEN` measures a side); with one tile (or a
//!   three-tile corner) the same tiles go at both corners, with two tiles the first goes at
//!   the first corner and the second at the second. The group condition looks at the tiles
//!   of the previous corner placed on the same contour (any of them in the group); the
//!   first corner placed on a contour passes it. A corner rule that places no tile (all of
//!   them stopped by stop points) counts as not placed and the next rule is tried; an
//!   atomic one is tried whole. A one-tile corner sharper than 90° is placed though it
//!   pokes out of the polygon (marked `crosses`). Only corners between two spawning edges
//!   get corner tiles; where a spawning run meets a non-spawning edge the side simply ends
//!   (its cap goes there). Tests: `corner_groups_follow_the_previous_corner`,
//!   `corner_pairs_take_both_corners`, `atomic_corners_are_whole_or_replaced`.
//! - **Edge rules.** An `ATOMIC_SPELLING`'s side length is the single segment where the
//!   spelling starts; its group condition looks at the previous tile placed on the side
//!   (none yet: it passes). An atomic spelling that cannot be placed whole after sliding is
//!   removed from the candidates for that place and the next best one is taken (a plain
//!   spelling may slide past the obstacle); when only atomic spellings fit there and none
//!   can be placed, filling moves [`SKIP_STEP`] on: a blocked atomic spelling never ends
//!   the side. A plain spelling's tiles slide or are skipped one by one. Tests:
//!   `a_blocked_atomic_spelling_does_not_end_the_side`.
//! - **Stop points** block tiles of later placements, not the other tiles of their own
//!   corner or atomic spelling (which the author drew to overlap). Corner tiles do not
//!   slide: a corner is where it is. Tiles slide forward only (the side is filled in its
//!   walking order). Tests: `stop_points_make_tiles_slide_or_skip`,
//!   `stop_points_are_the_only_obstacle`.
//! - **Caps** go at the end of the last edge tile placed on a side (its bottom-right), drawn
//!   over it; a cap is drawn from `CAPS` with the seed, the next tried when it does not fit.
//!   `debug.caps` marks those ends. A side without edge tiles gets no cap.
//! - **`SHARE_Y`** applies to atomic spellings and to every three-tile corner (the spec's
//!   `CORNER_ORDER` says the first tile placed defines the shared ground point); the ground
//!   point of a tile is its `GROUND_PT`, else its centre. Test:
//!   `share_y_gives_an_atomic_spelling_one_ground_point`.
//! - **`HIDE_TILE`**: tiles are laid out (their annotations need them) and the scene says
//!   `hide_tiles`.
//! - **Spawning edges.** Without a DSF parameter (and without `spawn`) every edge spawns
//!   tiles; a low byte above the winding (or ring) count is a warning and all of them
//!   spawn. Windings are joined as [`join`] says; a chain of windings that does not come
//!   back to its start is closed by an edge that spawns no tiles (the spec's poly-lines: no
//!   winding holds that edge), with a warning when the chain spawns tiles (WED writes holes
//!   that way, which never spawn: no warning). The contour enclosing the largest area is
//!   the outer one. A copy of the first point at the end is dropped silently (the DSF way
//!   of closing), other repeated points and zero-width spikes with a warning; flags follow
//!   their edges through this cleaning and through reversal. A contour left with fewer
//!   than 3 points or no area is open: a warning and it is left out (an error for the outer
//!   contour). A wrong winding is reversed with a warning naming the contour. A hole whose
//!   area lies outside the outer contour is left out with a warning (a hole touching the
//!   outer contour, or starting on it, is still a hole). Contours that cross themselves or
//!   each other are an error. Without a polygon, [`default_polygon`] is used with a
//!   warning. Tests: `bad_polygons_warn_or_fail_cleanly`, `a_partly_spawning_block`,
//!   `holes_are_judged_by_their_area`.
//! - **Output.** Tiles are drawn corners first, then edges, then caps, each in placement
//!   order. A corner tile's `side` is the side that starts at its corner. `atomic` numbers
//!   the atomic placements (corners and spellings) from 0. `contour` indexes the joined
//!   contours, outer first. `corners` lists every corner of every contour with a spawning
//!   edge, with the rule's line where one was placed.
//!
//! Every loop is bounded: by the point or rule counts, by [`MAX_SLIDES`], by a step limit
//! per side, by [`MAX_TILES`] and [`MAX_FILL_TREES`].

mod contour;
mod corners;
mod edges;
mod fill;
mod index;
mod join;
mod spell;
#[cfg(test)]
mod tests;

use std::path::Path;

use crate::diag::Diagnostic;
use crate::format::autogen::{AnnotationKind, Autogen, CornerKind, StringRules};
use crate::scene::{CornerMark, Scene, Tile as SceneTile, TileRole, TreeInstance};

use super::geom::{self, Frame, P2};
use super::rng::Rng;
use super::{scene_for, Emit, LayoutInput, TileXf, DEFAULT_TREE_SPACING};
use contour::{Corner, Side, Sides};
use index::{Buckets, PolyIndex};
use spell::{Plan, Spelling, FIT_TOLERANCE};

/// A stop point this close (meters) to a tile's edge, or outside, is not covered by it:
/// tiles whose stop points are at their ends abut.
pub(crate) const COVER_EPS: f32 = 1e-3;
/// Up to this many stop points are tested one by one; more are looked up by cell.
const STOP_SCAN: usize = 64;
/// How far (meters) an edge tile whose stop point is outside the polygon slides forward per
/// try (a tile covering an earlier stop point slides just past it in one move).
pub(crate) const SLIDE_STEP: f32 = 0.25;
/// At most this many slides per tile or atomic spelling (20 m of steps).
pub(crate) const MAX_SLIDES: usize = 80;
/// How far (meters) filling moves on when every spelling that fits a place is an atomic one
/// that cannot be placed there.
pub(crate) const SKIP_STEP: f32 = 0.5;
/// At most this many tiles in one layout (a warning says when the limit is hit).
pub(crate) const MAX_TILES: usize = 100_000;
/// At most this many fill trees (the spacing grows to stay under it, with a warning).
pub(crate) const MAX_FILL_TREES: usize = 20_000;
/// The part of a tile's depth its own side's bends may poke into.
pub(crate) const BEND_BAND: f32 = 0.4;
/// Inset (meters) of the tested body of a tile from its quad.
const INSET: f32 = 0.02;
/// Spellings shorter than this (meters) cannot fill anything.
const MIN_SPELLING: f32 = 0.05;
/// Bound on the choices made along one side.
const MAX_STEPS_PER_SIDE: usize = 20_000;
/// Ends a list of indices.
const NONE: u32 = u32::MAX;
/// Tolerance (degrees or meters) on the ranges of corner rules.
const RANGE_TOLERANCE: f32 = 1e-3;

/// Lays out an `.ags` on `input.polygon` (or, with none, on [`default_polygon`]).
pub fn layout(ag: &Autogen, asset_path: &Path, input: &LayoutInput) -> Result<Scene, Diagnostic> {
    Ok(run(ag, asset_path, input)?.scene)
}

/// A built-in polygon for previews without one: an irregular town outline about 150 m
/// across, with a notch and gentle bends, around a lake (the hole, contour 1).
pub(crate) fn default_polygon() -> Vec<Vec<P2>> {
    vec![
        vec![
            [0.0, 0.0],
            [45.0, -4.0],
            [90.0, -2.0],
            [128.0, 6.0],
            [150.0, 30.0],
            [152.0, 70.0],
            [140.0, 108.0],
            [112.0, 132.0],
            [80.0, 138.0],
            [78.0, 116.0],
            [58.0, 114.0],
            [56.0, 138.0],
            [20.0, 134.0],
            [-4.0, 110.0],
            [-10.0, 70.0],
            [-6.0, 30.0],
        ],
        vec![
            [70.0, 40.0],
            [52.0, 46.0],
            [46.0, 62.0],
            [54.0, 80.0],
            [72.0, 86.0],
            [90.0, 80.0],
            [98.0, 64.0],
            [92.0, 48.0],
        ],
    ]
}

/// Polygons for timing the layout: `n` towns of 20 to 200 vertices in all, drawn from
/// `seed`. Each has an outer contour (counter-clockwise, 60 to 120 m in radius) with 4 to 8
/// real corners, whose sides bow in or out by up to 8 % of their length and are cut into
/// short segments that bend under the crease angle (±0.3 m of jitter), and one clockwise
/// lake hole of about a fifth of the vertices in the middle. Valid by construction: the
/// outer contour is star-shaped around the lake and stays well clear of it.
pub fn bench_polygons(n: usize, seed: u64) -> Vec<Vec<Vec<[f32; 2]>>> {
    let tau = std::f32::consts::TAU;
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let total = 20 + rng.below(181);
            let lake = (total / 5).max(6);
            let outer_n = total - lake;
            let r = 60.0 + rng.f32() * 60.0;
            let k = 4 + rng.below(5);
            let main: Vec<P2> = (0..k)
                .map(|i| {
                    let a = (i as f32 + rng.f32() * 0.3) / k as f32 * tau;
                    let rr = r * (0.75 + 0.25 * rng.f32());
                    [rr * a.cos(), rr * a.sin()]
                })
                .collect();
            // Points per side, at least one (its corner), the rest by length.
            let lens: Vec<f32> = (0..k)
                .map(|i| geom::len(geom::sub(main[(i + 1) % k], main[i])))
                .collect();
            let perimeter: f32 = lens.iter().sum();
            let spare = outer_n.saturating_sub(k);
            let mut counts: Vec<usize> = lens
                .iter()
                .map(|l| 1 + (spare as f32 * l / perimeter) as usize)
                .collect();
            let short = outer_n.saturating_sub(counts.iter().sum());
            for i in 0..short {
                counts[i % k] += 1;
            }
            let mut outer = Vec::with_capacity(outer_n);
            for i in 0..k {
                let (a, b) = (main[i], main[(i + 1) % k]);
                let out = geom::scale([b[1] - a[1], a[0] - b[0]], 1.0 / lens[i].max(1e-3));
                let bow = (rng.f32() * 2.0 - 1.0) * 0.08 * lens[i];
                let m = counts[i];
                for j in 0..m {
                    let t = j as f32 / m as f32;
                    let jitter = if j == 0 { 0.0 } else { (rng.f32() - 0.5) * 0.6 };
                    let off = bow * 4.0 * t * (1.0 - t) + jitter;
                    outer.push(geom::add(geom::lerp(a, b, t), geom::scale(out, off)));
                }
            }
            let lake_r = r * (0.12 + 0.06 * rng.f32());
            let mut hole: Vec<P2> = (0..lake)
                .map(|i| {
                    let a = (i as f32 + rng.f32() * 0.5) / lake as f32 * tau;
                    let rr = lake_r * (0.8 + 0.2 * rng.f32());
                    [rr * a.cos(), rr * a.sin()]
                })
                .collect();
            hole.reverse();
            vec![outer, hole]
        })
        .collect()
}

/// The scene and, for each tile and each stop point, the placement unit it came from (a
/// corner, an atomic spelling, or a single tile): what the tests need to check the spec.
#[cfg_attr(not(test), allow(dead_code))]
struct Detailed {
    scene: Scene,
    tile_units: Vec<usize>,
    stop_units: Vec<usize>,
    /// The first of `scene.trees` that the fill placed (those before come from tiles).
    fill_from: usize,
}

/// The layout's warnings, located at the polygon's line or the asset's.
struct Msgs<'a> {
    asset: &'a Path,
    input: &'a LayoutInput,
    out: Vec<Diagnostic>,
}

impl Msgs<'_> {
    fn polygon(&mut self, msg: impl Into<String>) {
        let d = match &self.input.polygon_source {
            Some((p, line)) => Diagnostic::warning_at(p, (*line).max(1), 1, msg),
            None => Diagnostic::warning_file(self.asset, msg),
        };
        self.out.push(d.with_kind(crate::diag::kind::LAYOUT));
    }
    fn at(&mut self, line: u32, msg: impl Into<String>) {
        self.out.push(
            Diagnostic::warning_at(self.asset, line.max(1), 1, msg)
                .with_kind(crate::diag::kind::LAYOUT),
        );
    }
    fn file(&mut self, msg: impl Into<String>) {
        self.out
            .push(Diagnostic::warning_file(self.asset, msg).with_kind(crate::diag::kind::LAYOUT));
    }
}

/// What the layout needs from the asset, looked up once.
struct Tables {
    mpp: P2,
    /// Width and depth of each tile, meters.
    size: Vec<P2>,
    /// The tile indices of every corner rule and spelling, one after the other.
    lists: Vec<usize>,
    /// Each corner rule's range in `lists` (`None`: unusable, warned).
    corners: Vec<Option<(usize, usize)>>,
    /// Each spelling's range in `lists` and length in meters (`None`: unusable, warned).
    spellings: Vec<Option<(usize, usize, f32)>>,
    /// Cap tile indices, without repeats.
    caps: Vec<usize>,
    /// The usable spellings as the best-fit search sees them.
    spells: Vec<Spelling>,
    /// The group bits of each class of "previous tile" (see [`spell`]); class 0 is the
    /// start of a side, which passes every group condition.
    masks: Vec<u64>,
    /// The largest common measure of the spelling lengths (whole centimetres).
    quantum: f32,
}

impl Tables {
    fn new(ag: &Autogen, rules: &StringRules, mpp: P2, msgs: &mut Msgs) -> Tables {
        let size: Vec<P2> = ag
            .tiles
            .iter()
            .map(|t| [t.width() * mpp[0], t.height() * mpp[1]])
            .collect();
        let find = |id: i64| ag.tiles.iter().position(|t| t.id == id);
        let mut lists = Vec::new();
        // Appends the tiles of `ids` to `lists`; their range, or `None` for an unknown id.
        let add = |ids: &[i64], lists: &mut Vec<usize>| {
            let start = lists.len();
            for &id in ids {
                match find(id) {
                    Some(i) => lists.push(i),
                    None => {
                        lists.truncate(start);
                        return None;
                    }
                }
            }
            Some((start, lists.len()))
        };
        let mut corners = Vec::with_capacity(rules.corners.len());
        for c in &rules.corners {
            let n = c.tiles.len();
            let count_ok = n == 1 || n == 3 || (n == 2 && c.kind == CornerKind::CornerPair);
            corners.push(match add(&c.tiles, &mut lists) {
                None => {
                    msgs.at(
                        c.line,
                        "corner rule names a tile id no tile has; rule ignored",
                    );
                    None
                }
                Some(_) if !count_ok => {
                    msgs.at(
                        c.line,
                        format!("a corner takes 1 or 3 tiles, not {n}; rule ignored"),
                    );
                    None
                }
                r => r,
            });
        }
        let mut spellings = Vec::with_capacity(rules.spellings.len());
        for sp in &rules.spellings {
            let Some((a, b)) = add(&sp.tiles, &mut lists) else {
                msgs.at(
                    sp.line,
                    "spelling names a tile id no tile has; spelling ignored",
                );
                spellings.push(None);
                continue;
            };
            let len: f32 = lists[a..b].iter().map(|&i| size[i][0]).sum();
            let usable = len.is_finite() && len >= MIN_SPELLING;
            if !usable {
                msgs.at(
                    sp.line,
                    format!("spelling is {len} m long; too short to fill a side, ignored"),
                );
                spellings.push(None);
                continue;
            }
            spellings.push(Some((a, b, len)));
        }
        let mut caps = Vec::new();
        for &id in &rules.caps {
            match find(id) {
                Some(i) if !caps.contains(&i) => caps.push(i),
                Some(_) => {}
                None => msgs.file(format!(
                    "CAPS names tile id {id}, which no tile has; ignored"
                )),
            }
        }
        // The groups ATOMIC_SPELLINGs ask about tell the previous tiles apart: a tile's
        // class is the set of those groups it is in (at most 64 groups are told apart; a
        // further one is checked when placing, not planned for).
        let mut groups: Vec<u32> = Vec::new();
        for sp in &rules.spellings {
            if let Some(at) = &sp.atomic {
                if at.group != 0 && !groups.contains(&at.group) && groups.len() < 64 {
                    groups.push(at.group);
                }
            }
        }
        let mask_of = |id: i64| {
            groups
                .iter()
                .enumerate()
                .filter(|(_, &g)| rules.in_group(g, id))
                .fold(0u64, |m, (b, _)| m | (1 << b))
        };
        let mut masks = vec![u64::MAX];
        let class_of_tile: Vec<usize> = ag
            .tiles
            .iter()
            .map(|t| {
                let m = mask_of(t.id);
                match masks.iter().skip(1).position(|&x| x == m) {
                    Some(k) => k + 1,
                    None => {
                        masks.push(m);
                        masks.len() - 1
                    }
                }
            })
            .collect();
        let spells: Vec<Spelling> = rules
            .spellings
            .iter()
            .enumerate()
            .filter_map(|(i, sp)| {
                let (a, b, len) = spellings[i]?;
                let last = *lists[a..b].last()?;
                Some(Spelling {
                    index: i,
                    len,
                    tier: sp.priority,
                    atomic: sp.atomic.as_ref().map(|at| {
                        let bit = groups.iter().position(|&g| g == at.group && g != 0);
                        (at.length, bit.map(|b| b as u32))
                    }),
                    class_after: class_of_tile[last],
                })
            })
            .collect();
        let quantum = spell::quantum(&spells);
        Tables {
            mpp,
            size,
            lists,
            corners,
            spellings,
            caps,
            spells,
            masks,
            quantum,
        }
    }

    fn corner(&self, i: usize) -> Option<&[usize]> {
        let (a, b) = (*self.corners.get(i)?)?;
        self.lists.get(a..b)
    }

    fn spelling(&self, i: usize) -> Option<(&[usize], f32)> {
        let (a, b, len) = (*self.spellings.get(i)?)?;
        Some((self.lists.get(a..b)?, len))
    }
}

/// Why a tile cannot go where it was tried.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Check {
    Fits,
    /// The layout is full: nothing more is placed.
    Blocked,
    /// One of its own stop points lies outside the polygon (or in a hole).
    StopOut,
    /// It covers an earlier stop point; sliding it this far (meters) forward uncovers it.
    Covers(f32),
}

impl Check {
    /// How far to slide for another try, or `None` when sliding cannot help.
    fn slide(self) -> Option<f32> {
        match self {
            Check::Fits | Check::Blocked => None,
            Check::StopOut => Some(SLIDE_STEP),
            Check::Covers(d) => Some(d.max(COVER_EPS)),
        }
    }

    /// The verdict on several tiles together: blocked wins, then the longest slide.
    fn and(self, other: Check) -> Check {
        match (self, other) {
            (Check::Blocked, _) | (_, Check::Blocked) => Check::Blocked,
            (Check::Fits, x) | (x, Check::Fits) => x,
            (a, b) => {
                if a.slide() >= b.slide() {
                    a
                } else {
                    b
                }
            }
        }
    }
}

/// A tile placed, or being tried.
#[derive(Debug, Clone, Copy)]
struct Placed {
    /// Index into the asset's tiles.
    tile: usize,
    /// Origin at the tile's bottom-left; `u` texture +s, `v` texture +t.
    frame: Frame,
    size: P2,
    /// Height of the band above the bottom edge that the side's bends poke into.
    allowance: f32,
    role: TileRole,
    contour: usize,
    side: usize,
    unit: usize,
    atomic: Option<usize>,
    /// Whether the unit's tiles share the ground point of its first tile (`SHARE_Y`).
    shared: bool,
}

impl Placed {
    fn quad(&self) -> [P2; 4] {
        let [w, d] = self.size;
        [[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]].map(|p| self.frame.to_world(p))
    }

    /// The part of the tile that must not meet a contour for it to count as inside (else it
    /// is marked `crosses`), as a box `(lo, hi)` in its frame.
    fn body(&self) -> Option<(P2, P2)> {
        let [w, d] = self.size;
        let b = self.allowance + INSET;
        if w <= 2.0 * INSET || d - INSET <= b || self.allowance > BEND_BAND * d {
            return None;
        }
        Some(([INSET, b], [w - INSET, d - INSET]))
    }
}

/// The highest point of `pts` strictly inside the tile's quad, as a height above its bottom
/// edge (0 when none).
fn allowance_of(frame: &Frame, size: P2, pts: &[P2]) -> f32 {
    let mut a = 0.0f32;
    for p in pts {
        let l = frame.to_local(*p);
        if l[0] > 0.0 && l[0] < size[0] && l[1] > 0.0 && l[1] < size[1] {
            a = a.max(l[1]);
        }
    }
    a
}

fn left(u: P2) -> P2 {
    [-u[1], u[0]]
}

fn within(r: Option<[f32; 2]>, v: f32) -> bool {
    r.is_none_or(|[a, b]| v >= a.min(b) - RANGE_TOLERANCE && v <= a.max(b) + RANGE_TOLERANCE)
}

/// Places tiles one by one and keeps what is needed to test the next.
struct Placer<'a> {
    ag: &'a Autogen,
    t: &'a Tables,
    index: &'a PolyIndex,
    placed: Vec<Placed>,
    /// Stop points placed, with their unit.
    stops: Vec<(P2, usize)>,
    /// Once there are more than [`STOP_SCAN`] stop points: those of each square cell of
    /// `stop_cell` meters (at least any tile's extent, so a tile's test sees at most 3 x 3
    /// cells) as a list: the first, then `stop_next` of each ([`NONE`] ends it). Hashed by
    /// cell, so the cells stay small however large the polygon.
    stop_head: std::collections::HashMap<[i32; 2], u32>,
    stop_next: Vec<u32>,
    stop_cell: f32,
    units: usize,
    atomics: usize,
    full: bool,
    /// Scratch list of `(rule, tier)` for the corner walk.
    rule_order: Vec<(usize, u32)>,
    scratch: Scratch,
}

/// Buffers the side filling reuses from side to side.
#[derive(Default)]
struct Scratch {
    /// Spellings refused at the current place, and whether for an atomic failure.
    excluded: Vec<(usize, bool)>,
    plan: Plan,
    chords: Vec<(P2, P2, f32)>,
    tries: Vec<Placed>,
}

impl<'a> Placer<'a> {
    fn new(ag: &'a Autogen, t: &'a Tables, index: &'a PolyIndex) -> Self {
        Placer {
            ag,
            t,
            index,
            placed: Vec::with_capacity(64),
            stops: Vec::with_capacity(64),
            stop_head: std::collections::HashMap::new(),
            stop_next: Vec::new(),
            stop_cell: t.size.iter().map(|s| geom::len(*s)).fold(1.0, f32::max) + 1.0,
            units: 0,
            atomics: 0,
            full: false,
            rule_order: Vec::new(),
            scratch: Scratch::default(),
        }
    }

    fn stops_of(&self, p: &Placed) -> impl Iterator<Item = P2> + '_ {
        let tile = &self.ag.tiles[p.tile];
        let (bl, mpp, frame) = ([tile.rect[0], tile.rect[1]], self.t.mpp, p.frame);
        tile.stop_points
            .iter()
            .map(move |s| frame.to_world([(s[0] - bl[0]) * mpp[0], (s[1] - bl[1]) * mpp[1]]))
    }

    /// Whether the tile may go where it is (see the module doc), and if not, why: its stop
    /// points must lie inside the polygon (not in a hole), and it must not cover a stop point
    /// placed before it by another unit (strictly: one on its edge is not covered).
    fn check(&self, p: &Placed) -> Check {
        if self.full {
            return Check::Blocked;
        }
        for s in self.stops_of(p) {
            if !self.index.contains(s) {
                return Check::StopOut;
            }
        }
        if self.stops.is_empty() {
            return Check::Fits;
        }
        let e = COVER_EPS;
        let [w, d] = p.size;
        let (lo, hi) = index::bbox(p.quad());
        let mut slide = 0.0f32;
        let mut test = |s: P2, unit: usize| {
            if unit != p.unit && s[0] > lo[0] && s[0] < hi[0] && s[1] > lo[1] && s[1] < hi[1] {
                let l = p.frame.to_local(s);
                if l[0] > e && l[0] < w - e && l[1] > e && l[1] < d - e {
                    // Uncovered once the tile starts at it.
                    slide = slide.max(l[0]);
                }
            }
        };
        if self.stops.len() <= STOP_SCAN {
            // Few: a straight scan beats walking the cells.
            for &(s, unit) in &self.stops {
                test(s, unit);
            }
        } else {
            let [x0, y0] = self.stop_cell_of(lo);
            let [x1, y1] = self.stop_cell_of(hi);
            for y in y0..=y1 {
                for x in x0..=x1 {
                    let mut i = self.stop_head.get(&[x, y]).copied().unwrap_or(NONE);
                    while let Some(&(s, unit)) = self.stops.get(i as usize) {
                        test(s, unit);
                        i = self.stop_next[i as usize];
                    }
                }
            }
        }
        if slide > 0.0 {
            Check::Covers(slide)
        } else {
            Check::Fits
        }
    }

    /// The cell of `p` in the stop point lists (saturating far away: the lists stay
    /// correct, only slower, for coordinates past ±2³¹ cells).
    fn stop_cell_of(&self, p: P2) -> [i32; 2] {
        p.map(|v| (v / self.stop_cell).floor() as i32)
    }

    /// Adds stop point `i` to its cell's list.
    fn link_stop(&mut self, i: usize) {
        let cell = self.stop_cell_of(self.stops[i].0);
        let head = self.stop_head.entry(cell).or_insert(NONE);
        self.stop_next.push(*head);
        *head = i as u32;
    }

    fn fits(&self, p: &Placed) -> bool {
        self.check(p) == Check::Fits
    }

    fn commit(&mut self, p: Placed) {
        if self.placed.len() >= MAX_TILES {
            self.full = true;
            return;
        }
        let ag = self.ag;
        let tile = &ag.tiles[p.tile];
        let (bl, mpp) = ([tile.rect[0], tile.rect[1]], self.t.mpp);
        for sp in &tile.stop_points {
            let s = p
                .frame
                .to_world([(sp[0] - bl[0]) * mpp[0], (sp[1] - bl[1]) * mpp[1]]);
            self.stops.push((s, p.unit));
            if self.stops.len() == STOP_SCAN + 1 {
                // From now on the stop points are looked up by cell.
                for i in 0..self.stops.len() {
                    self.link_stop(i);
                }
            } else if self.stops.len() > STOP_SCAN + 1 {
                self.link_stop(self.stops.len() - 1);
            }
        }
        self.placed.push(p);
    }
}

/// A spawning contour walked for corners: its sides and what each corner took.
struct Walk {
    contour: usize,
    sides: Sides,
    /// Per corner: how far its tiles reach along the arriving and leaving sides, and the
    /// line of the rule placed.
    reach: Vec<(P2, Option<u32>)>,
}

/// One contour after cleaning.
struct Contour {
    pts: Vec<P2>,
    /// Whether the edge leaving each point spawns tiles.
    spawn: Vec<bool>,
    /// Usable: closed, with area, inside the outer contour.
    usable: bool,
}

/// A point of the ring's own area (strictly inside it, near its first edge that offers
/// one), whatever the ring's winding; `None` for a ring with no area.
fn point_inside(ring: &[P2]) -> Option<P2> {
    let n = ring.len();
    let ccw = geom::signed_area2(ring) > 0.0;
    for k in 0..n {
        let (a, b) = (ring[k], ring[(k + 1) % n]);
        let d = geom::sub(b, a);
        let len = geom::len(d);
        if len <= contour::SAME_POINT {
            continue;
        }
        let inward = if ccw { left(d) } else { [d[1], -d[0]] };
        let off = (len * 0.01).min(0.05) / len;
        let p = geom::add(geom::lerp(a, b, 0.5), geom::scale(inward, off));
        if geom::point_in_ring(p, ring) {
            return Some(p);
        }
    }
    None
}

/// Cleans the contours (see the module doc). A hole is judged by its area: it is kept when
/// a point of its own area lies inside the outer contour, so a hole touching the outer
/// contour, or starting on it, is still a hole.
fn contours(
    raw: Vec<join::RawContour<'_>>,
    asset: &Path,
    input: &LayoutInput,
    msgs: &mut Msgs,
) -> Result<Vec<Contour>, Diagnostic> {
    if raw.is_empty() {
        return Err(input.polygon_error(asset, "the polygon has no contour"));
    }
    let mut out: Vec<Contour> = Vec::with_capacity(raw.len());
    for (i, rc) in raw.into_iter().enumerate() {
        let what = if i == 0 {
            "the outer contour"
        } else {
            "a hole"
        };
        let ring = &rc.pts;
        if let Some(k) = ring
            .iter()
            .position(|p| !p[0].is_finite() || !p[1].is_finite())
        {
            return Err(input.polygon_error(
                asset,
                format!("contour {i} ({what}): point {k} is not a finite number"),
            ));
        }
        if rc.unclosed && rc.spawn.iter().any(|&f| f) {
            let list: Vec<String> = rc.windings.iter().map(|w| w.to_string()).collect();
            msgs.polygon(format!(
                "contour {i} ({what}): winding(s) {} do not come back to where they start (the spec wants every winding closed: the last point repeats the first, or the next winding starts there); closed by an edge that spawns no tiles",
                list.join(", ")
            ));
        }
        let (pts, spawn, info) = contour::clean(ring, &rc.spawn, i == 0);
        if info.repeated > 0 {
            msgs.polygon(format!(
                "contour {i} ({what}): dropped {} repeated (zero-length) vertex(es)",
                info.repeated
            ));
        }
        if info.spikes > 0 {
            msgs.polygon(format!(
                "contour {i} ({what}): dropped {} vertex(es) where it doubles back on itself",
                info.spikes
            ));
        }
        let scale = index::bbox(pts.iter().copied());
        let extent = geom::len(geom::sub(scale.1, scale.0));
        let area = info.area;
        // NaN-safe: no area unless it is clearly positive.
        let has_area = area > 1e-6 * extent * extent;
        if pts.len() >= 4 && !has_area && geom::self_intersects(&pts) {
            // A figure of eight encloses no net area but is not open.
            return Err(input.polygon_error(asset, format!("contour {i} crosses itself")));
        }
        if pts.len() < 3 || !has_area {
            let msg = format!(
                "contour {i} ({what}) is open: {} distinct point(s) enclosing no area",
                pts.len()
            );
            if i == 0 {
                return Err(input.polygon_error(asset, msg));
            }
            msgs.polygon(format!("{msg}; left out"));
            out.push(Contour {
                pts,
                spawn,
                usable: false,
            });
            continue;
        }
        if info.reversed {
            msgs.polygon(if i == 0 {
                format!(
                    "contour {i} (the outer contour) runs clockwise; reversed to counter-clockwise"
                )
            } else {
                format!("contour {i} (a hole) runs counter-clockwise; reversed to clockwise")
            });
        }
        let usable =
            i == 0 || point_inside(&pts).is_some_and(|p| geom::point_in_ring(p, &out[0].pts));
        if !usable {
            msgs.polygon(format!(
                "contour {i} (a hole) lies outside the outer contour; left out"
            ));
        }
        out.push(Contour { pts, spawn, usable });
    }
    Ok(out)
}

fn run(ag: &Autogen, asset_path: &Path, input: &LayoutInput) -> Result<Detailed, Diagnostic> {
    let mut scene = scene_for(ag, asset_path, input);
    let mut msgs = Msgs {
        asset: asset_path,
        input,
        out: Vec::new(),
    };
    if ag.tiles.is_empty() {
        return Err(Diagnostic::error_file(
            asset_path,
            "the autogen string has no TILE",
        ));
    }
    let mpp = ag.meters_per_pixel();
    if !(mpp[0] > 0.0 && mpp[1] > 0.0 && mpp[0].is_finite() && mpp[1].is_finite()) {
        return Err(Diagnostic::error_file(
            asset_path,
            "TEXTURE_SCALE and TEXTURE_WIDTH give no usable meters per pixel",
        ));
    }
    let default_rules = StringRules::default();
    let rules = ag.string.as_ref().unwrap_or(&default_rules);

    // 1. Contours: the windings joined (or the rings taken), each edge knowing whether it
    // spawns tiles.
    let fallback;
    let rings: &[Vec<P2>] = match &input.polygon {
        Some(p) => p,
        None => {
            fallback = default_polygon();
            msgs.file("no polygon given: laid out on a built-in town outline about 150 m across with a lake (contour 1)");
            &fallback
        }
    };
    let what = if input.windings { "winding" } else { "contour" };
    let spawn = input.spawn.as_deref().filter(|_| !input.windings);
    let spawning = match input.param {
        Some(_) if spawn.is_none() => {
            let claimed = input.low_byte() as usize;
            if claimed > rings.len() {
                msgs.polygon(format!(
                    "the DSF parameter's low byte says {claimed} tile-spawning {what}(s), but the polygon has {}; all of them spawn tiles",
                    rings.len()
                ));
            } else if claimed == 0 {
                msgs.polygon(format!(
                    "the DSF parameter's low byte is 0: no {what} spawns tiles"
                ));
            }
            claimed.min(rings.len())
        }
        _ => rings.len(),
    };
    if let Some(flags) = spawn {
        let fits =
            flags.len() == rings.len() && flags.iter().zip(rings).all(|(f, r)| f.len() == r.len());
        if !fits {
            msgs.polygon("the `spawn` flags do not give one flag per edge of each ring: ignored; every ring spawns tiles");
        }
    }
    let raw = if input.windings {
        join::join(rings, spawning)
    } else {
        join::rings(rings, spawn, spawning)
    };
    let cs = contours(raw, asset_path, input, &mut msgs)?;
    let index = {
        let live: Vec<&[P2]> = cs
            .iter()
            .map(|c| if c.usable { &c.pts[..] } else { &[][..] })
            .collect();
        PolyIndex::new(&live)
    };
    if let Some((a, b)) = index.first_crossing() {
        let msg = if a == b {
            format!("contour {a} crosses itself")
        } else {
            format!("contour {a} crosses contour {b}")
        };
        return Err(input.polygon_error(asset_path, msg));
    }
    let tables = Tables::new(ag, rules, mpp, &mut msgs);

    // 2. Corners and sides of the contours with spawning edges.
    let rng = Rng::new(input.seed);
    let mut corner_rng = rng.fork(1);
    let mut edge_rng = rng.fork(2);
    let mut cap_rng = rng.fork(3);
    let mut placer = Placer::new(ag, &tables, &index);
    let mut walks: Vec<Walk> = Vec::new();
    for (ci, c) in cs.iter().enumerate() {
        if !c.usable || !c.spawn.iter().any(|&f| f) {
            continue;
        }
        let corners = contour::corners(&c.pts, rules.crease_left, rules.crease_right);
        let sides = contour::sides(&c.pts, &corners, &c.spawn);
        let mut side_of = vec![None; corners.len()];
        for (j, side) in sides.iter().enumerate() {
            if let Some(k) = side.start_corner {
                side_of[k] = Some(j);
            }
        }
        let reach = placer.corners(rules, ci, &corners, &side_of, &mut corner_rng);
        for (k, corner) in corners.iter().enumerate() {
            scene.corners.push(CornerMark {
                pos: corner.pos,
                contour: ci,
                angle: corner.turn,
                rule_line: reach[k].1,
            });
        }
        walks.push(Walk {
            contour: ci,
            sides,
            reach,
        });
    }
    // The contours as laid out (the walks keep what they need of them).
    (scene.polygon, scene.spawn) = cs.into_iter().map(|c| (c.pts, c.spawn)).unzip();

    // 3. Edges.
    let mut ends = Vec::new();
    let mut longest_side = 0.0f32;
    for (wi, w) in walks.iter().enumerate() {
        for (si, side) in w.sides.iter().enumerate() {
            let side = &side;
            longest_side = longest_side.max(side.len());
            let a = side.start_corner.map_or(0.0, |k| w.reach[k].0[1]);
            let b = side.len() - side.end_corner.map_or(0.0, |k| w.reach[k].0[0]);
            if let Some(last) = placer.fill_side(rules, w.contour, si, side, a, b, &mut edge_rng) {
                ends.push((wi, si, last));
            }
        }
    }
    if !walks.is_empty() {
        for (i, sp) in rules.spellings.iter().enumerate() {
            if let Some((_, len)) = tables.spelling(i) {
                if len > longest_side + FIT_TOLERANCE {
                    msgs.at(
                        sp.line,
                        format!(
                            "spelling is {len:.1} m long, longer than every side (the longest is {longest_side:.1} m): it is never placed"
                        ),
                    );
                }
            }
        }
    }

    // 4. Caps.
    for (wi, si, (last, s0, s1)) in ends {
        let side = &walks[wi].sides.get(si);
        if let Some(end) = placer.cap(last, side, s0, s1, &mut cap_rng) {
            scene.debug.caps.push(end);
        }
    }
    if placer.full {
        msgs.file(format!(
            "more than {MAX_TILES} tiles: the layout stops there"
        ));
    }

    // 5. Tiles, annotations, stop points.
    let mut emit = Emit {
        ag,
        input,
        rng: rng.fork(5),
    };
    let mut unit_ground: Option<(usize, P2)> = None;
    scene.tiles.reserve(placer.placed.len());
    {
        // What the annotations will add, so each list grows once.
        let (mut objects, mut trees, mut facades) = (0, 0, 0);
        for p in &placer.placed {
            for ann in &ag.tiles[p.tile].annotations {
                match ann.kind {
                    AnnotationKind::Object { .. } => objects += 1,
                    AnnotationKind::Facade { .. } => facades += 1,
                    AnnotationKind::Tree { .. } => trees += 1,
                    AnnotationKind::TreeLine { .. } => trees += 8,
                }
            }
        }
        scene.objects.reserve(objects);
        scene.facades.reserve(facades);
        scene
            .trees
            .reserve(trees + if rules.fill_layer.is_some() { 128 } else { 0 });
    }
    for (order, p) in placer.placed.iter().enumerate() {
        let tile = &ag.tiles[p.tile];
        let [l, b, r, t] = tile.rect;
        let xf = TileXf::new(p.frame, [l, b], mpp);
        let own = xf.px(tile.ground.unwrap_or([(l + r) * 0.5, (b + t) * 0.5]));
        let ground = match unit_ground {
            Some((u, g)) if p.shared && u == p.unit => g,
            _ => {
                unit_ground = Some((p.unit, own));
                own
            }
        };
        let crop = tile.crop_poly.as_ref().map(|c| {
            let mut w: Vec<P2> = c.iter().map(|q| xf.px(*q)).collect();
            if geom::signed_area2(&w) < 0.0 {
                w.reverse();
            }
            std::sync::Arc::from(w)
        });
        scene.tiles.push(SceneTile {
            corners: p.quad(),
            uv: tile.rect,
            tile: u32::try_from(p.tile).ok(),
            tile_id: Some(tile.id),
            role: Some(p.role),
            contour: u32::try_from(p.contour).ok(),
            side: u32::try_from(p.side).ok(),
            atomic: p.atomic.and_then(|a| u32::try_from(a).ok()),
            crop,
            crosses: !p
                .body()
                .is_some_and(|(lo, hi)| index.box_inside(&p.frame, lo, hi)),
            order: order as u32,
            ..Default::default()
        });
        for ann in &tile.annotations {
            emit.annotation(&mut scene, ann, &xf, ground);
        }
    }
    scene.stop_points = placer.stops.iter().map(|s| s.0).collect();

    // 6. Fill.
    let fill_from = scene.trees.len();
    if let Some(layer) = rules.fill_layer {
        fill::fill(
            &placer,
            &index,
            input,
            layer,
            rng.fork(4),
            &mut scene,
            &mut msgs,
        );
    }
    scene.warnings.append(&mut msgs.out);
    Ok(Detailed {
        tile_units: placer.placed.iter().map(|p| p.unit).collect(),
        stop_units: placer.stops.iter().map(|s| s.1).collect(),
        fill_from,
        scene,
    })
}
