use super::contour::turn_angle;
use super::*;
use crate::format::autogen::{parse, CornerRule};
use crate::layout::geom::point_in_rings;
use crate::layout::rng::Rng;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// 1000 px = 100 m: 10 px a meter. Edge tiles 0 (10 m, a stop point), 1 (6 m), 2 (14 m,
/// a stop point); atomic tiles 10, 11, 12 (8 m each); corner 20 (12 x 12 m), reflex corner
/// 21 (8 x 8 m), articulated 30, 31, 32 (6 x 10 m each, pivots at the bottom corners by
/// default); cap 40 (2 m).
const ASSET: &str = "A
1000
AG_STRING
TEXTURE t.png
TEXTURE_SCALE 1000 1000
TEXTURE_WIDTH 100
OBJECT house.obj
CREASING_ANGLE 30 30
FILL_LAYER 2
SHARE_Y
TILE_ID 0
TILE 0 0 100 120
STOP_PT 50 60
OBJ_GRADED 50 60 180 0
TILE_ID 1
TILE 100 0 160 120
TILE_ID 2
TILE 160 0 300 120
STOP_PT 230 40
TILE_ID 10
TILE 0 200 80 320
GROUND_PT 40 300
OBJ_GRADED 40 260 180 0
TILE_ID 11
TILE 80 200 160 320
STOP_PT 120 260
OBJ_GRADED 120 260 180 0
TILE_ID 12
TILE 160 200 240 320
OBJ_GRADED 200 260 180 0
TILE_ID 20
TILE 300 0 420 120
STOP_PT 360 60
TILE_ID 21
TILE 420 0 500 80
TILE_ID 30
TILE 0 400 60 500
TILE_ID 31
TILE 60 400 120 500
STOP_PT 90 450
TILE_ID 32
TILE 120 400 180 500
TILE_ID 40
TILE 500 0 520 120
GROUP 1 0 1 2
GROUP 3 20 30 31 32
ATOMIC_SPELLING_CORNER 30 1000 -100 -80 30 1000 0 30 31 32
CORNER_ORDER 0 1 2
CORNER_LEN 20 1000 -100 -60 20 1000 3 20
PRIORITY_MARKER_CORNER
CORNER -170 -30 20
CORNER -170 -100 30 31 32
CORNER_PAIR -120 -60 5 25 -120 -60 0 20
CORNER 30 170 21
ATOMIC_SPELLING 40 10000 1 10 11 12
SPELLING 0 1
SPELLING 2
PRIORITY_MARKER
SPELLING 0
SPELLING 1
CAPS 40
";

fn asset(src: &str) -> Autogen {
    parse(Path::new("s.ags"), src.as_bytes(), &mut Vec::new()).unwrap()
}

/// The 1-based line of the first line of `src` that starts with `text`.
fn line_of(src: &str, text: &str) -> u32 {
    src.lines().position(|l| l.starts_with(text)).unwrap() as u32 + 1
}

fn input(rings: Vec<Vec<P2>>, low: u32, seed: u64) -> LayoutInput {
    LayoutInput {
        polygon: Some(rings),
        param: Some((2 << 8) | low),
        seed,
        ..Default::default()
    }
}

fn rect(w: f32, h: f32) -> Vec<P2> {
    vec![[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]]
}

fn go(ag: &Autogen, input: &LayoutInput) -> Detailed {
    run(ag, Path::new("s.ags"), input).unwrap()
}

fn near(a: P2, b: P2, eps: f32) -> bool {
    geom::len(geom::sub(a, b)) < eps
}

fn ring_dist(p: P2, ring: &[P2]) -> f32 {
    let n = ring.len();
    (0..n)
        .map(|i| geom::dist_to_segment(p, ring[i], ring[(i + 1) % n]))
        .fold(f32::INFINITY, f32::min)
}

fn frame_of(t: &SceneTile) -> Frame {
    Frame::along(t.corners[0], t.corners[1])
}

/// The tile's quad shrunk by `e` meters on every side.
fn shrunk(t: &SceneTile, e: f32) -> [P2; 4] {
    let f = frame_of(t);
    let w = geom::len(geom::sub(t.corners[1], t.corners[0]));
    let d = geom::len(geom::sub(t.corners[3], t.corners[0]));
    [[e, e], [w - e, e], [w - e, d - e], [e, d - e]].map(|p| f.to_world(p))
}

fn role_rank(r: Option<TileRole>) -> u8 {
    match r {
        Some(TileRole::Corner) => 0,
        Some(TileRole::Edge) => 1,
        Some(TileRole::Cap) => 2,
        None => 9,
    }
}

/// The distance from `p` to the spawning edges of `ring`.
fn spawning_dist(p: P2, ring: &[P2], spawn: &[bool]) -> f32 {
    let n = ring.len();
    (0..n)
        .filter(|&i| spawn.get(i).copied().unwrap_or(false))
        .map(|i| geom::dist_to_segment(p, ring[i], ring[(i + 1) % n]))
        .fold(f32::INFINITY, f32::min)
}

/// Checks what the spec states about a laid-out string.
fn check_spec(ag: &Autogen, _input: &LayoutInput, d: &Detailed) {
    let s = &d.scene;
    let rules = ag.string.as_ref().unwrap();
    let rings = &s.polygon;
    let mut last_rank = 0;
    for (i, t) in s.tiles.iter().enumerate() {
        let c = t.contour.unwrap() as usize;
        assert!(
            d.scene.spawn[c].iter().any(|&f| f),
            "tile {i} on contour {c}, which spawns no tiles"
        );
        // Draw order: corners, then edges, then caps.
        let rank = role_rank(t.role);
        assert!(
            rank >= last_rank,
            "tile {i}: {:?} after a later role",
            t.role
        );
        last_rank = rank;
        assert_eq!(t.order as usize, i);
        // A tile not marked `crosses` is inside the polygon, not over a hole: the centre and
        // the top corners (5 cm in) are inside, and no vertex of another contour lies in it.
        if !t.crosses {
            let q = shrunk(t, 0.05);
            let centre = geom::scale(
                geom::add(geom::add(q[0], q[1]), geom::add(q[2], q[3])),
                0.25,
            );
            for p in [centre, q[2], q[3]] {
                assert!(
                    point_in_rings(p, rings),
                    "tile {i} leaves the polygon at {p:?} unmarked: {t:?}"
                );
            }
            for (k, ring) in rings.iter().enumerate() {
                if k != c && ring.len() >= 3 {
                    for v in ring {
                        assert!(
                            !index::in_quad(&q, *v),
                            "tile {i} covers contour {k}'s {v:?} unmarked"
                        );
                    }
                }
            }
        }
        // Edges sit on spawning edges of their contour: both bottom corners on them.
        if t.role == Some(TileRole::Edge) {
            for p in [t.corners[0], t.corners[1]] {
                assert!(
                    spawning_dist(p, &rings[c], &d.scene.spawn[c]) < 0.01,
                    "edge tile {i} off its contour's spawning edges: {p:?}"
                );
            }
        }
        // Texture up points into the interior.
        let up = geom::sub(t.corners[3], t.corners[0]);
        let along = geom::sub(t.corners[1], t.corners[0]);
        assert!(geom::cross(along, up) > 0.0, "tile {i} faces out");
    }
    // Atomic groups: whole or absent.
    let mut groups: BTreeMap<u32, Vec<i64>> = BTreeMap::new();
    for t in &s.tiles {
        if let Some(a) = t.atomic {
            groups.entry(a).or_default().push(t.tile_id.unwrap());
        }
    }
    let mut atomic_lists: Vec<Vec<i64>> = rules
        .spellings
        .iter()
        .filter(|sp| sp.atomic.is_some())
        .map(|sp| sp.tiles.clone())
        .chain(
            rules
                .corners
                .iter()
                .filter(|c| c.kind == CornerKind::AtomicSpellingCorner)
                .map(|c| c.tiles.clone()),
        )
        .collect();
    for l in &mut atomic_lists {
        l.sort_unstable();
    }
    for (id, mut tiles) in groups {
        tiles.sort_unstable();
        assert!(
            atomic_lists.contains(&tiles),
            "atomic group {id} is partial: {tiles:?}"
        );
    }
    // Corners: each rule placed matches its corner.
    for (k, m) in s.corners.iter().enumerate() {
        let ring = &rings[m.contour];
        let n = ring.len();
        let v = ring
            .iter()
            .position(|p| *p == m.pos)
            .expect("corner on a vertex");
        let turn = turn_angle(ring[(v + n - 1) % n], ring[v], ring[(v + 1) % n]);
        assert!((turn - m.angle).abs() < 1e-3);
        assert!(contour::is_corner(
            turn,
            rules.crease_left,
            rules.crease_right
        ));
        let Some(line) = m.rule_line else { continue };
        let rule: &CornerRule = rules.corners.iter().find(|r| r.line == line).unwrap();
        let len1 = geom::len(geom::sub(ring[v], ring[(v + n - 1) % n]));
        let len2 = geom::len(geom::sub(ring[(v + 1) % n], ring[v]));
        let inr =
            |r: Option<[f32; 2]>, x: f32| r.is_none_or(|r| x >= r[0] - 1e-2 && x <= r[1] + 1e-2);
        match rule.kind {
            CornerKind::CornerPair => {
                // Either the first of the pair (the next mark has the rule too) or the second.
                let next = s.corners.get(k + 1).filter(|o| o.contour == m.contour);
                let prev = k
                    .checked_sub(1)
                    .map(|p| &s.corners[p])
                    .filter(|o| o.contour == m.contour);
                let first = next.is_some_and(|o| {
                    o.rule_line == Some(line)
                        && inr(Some(rule.angle), m.angle)
                        && inr(rule.angle2, o.angle)
                        && inr(rule.pair_len, len2)
                });
                let second =
                    prev.is_some_and(|o| o.rule_line == Some(line) && inr(rule.angle2, m.angle));
                assert!(first || second, "pair rule at corner {k} does not match");
            }
            _ => {
                assert!(
                    inr(Some(rule.angle), m.angle),
                    "corner {k}: {} not in {:?}",
                    m.angle,
                    rule.angle
                );
                assert!(
                    inr(rule.len1, len1) && inr(rule.len2, len2),
                    "corner {k} lengths {len1} {len2}"
                );
            }
        }
    }
    // Stop points: inside (not in a hole), and not covered by a later placement.
    for (k, sp) in s.stop_points.iter().enumerate() {
        assert!(point_in_rings(*sp, rings), "stop point {sp:?} outside");
        let unit = d.stop_units[k];
        let last = d.tile_units.iter().rposition(|&u| u == unit).unwrap();
        for (j, t) in s.tiles.iter().enumerate().skip(last + 1) {
            if d.tile_units[j] == unit {
                continue;
            }
            let f = frame_of(t);
            let l = f.to_local(*sp);
            let w = geom::len(geom::sub(t.corners[1], t.corners[0]));
            let dd = geom::len(geom::sub(t.corners[3], t.corners[0]));
            let e = COVER_EPS + 2e-3;
            assert!(
                !(l[0] > e && l[0] < w - e && l[1] > e && l[1] < dd - e),
                "stop point {sp:?} covered by later tile {j}"
            );
        }
    }
    // Fill trees: inside, outside every tile.
    for tr in &s.trees[d.fill_from..] {
        assert!(point_in_rings(tr.pos, rings));
        for t in &s.tiles {
            assert!(
                !index::in_quad(&shrunk(t, 0.0), tr.pos),
                "tree {:?} on a tile",
                tr.pos
            );
        }
    }
}

#[test]
fn rectangle_gets_corners_edges_and_caps_in_order() {
    let ag = asset(ASSET);
    let inp = input(vec![rect(100.0, 80.0)], 1, 3);
    let d = go(&ag, &inp);
    let s = &d.scene;
    check_spec(&ag, &inp, &d);
    assert_eq!(s.corners.len(), 4);
    let tier0 = [
        line_of(ASSET, "ATOMIC_SPELLING_CORNER"),
        line_of(ASSET, "CORNER_LEN"),
    ];
    for c in &s.corners {
        assert!((c.angle + 90.0).abs() < 1e-3, "{c:?}");
        assert!(tier0.contains(&c.rule_line.unwrap()), "tier 0 first: {c:?}");
    }
    let count = |r| s.tiles.iter().filter(|t| t.role == Some(r)).count();
    assert!(count(TileRole::Corner) >= 4);
    assert!(count(TileRole::Edge) > 10);
    assert_eq!(count(TileRole::Cap), 4, "one cap per side");
    assert_eq!(s.debug.caps.len(), 4);
    assert!(!s.stop_points.is_empty());
    assert!(!s.trees.is_empty(), "FILL_LAYER fills the middle");
    assert!(s.trees.iter().all(|t| t.layer == 2));
    assert!(s
        .tiles
        .iter()
        .all(|t| t.tile_id.is_some() && t.side.is_some()));
    // Scrapers and graded objects came through Emit.
    assert!(!s.objects.is_empty());
}

#[test]
fn turns_are_signed_as_the_spec_says() {
    // Walking counter-clockwise a square turns -90 at each corner; a reflex vertex turns
    // right, positive.
    assert!((turn_angle([0.0, 0.0], [10.0, 0.0], [10.0, 10.0]) + 90.0).abs() < 1e-4);
    assert!((turn_angle([0.0, 0.0], [10.0, 0.0], [10.0, -10.0]) - 90.0).abs() < 1e-4);
    assert!(turn_angle([0.0, 0.0], [10.0, 0.0], [20.0, 0.0]).abs() < 1e-4);
}

/// An L-shaped block: five convex corners and one reflex one (vertex 3, at (60, 40)).
fn ell() -> Vec<P2> {
    vec![
        [0.0, 0.0],
        [100.0, 0.0],
        [100.0, 40.0],
        [60.0, 40.0],
        [60.0, 90.0],
        [0.0, 90.0],
    ]
}

fn only_rules(rules: &str) -> String {
    let head: String = ASSET
        .lines()
        .take_while(|l| !l.starts_with("ATOMIC_SPELLING_CORNER"))
        .map(|l| format!("{l}\n"))
        .collect();
    format!("{head}{rules}")
}

#[test]
fn one_tile_corners_end_at_convex_vertices_and_fill_reflex_pockets() {
    let src = only_rules("CORNER -170 -30 20\nCORNER 30 170 21\nSPELLING 1\n");
    let ag = asset(&src);
    let inp = input(vec![ell()], 1, 0);
    let d = go(&ag, &inp);
    check_spec(&ag, &inp, &d);
    let s = &d.scene;
    let ring = &s.polygon[0];
    let corners: Vec<&SceneTile> = s
        .tiles
        .iter()
        .filter(|t| t.role == Some(TileRole::Corner))
        .collect();
    assert_eq!(corners.len(), 6, "every corner placed");
    for (k, m) in s.corners.iter().enumerate() {
        let t = corners[k];
        let v = ring.iter().position(|p| *p == m.pos).unwrap();
        let prev = ring[(v + ring.len() - 1) % ring.len()];
        let dir = Frame::along(prev, m.pos).u;
        assert!(
            near(frame_of(t).u, dir, 1e-4),
            "bottom along the arriving segment"
        );
        if m.angle < 0.0 {
            assert_eq!(t.tile_id, Some(20));
            assert!(
                near(t.corners[1], m.pos, 1e-3),
                "convex: ends at the vertex"
            );
        } else {
            assert_eq!(t.tile_id, Some(21));
            assert!(
                near(t.corners[0], m.pos, 1e-3),
                "reflex: starts at the vertex"
            );
            // In the pocket: past the vertex along the arriving side, before the leaving one.
            let mid = geom::lerp(t.corners[0], t.corners[2], 0.5);
            assert!(point_in_rings(mid, std::slice::from_ref(ring)));
            let d_out = Frame::along(m.pos, ring[(v + 1) % ring.len()]).u;
            let rel = geom::sub(mid, m.pos);
            assert!(
                geom::dot(rel, dir) > 0.0 && geom::dot(rel, d_out) < 0.0,
                "{mid:?}"
            );
        }
        assert_eq!(
            t.side,
            u32::try_from(k).ok(),
            "a corner tile belongs to the side it starts"
        );
    }
}

#[test]
fn articulated_corners_join_at_pivots_with_equal_turns() {
    for (order_line, expect) in [("", [31, 30, 32]), ("CORNER_ORDER 2 1 0\n", [32, 31, 30])] {
        let src = only_rules(&format!(
            "CORNER -170 -30 30 31 32\n{order_line}SPELLING 1\n"
        ));
        let ag = asset(&src);
        let inp = input(vec![rect(100.0, 80.0)], 1, 0);
        let d = go(&ag, &inp);
        check_spec(&ag, &inp, &d);
        let s = &d.scene;
        let corner_tiles: Vec<&SceneTile> = s
            .tiles
            .iter()
            .filter(|t| t.role == Some(TileRole::Corner))
            .collect();
        assert_eq!(corner_tiles.len(), 12);
        for (k, unit) in corner_tiles.chunks(3).enumerate() {
            let ids: Vec<i64> = unit.iter().map(|t| t.tile_id.unwrap()).collect();
            assert_eq!(ids, expect, "placement order");
            let by = |id: i64| *unit.iter().find(|t| t.tile_id == Some(id)).unwrap();
            let (a, b, c) = (by(30), by(31), by(32));
            // Lead (bottom-right) of one on the trail (bottom-left) of the next.
            assert!(near(a.corners[1], b.corners[0], 1e-3));
            assert!(near(b.corners[1], c.corners[0], 1e-3));
            let ang = |t: &SceneTile| {
                let u = frame_of(t).u;
                u[1].atan2(u[0]).to_degrees()
            };
            let t1 = geom::wrap_deg(ang(b) - ang(a));
            let t2 = geom::wrap_deg(ang(c) - ang(b));
            assert!(
                (t1 - t2).abs() < 1e-2 && (t1 - 45.0).abs() < 1e-2,
                "{t1} {t2}"
            );
            // First and last tile bottoms on the two sides' lines.
            let m = &s.corners[k];
            let ring = &s.polygon[0];
            assert!(ring_dist(a.corners[0], ring) < 1e-3 && ring_dist(a.corners[1], ring) < 1e-3);
            assert!(ring_dist(c.corners[0], ring) < 1e-3 && ring_dist(c.corners[1], ring) < 1e-3);
            assert!(m.rule_line.is_some());
        }
    }
}

#[test]
fn share_y_gives_an_atomic_spelling_one_ground_point() {
    let src = only_rules("ATOMIC_SPELLING 0 10000 0 10 11 12\n");
    for share in [true, false] {
        let text = if share {
            src.clone()
        } else {
            src.replace("SHARE_Y\n", "# no SHARE_Y\n")
        };
        let lines = [
            line_of(&text, "OBJ_GRADED 40 260"),
            line_of(&text, "OBJ_GRADED 120 260"),
            line_of(&text, "OBJ_GRADED 200 260"),
        ];
        let ag = asset(&text);
        assert_eq!(ag.string.as_ref().unwrap().share_y, share);
        let inp = input(vec![rect(100.0, 80.0)], 1, 0);
        let d = go(&ag, &inp);
        check_spec(&ag, &inp, &d);
        let objs: Vec<_> = d
            .scene
            .objects
            .iter()
            .filter(|o| lines.contains(&o.line))
            .collect();
        assert!(objs.len() >= 6, "{}", objs.len());
        for tri in objs.chunks(3) {
            assert_eq!(tri.iter().map(|o| o.line).collect::<Vec<_>>(), lines);
            let same = tri.iter().all(|o| o.ground_pt == tri[0].ground_pt);
            assert_eq!(same, share, "SHARE_Y {share}: {tri:?}");
        }
        // The first tile's ground point is its GROUND_PT (40, 300): 10 m up from the road.
        let first = d
            .scene
            .tiles
            .iter()
            .find(|t| t.tile_id == Some(10))
            .unwrap();
        let g = frame_of(first).to_world([4.0, 10.0]);
        assert!(near(objs[0].ground_pt, g, 1e-3));
    }
}

#[test]
fn corner_groups_follow_the_previous_corner() {
    // CORNER_LEN with group 3 needs the previous corner to be in group 3; tile 1 is not.
    let src = only_rules("CORNER_LEN 0 1000 -100 -60 0 1000 3 20\nPRIORITY_MARKER_CORNER\nCORNER -170 -30 1\nSPELLING 1\n");
    let ag = asset(&src);
    let len_line = line_of(&src, "CORNER_LEN");
    let d = go(&ag, &input(vec![rect(100.0, 80.0)], 1, 0));
    // The first corner passes (nothing before it), and each later one follows a group-3 tile.
    assert!(d
        .scene
        .corners
        .iter()
        .all(|c| c.rule_line == Some(len_line)));
    // With group 1 instead, only the first corner may use it; the next falls back.
    let src1 = src.replace(
        "CORNER_LEN 0 1000 -100 -60 0 1000 3 20",
        "CORNER_LEN 0 1000 -100 -60 0 1000 1 20",
    );
    let ag1 = asset(&src1);
    let d1 = go(&ag1, &input(vec![rect(100.0, 80.0)], 1, 0));
    let lines: Vec<_> = d1.scene.corners.iter().map(|c| c.rule_line).collect();
    assert_eq!(lines[0], Some(len_line));
    assert_eq!(lines[1], Some(line_of(&src1, "CORNER -170")));
}

#[test]
fn corner_pairs_take_both_corners() {
    // A 100 x 15 strip: the short sides are 15 m, within the pair's 5..25.
    let src = only_rules("CORNER_PAIR -120 -60 5 25 -120 -60 0 20 21\nPRIORITY_MARKER_CORNER\nCORNER -170 -30 1\nSPELLING 1\n");
    let ag = asset(&src);
    let d = go(&ag, &input(vec![rect(100.0, 15.0)], 1, 0));
    let pair = line_of(&src, "CORNER_PAIR");
    let lines: Vec<_> = d.scene.corners.iter().map(|c| c.rule_line).collect();
    // Corner 1 (end of the long side) starts a pair over the 15 m side; corner 3 likewise.
    assert_eq!(
        lines,
        vec![
            Some(line_of(&src, "CORNER -170")),
            Some(pair),
            Some(pair),
            Some(line_of(&src, "CORNER -170"))
        ]
    );
    let ids: Vec<i64> = d
        .scene
        .tiles
        .iter()
        .filter(|t| t.role == Some(TileRole::Corner))
        .filter_map(|t| t.tile_id)
        .collect();
    assert!(
        ids.windows(2).any(|w| w == [20, 21]),
        "two tiles: one per corner {ids:?}"
    );
}

#[test]
fn atomic_corners_are_whole_or_replaced() {
    // A small lake under one stop point of the articulated corner at (100, 80) stops that
    // tile: the atomic rule yields to the next tier, never leaving part of it.
    let ag = asset(ASSET);
    let atomic_line = line_of(ASSET, "ATOMIC_SPELLING_CORNER");
    let at_c2 = |d: &Detailed| {
        d.scene
            .corners
            .iter()
            .find(|c| near(c.pos, [100.0, 80.0], 1e-3))
            .unwrap()
            .rule_line
    };
    let free = go(&ag, &input(vec![rect(100.0, 80.0)], 1, 5));
    assert_eq!(at_c2(&free), Some(atomic_line));
    // A stop point of the atomic corner at c2: the unit of a tile whose corner is c2's.
    let k = free
        .scene
        .stop_points
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            let unit = free.stop_units[*i];
            free.scene
                .tiles
                .iter()
                .zip(&free.tile_units)
                .any(|(t, &u)| {
                    u == unit
                        && t.atomic.is_some()
                        && t.corners.iter().any(|p| near(*p, [100.0, 80.0], 14.0))
                })
        })
        .map(|(i, _)| i)
        .next()
        .expect("a stop point of the atomic corner");
    let sp = free.scene.stop_points[k];
    let hole = vec![
        [sp[0] - 0.5, sp[1] - 0.5],
        [sp[0] - 0.5, sp[1] + 0.5],
        [sp[0] + 0.5, sp[1] + 0.5],
        [sp[0] + 0.5, sp[1] - 0.5],
    ];
    let inp = input(vec![rect(100.0, 80.0), hole], 1, 5);
    let d = go(&ag, &inp);
    check_spec(&ag, &inp, &d);
    assert_ne!(at_c2(&d), Some(atomic_line));
}

#[test]
fn spellings_fill_by_priority_and_best_fit() {
    // A circle of 90 short segments (4 degree turns, under the crease angle): no corners,
    // one side all round.
    let circle: Vec<P2> = (0..90)
        .map(|i| {
            let a = i as f32 * 4.0_f32.to_radians();
            [60.0 * a.cos(), 60.0 * a.sin()]
        })
        .collect();
    let src = only_rules("SPELLING 2\nPRIORITY_MARKER\nSPELLING 1\n");
    let ag = asset(&src);
    for seed in 0..5 {
        let inp = input(vec![circle.clone()], 1, seed);
        let d = go(&ag, &inp);
        check_spec(&ag, &inp, &d);
        assert!(d.scene.corners.is_empty());
        let ids: Vec<i64> = d.scene.tiles.iter().filter_map(|t| t.tile_id).collect();
        // Tier 0 (14 m) fills while it fits; only what is left after (< 14 m) takes tier 1
        // (6 m): at most two of them, all after the last tier-0 tile.
        let n2 = ids.iter().filter(|&&i| i == 2).count();
        let n1 = ids.iter().filter(|&&i| i == 1).count();
        assert!(n2 >= 20, "{ids:?}");
        assert!(n1 <= 2, "{ids:?}");
        if let Some(first1) = ids.iter().position(|&i| i == 1) {
            assert!(
                ids.iter().rposition(|&i| i == 2).unwrap() < first1,
                "{ids:?}"
            );
        }
    }
}

#[test]
fn stop_points_make_tiles_slide_or_skip() {
    // A hole whose edge runs 3 m in from the bottom side, under tile 0's stop point (6 m in)
    // for part of the side.
    let src = only_rules("SPELLING 0\n");
    let ag = asset(&src);
    let hole = vec![[20.0, 3.0], [20.0, 9.0], [45.0, 9.0], [45.0, 3.0]];
    let inp = input(vec![rect(100.0, 80.0), hole], 1, 0);
    let d = go(&ag, &inp);
    check_spec(&ag, &inp, &d);
    let bottom: Vec<&SceneTile> = d
        .scene
        .tiles
        .iter()
        .filter(|t| t.corners[0][1].abs() < 1e-3 && t.corners[1][1].abs() < 1e-3)
        .collect();
    assert!(!bottom.is_empty());
    for t in &bottom {
        // Its stop point is 5 m along: never in the hole. The tile itself may reach over
        // the hole: holes keep out stop points, not tiles.
        let stop = t.corners[0][0] + 5.0;
        assert!(
            !(stop > 20.0 && stop < 45.0),
            "stop point in the hole: {t:?}"
        );
    }
    assert!(
        bottom.iter().any(|t| t.corners[0][0] >= 40.0),
        "the side goes on past the hole"
    );
    // Tiles that reach over the hole without a stop point in it are marked.
    for t in &bottom {
        let over = t.corners[1][0] > 20.0 + 0.1 && t.corners[0][0] < 45.0 - 0.1;
        assert_eq!(t.crosses, over, "{t:?}");
    }
}

fn windings_input(w: Vec<Vec<P2>>, low: u32, seed: u64) -> LayoutInput {
    LayoutInput {
        windings: true,
        ..input(w, low, seed)
    }
}

fn geojson_input(rings: Vec<Vec<P2>>, spawn: Vec<Vec<bool>>, seed: u64) -> LayoutInput {
    LayoutInput {
        spawn: Some(spawn),
        ..input(rings, 1, seed)
    }
}

/// The example: a 100 x 60 block written as winding (SW→SE), then (SE→NE→NW→SW),
/// low byte 1: tiles along the south side only; neither rejected as open nor tiled along a
/// diagonal. The same block as rings with `spawn` flags (in either direction) lays out the
/// same.
#[test]
fn a_partly_spawning_block() {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("sample_scenery/autogen/lakeside.ags");
    let bytes = std::fs::read(&path).expect("the sample string");
    let ag = parse(&path, &bytes, &mut Vec::new()).unwrap();
    let (sw, se, ne, nw) = ([0.0, 0.0], [100.0, 0.0], [100.0, 60.0], [0.0, 60.0]);
    let inp = windings_input(vec![vec![sw, se], vec![se, ne, nw, sw]], 1, 4);
    let d = run(&ag, &path, &inp).unwrap();
    check_spec(&ag, &inp, &d);
    let s = &d.scene;
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.polygon, vec![vec![sw, se, ne, nw]]);
    assert_eq!(d.scene.spawn, vec![vec![true, false, false, false]]);
    assert!(s.tiles.len() >= 4, "{}", s.tiles.len());
    for t in &s.tiles {
        // Bottom edges on the south side, running east.
        assert!(
            t.corners[0][1].abs() < 1e-3 && t.corners[1][1].abs() < 1e-3,
            "{t:?}"
        );
        assert!(t.corners[1][0] > t.corners[0][0]);
        assert_ne!(
            t.role,
            Some(TileRole::Corner),
            "no corner between spawning edges"
        );
    }
    // The south side is filled by the best fit: its edge tiles reach within the shortest
    // spelling (10 m) of its end.
    let end = s
        .tiles
        .iter()
        .filter(|t| t.role == Some(TileRole::Edge))
        .map(|t| t.corners[1][0])
        .fold(0.0, f32::max);
    assert!(end > 90.0 - 1e-3, "{end}");
    // Four corners found, none with a rule (no corner lies between two spawning edges).
    assert_eq!(s.corners.len(), 4);
    assert!(s.corners.iter().all(|c| c.rule_line.is_none()));
    let json = |d: &Detailed| {
        let mut v = serde_json::to_value(&d.scene).unwrap();
        v["warnings"] = serde_json::Value::Null;
        v
    };
    // As rings with `spawn`.
    let g = geojson_input(
        vec![vec![sw, se, ne, nw]],
        vec![vec![true, false, false, false]],
        4,
    );
    let dg = run(&ag, &path, &g).unwrap();
    assert_eq!(json(&dg), json(&d));
    // Given clockwise, the flags follow their edges when the ring is reversed.
    let cw = geojson_input(
        vec![vec![sw, nw, ne, se]],
        vec![vec![false, false, false, true]],
        4,
    );
    let dc = run(&ag, &path, &cw).unwrap();
    assert_eq!(dc.scene.tiles, d.scene.tiles);
    // Without `spawn`, the parameter's meaning stays: the whole ring spawns.
    let all = run(&ag, &path, &input(vec![vec![sw, se, ne, nw]], 1, 4)).unwrap();
    assert!(all
        .scene
        .tiles
        .iter()
        .any(|t| t.corners[0][0] > 99.0 && t.corners[1][1] > 1.0));
    // Spawning windings that stop short of closing: the closing edge spawns nothing, and
    // a warning says so.
    let open = windings_input(vec![vec![sw, se, ne]], 1, 4);
    let dopen = run(&ag, &path, &open).unwrap();
    assert_eq!(dopen.scene.spawn, vec![vec![true, true, false]]);
    assert!(dopen
        .scene
        .warnings
        .lines()
        .iter()
        .any(|w| w.contains("do not come back")));
}

/// WED's own forms: a ring whose first edge does not spawn (a one-point winding first), and
/// an open non-spawning hole, join back into the ring and the hole.
#[test]
fn wed_windings_join_back() {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("sample_scenery/autogen/lakeside.ags");
    let bytes = std::fs::read(&path).expect("the sample string");
    let ag = parse(&path, &bytes, &mut Vec::new()).unwrap();
    let p = [[0.0, 0.0], [120.0, 0.0], [120.0, 90.0], [0.0, 90.0]];
    let hole = vec![[50.0, 40.0], [50.0, 50.0], [70.0, 50.0], [70.0, 40.0]];
    let w = vec![
        vec![p[0]],
        vec![p[2], p[3], p[0]],
        vec![p[0], p[1], p[2]],
        hole,
    ];
    let inp = windings_input(w, 2, 1);
    let d = run(&ag, &path, &inp).unwrap();
    check_spec(&ag, &inp, &d);
    assert!(d.scene.warnings.is_empty(), "{:?}", d.scene.warnings);
    assert_eq!(d.scene.polygon.len(), 2);
    assert_eq!(d.scene.spawn[0], vec![true, true, false, false]);
    assert_eq!(d.scene.spawn[1], vec![false; 4]);
    assert!(d.scene.tiles.iter().all(|t| t.contour == Some(0)));
    // The corner between the two spawning edges (0, 90) may get a corner rule.
    let live = d
        .scene
        .corners
        .iter()
        .find(|c| near(c.pos, p[3], 1e-3))
        .unwrap();
    assert!(live.rule_line.is_some(), "{:?}", d.scene.corners);
}

/// A hole that touches the outer contour, or starts on it, is still a hole: trees stay out
/// of it, and it is not "outside the outer contour".
#[test]
fn holes_are_judged_by_their_area() {
    let ag = asset(ASSET);
    let hole = vec![[40.0, 0.0], [20.0, 20.0], [40.0, 40.0], [60.0, 20.0]];
    let inp = input(vec![rect(100.0, 80.0), hole.clone()], 1, 0);
    let d = go(&ag, &inp);
    check_spec(&ag, &inp, &d);
    assert!(
        !d.scene
            .warnings
            .lines()
            .iter()
            .any(|w| w.contains("outside")),
        "{:?}",
        d.scene.warnings
    );
    let fill = &d.scene.trees[d.fill_from..];
    assert!(!fill.is_empty());
    for t in fill {
        assert!(
            !point_in_rings(t.pos, std::slice::from_ref(&hole)),
            "tree in the lake: {t:?}"
        );
    }
}

/// Stop points decide, and nothing else: a stop point 0.3 m inside the edge is legal;
/// tiles with stop points at their ends abut; a one-tile corner sharper than 90 degrees is
/// placed; a tile over a hole with no stop point in it is placed and marked.
#[test]
fn stop_points_are_the_only_obstacle() {
    // Tile 50: 10 x 12 m, stop points 0.3 m in from the road at both ends.
    let src = only_rules("CORNER -170 -100 21\nSPELLING 50\n").replace(
        "TILE_ID 40\n",
        "TILE_ID 50\nTILE 600 0 700 120\nSTOP_PT 600 3\nSTOP_PT 700 3\nTILE_ID 40\n",
    );
    let ag = asset(&src);
    let inp = input(vec![rect(100.0, 80.0)], 1, 0);
    let d = go(&ag, &inp);
    check_spec(&ag, &inp, &d);
    let mut bottom: Vec<&SceneTile> = d
        .scene
        .tiles
        .iter()
        .filter(|t| t.tile_id == Some(50) && t.corners[0][1].abs() < 1e-3)
        .collect();
    bottom.sort_by(|a, b| a.corners[0][0].total_cmp(&b.corners[0][0]));
    assert!(bottom.len() >= 6, "{}", bottom.len());
    for w in bottom.windows(2) {
        assert!(
            near(w[0].corners[1], w[1].corners[0], 1e-3),
            "they abut: {w:?}"
        );
    }
    // A triangle with a 45-degree corner: the one-tile corner rule places its tile there,
    // marked as crossing the boundary.
    let tri = vec![[0.0, 0.0], [100.0, 0.0], [0.0, 100.0]];
    let inp = input(vec![tri], 1, 0);
    let d = go(&ag, &inp);
    check_spec(&ag, &inp, &d);
    let sharp: Vec<_> = d
        .scene
        .corners
        .iter()
        .filter(|c| c.angle < -100.0)
        .collect();
    assert_eq!(sharp.len(), 2);
    assert!(sharp.iter().all(|c| c.rule_line.is_some()));
    assert!(d
        .scene
        .tiles
        .iter()
        .any(|t| t.role == Some(TileRole::Corner) && t.crosses));
}

/// "When the tile is placed, it will be moved so that the stop point is within the DSF
/// polygon": just so far (within 2 cm), not to the next half metre.
#[test]
fn a_tile_moves_just_far_enough_to_bring_its_stop_points_in() {
    // Tile 0: 10 m wide, its stop point 5 m along and 6 m in; a lake over that point for
    // the first 23.3 m of the bottom side.
    let ag = asset(&only_rules("SPELLING 0\n"));
    let lake = vec![[-1.0, 5.0], [-1.0, 7.0], [23.3, 7.0], [23.3, 5.0]];
    let outer = vec![[-2.0, 0.0], [100.0, 0.0], [100.0, 80.0], [-2.0, 80.0]];
    let inp = LayoutInput {
        spawn: Some(vec![vec![true, false, false, false], vec![false; 4]]),
        ..input(vec![outer, lake], 1, 0)
    };
    let d = go(&ag, &inp);
    check_spec(&ag, &inp, &d);
    let first = d
        .scene
        .tiles
        .iter()
        .map(|t| t.corners[0][0])
        .fold(f32::INFINITY, f32::min);
    // Its stop point (first + 5) just past the lake's end at 23.3.
    assert!(first + 5.0 > 23.3 && first + 5.0 < 23.3 + 0.02, "{first}");
}

/// An atomic spelling blocked by a lake under its stop point is discarded there, and the
/// side goes on: the other spellings fill past it, and with no other spelling the side
/// moves on until the atomic one can be placed.
#[test]
fn a_blocked_atomic_spelling_does_not_end_the_side() {
    // Tile 11's stop point is 12 m along the 24 m atomic spelling, 6 m in.
    let lake = vec![[2.0, 4.0], [2.0, 8.0], [60.0, 8.0], [60.0, 4.0]];
    for rules in [
        "ATOMIC_SPELLING 0 10000 0 10 11 12\nPRIORITY_MARKER\nSPELLING 1\n",
        "ATOMIC_SPELLING 0 10000 0 10 11 12\n",
    ] {
        let ag = asset(&only_rules(rules));
        let inp = input(vec![rect(200.0, 80.0), lake.clone()], 1, 0);
        let d = go(&ag, &inp);
        check_spec(&ag, &inp, &d);
        let bottom: Vec<&SceneTile> = d
            .scene
            .tiles
            .iter()
            .filter(|t| t.corners[0][1].abs() < 1e-3 && t.corners[1][1].abs() < 1e-3)
            .collect();
        assert!(
            bottom
                .iter()
                .any(|t| t.atomic.is_some() && t.corners[0][0] > 60.0),
            "{rules}: atomic spellings after the lake"
        );
        let n_atomic = bottom.iter().filter(|t| t.atomic.is_some()).count();
        assert!(n_atomic >= 12, "{rules}: {n_atomic}");
    }
}

/// "Spellings of 20, 25 and 30 m on a 45 m side give 20+25 or 25+20, never a 15 m gap."
#[test]
fn a_side_some_combination_fills_is_filled_exactly() {
    let src = only_rules("SPELLING 60\nSPELLING 61\nSPELLING 62\n").replace(
        "TILE_ID 40\n",
        "TILE_ID 60\nTILE 0 600 200 700\nTILE_ID 61\nTILE 200 600 450 700\nTILE_ID 62\nTILE 450 600 750 700\nTILE_ID 40\n",
    );
    let ag = asset(&src);
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..30 {
        let inp = geojson_input(
            vec![rect(45.0, 40.0)],
            vec![vec![true, false, false, false]],
            seed,
        );
        let d = go(&ag, &inp);
        check_spec(&ag, &inp, &d);
        let ids: Vec<i64> = d.scene.tiles.iter().filter_map(|t| t.tile_id).collect();
        let total: f32 = d
            .scene
            .tiles
            .iter()
            .map(|t| geom::len(geom::sub(t.corners[1], t.corners[0])))
            .sum();
        assert!((total - 45.0).abs() < 1e-3, "seed {seed}: {ids:?}");
        seen.insert(ids);
    }
    assert_eq!(seen.len(), 2, "{seen:?}");
}

#[test]
fn same_seed_same_layout() {
    let ag = asset(ASSET);
    let a = layout(&ag, Path::new("s.ags"), &input(vec![ell()], 1, 9)).unwrap();
    let b = layout(&ag, Path::new("s.ags"), &input(vec![ell()], 1, 9)).unwrap();
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
    let differ = (10..20).any(|seed| {
        let c = layout(&ag, Path::new("s.ags"), &input(vec![ell()], 1, seed)).unwrap();
        serde_json::to_string(&c).unwrap() != serde_json::to_string(&a).unwrap()
    });
    assert!(differ, "the seed changes something");
}

#[test]
fn no_polygon_uses_the_built_in_town_with_a_warning() {
    let ag = asset(ASSET);
    let s = layout(&ag, Path::new("s.ags"), &LayoutInput::default()).unwrap();
    assert!(
        s.warnings
            .lines()
            .iter()
            .any(|w| w.contains("no polygon given")),
        "{:?}",
        s.warnings
    );
    assert_eq!(s.polygon.len(), 2);
    // Without a parameter every contour spawns tiles: the lake shore too.
    assert!(s.tiles.iter().any(|t| t.contour == Some(1)));
    assert!(s.tiles.len() > 20);
}

#[test]
fn bad_polygons_warn_or_fail_cleanly() {
    let ag = asset(ASSET);
    let path = Path::new("s.ags");
    let warn = |inp: &LayoutInput, text: &str| {
        let s = layout(&ag, path, inp).unwrap();
        assert!(
            s.warnings.lines().iter().any(|w| w.contains(text)),
            "want `{text}` in {:?}",
            s.warnings
        );
        s
    };
    let fail = |inp: &LayoutInput, text: &str| {
        let e = layout(&ag, path, inp).unwrap_err();
        assert!(
            e.is_error() && e.to_string().contains(text),
            "want `{text}`: {e}"
        );
    };
    let hole = vec![[40.0, 30.0], [40.0, 50.0], [60.0, 50.0], [60.0, 30.0]];
    // More spawning contours claimed than there are.
    warn(
        &input(vec![rect(100.0, 80.0), hole.clone()], 5, 0),
        "low byte says 5",
    );
    // Wrong windings are reversed, naming the contour.
    let mut cw = rect(100.0, 80.0);
    cw.reverse();
    let mut ccw_hole = hole.clone();
    ccw_hole.reverse();
    let s = warn(
        &input(vec![cw, ccw_hole], 2, 0),
        "contour 0 (the outer contour) runs clockwise",
    );
    assert!(s
        .warnings
        .lines()
        .iter()
        .any(|w| w.contains("contour 1 (a hole) runs counter-clockwise")));
    assert!(geom::signed_area2(&s.polygon[0]) > 0.0 && geom::signed_area2(&s.polygon[1]) < 0.0);
    // Repeated and zero-length vertices are dropped.
    let rep = vec![
        [0.0, 0.0],
        [0.0, 0.0],
        [100.0, 0.0],
        [100.0, 80.0],
        [100.0, 80.0],
        [0.0, 80.0],
        [0.0, 0.0],
    ];
    let s = warn(&input(vec![rep], 1, 0), "dropped 2 repeated");
    assert_eq!(s.polygon[0].len(), 4);
    assert!(!s.tiles.is_empty());
    // An open winding: a hole of two points is left out; an outer one is an error.
    warn(
        &input(
            vec![rect(100.0, 80.0), vec![[10.0, 10.0], [20.0, 20.0]]],
            2,
            0,
        ),
        "contour 1 (a hole) is open",
    );
    fail(
        &input(vec![vec![[0.0, 0.0], [10.0, 0.0]]], 1, 0),
        "contour 0 (the outer contour) is open",
    );
    fail(
        &input(vec![vec![[0.0, 0.0], [10.0, 0.0], [20.0, 0.0]]], 1, 0),
        "is open",
    );
    // Self-intersection, and a hole crossing the outer contour.
    fail(
        &input(
            vec![vec![[0.0, 0.0], [50.0, 50.0], [50.0, 0.0], [0.0, 50.0]]],
            1,
            0,
        ),
        "contour 0 crosses itself",
    );
    fail(
        &input(
            vec![
                rect(100.0, 80.0),
                vec![[90.0, 10.0], [90.0, 20.0], [120.0, 20.0], [120.0, 10.0]],
            ],
            1,
            0,
        ),
        "contour 0 crosses contour 1",
    );
    // Not finite.
    fail(
        &input(vec![vec![[0.0, 0.0], [f32::NAN, 0.0], [10.0, 10.0]]], 1, 0),
        "not a finite number",
    );
    fail(&input(vec![], 1, 0), "no contour");
    // A hole outside the outer contour.
    warn(
        &input(
            vec![
                rect(100.0, 80.0),
                vec![[200.0, 0.0], [200.0, 10.0], [210.0, 10.0], [210.0, 0.0]],
            ],
            1,
            0,
        ),
        "lies outside the outer contour",
    );
    // The error names the polygon file and line when there is one.
    let mut inp = input(
        vec![vec![[0.0, 0.0], [50.0, 50.0], [50.0, 0.0], [0.0, 50.0]]],
        1,
        0,
    );
    inp.polygon_source = Some(("town.geojson".into(), 7));
    let e = layout(&ag, path, &inp).unwrap_err();
    assert!(e.to_string().starts_with("town.geojson:7:1: error:"), "{e}");
}

#[test]
fn spelling_longer_than_every_side_is_a_warning_with_its_line() {
    let src = ASSET.replace("CAPS 40", "SPELLING 2 2 2 2 2 2 2 2 2 2\nCAPS 40");
    let ag = asset(&src);
    let line = line_of(&src, "SPELLING 2 2 2");
    let s = layout(
        &ag,
        Path::new("s.ags"),
        &input(vec![rect(100.0, 80.0)], 1, 0),
    )
    .unwrap();
    let want = format!("s.ags:{line}:1: warning: spelling is 140.0 m long, longer than every side");
    assert!(
        s.warnings.lines().iter().any(|w| w.starts_with(&want)),
        "{:?}",
        s.warnings
    );
}

#[test]
fn tiny_and_huge_polygons_stay_bounded() {
    let ag = asset(ASSET);
    // Smaller than any tile: corners and edges do not fit; no panic.
    let s = layout(&ag, Path::new("s.ags"), &input(vec![rect(3.0, 2.0)], 1, 0)).unwrap();
    assert!(s.tiles.is_empty());
    // Huge: everything is bounded (the tile and tree caps; no timing here, see benches/).
    let s = layout(
        &ag,
        Path::new("s.ags"),
        &input(vec![rect(2.0e5, 1.5e5)], 1, 0),
    )
    .unwrap();
    assert!(s.tiles.len() <= MAX_TILES);
    assert!(s.trees.len() <= MAX_FILL_TREES);
    assert!(
        s.warnings
            .lines()
            .iter()
            .any(|w| w.contains("the fill would need")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn hide_tile_lays_tiles_out_but_marks_them_hidden() {
    let ag = asset(&ASSET.replace("SHARE_Y\n", "SHARE_Y\nHIDE_TILE\n"));
    let s = layout(
        &ag,
        Path::new("s.ags"),
        &input(vec![rect(100.0, 80.0)], 1, 0),
    )
    .unwrap();
    assert!(s.hide_tiles);
    assert!(!s.tiles.is_empty(), "annotations still need the tiles");
    assert!(!s.objects.is_empty());
}

#[test]
fn extreme_coordinates_do_not_panic() {
    let ag = asset(ASSET);
    let path = Path::new("s.ags");
    for k in [1e30f32, 1e-30, 3.0e38] {
        let r = vec![[0.0, 0.0], [k, 0.0], [k, k * 0.8], [0.0, k * 0.8]];
        // Either a layout or a clean error; never a panic or a hang.
        let _ = layout(&ag, path, &input(vec![r], 1, 0));
    }
    let far = vec![
        [1e7, 1e7],
        [1e7 + 100.0, 1e7],
        [1e7 + 100.0, 1e7 + 80.0],
        [1e7, 1e7 + 80.0],
    ];
    let s = layout(&ag, path, &input(vec![far], 1, 0)).unwrap();
    assert!(s.tiles.len() < MAX_TILES);
}

#[test]
fn crop_polygons_follow_their_tile() {
    // Tile 1 cropped to its left half (clockwise in pixels, as the spec wants).
    let src = only_rules("SPELLING 1\n").replace(
        "TILE 100 0 160 120\n",
        "TILE 100 0 160 120\nCROP_POLY 100 0 100 120 130 120 130 0\n",
    );
    let ag = asset(&src);
    let s = layout(
        &ag,
        Path::new("s.ags"),
        &input(vec![rect(100.0, 80.0)], 1, 0),
    )
    .unwrap();
    let t = s.tiles.iter().find(|t| t.tile_id == Some(1)).unwrap();
    let crop = t.crop.as_deref().unwrap();
    assert_eq!(crop.len(), 4);
    assert!(
        geom::signed_area2(crop) > 0.0,
        "counter-clockwise in meters"
    );
    let f = frame_of(t);
    for p in crop {
        let l = f.to_local(*p);
        assert!(
            l[0] > -1e-3 && l[0] < 3.0 + 1e-3 && l[1] > -1e-3 && l[1] < 12.0 + 1e-3,
            "{l:?}"
        );
    }
}

// The sample string on its GeoJSON polygon (built by the command line's `input`, a crate
// above this one) is laid out in `tests/layout_samples.rs`,
// `lakeside_sample_lays_out_on_its_geojson`.

// ---------------------------------------------------------------- generated polygons

/// A polygon of one of four kinds, from `seed`: 0 convex, 1 concave (a star), 2 a star with
/// holes, 3 a block whose sides are many short segments bending under the crease angle.
fn polygon(kind: u8, n: usize, seed: u64) -> Vec<Vec<P2>> {
    let mut rng = Rng::new(seed);
    let tau = std::f32::consts::TAU;
    let star = |rng: &mut Rng, n: usize, r: f32, noise: f32, c: P2, ccw: bool| {
        let mut v: Vec<P2> = (0..n)
            .map(|i| {
                let a = (i as f32 + rng.f32() * 0.7) / n as f32 * tau;
                let rr = r * (1.0 - noise * rng.f32());
                [c[0] + rr * a.cos(), c[1] + rr * a.sin()]
            })
            .collect();
        if !ccw {
            v.reverse();
        }
        v
    };
    let rot = rng.f32() * tau;
    let turn = |v: Vec<P2>| {
        v.into_iter()
            .map(|p| geom::rotate_cw(p, rot.to_degrees()))
            .collect::<Vec<_>>()
    };
    let rings = match kind {
        0 => {
            let (a, b) = (40.0 + rng.f32() * 110.0, 40.0 + rng.f32() * 110.0);
            let m = 4 + n % 10;
            let mut v: Vec<P2> = (0..m)
                .map(|i| {
                    let t = (i as f32 + rng.f32() * 0.7) / m as f32 * tau;
                    [a * t.cos(), b * t.sin()]
                })
                .collect();
            v.dedup();
            vec![v]
        }
        1 => {
            let r = 60.0 + rng.f32() * 90.0;
            vec![star(&mut rng, 5 + n % 30, r, 0.55, [0.0; 2], true)]
        }
        2 => {
            let r = 80.0 + rng.f32() * 70.0;
            let outer = star(&mut rng, 8 + n % 40, r, 0.2, [0.0; 2], true);
            let h1 = star(&mut rng, 4 + n % 9, r * 0.2, 0.3, [r * 0.3, 0.0], false);
            let h2 = star(
                &mut rng,
                4 + n % 7,
                r * 0.15,
                0.3,
                [-r * 0.35, r * 0.1],
                false,
            );
            vec![outer, h1, h2]
        }
        _ => {
            let (w, h) = (60.0 + rng.f32() * 120.0, 60.0 + rng.f32() * 120.0);
            let per = 2 + n % 12;
            let corners = [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]];
            let mut v = Vec::new();
            for k in 0..4 {
                let (a, b) = (corners[k], corners[(k + 1) % 4]);
                let normal = left(Frame::along(a, b).u);
                let seg = geom::len(geom::sub(b, a)) / per as f32;
                for i in 0..per {
                    let off = if i == 0 {
                        0.0
                    } else {
                        (rng.f32() - 0.5) * seg * 0.15
                    };
                    v.push(geom::add(
                        geom::lerp(a, b, i as f32 / per as f32),
                        geom::scale(normal, off),
                    ));
                }
            }
            let hole = star(&mut rng, 6, w.min(h) * 0.15, 0.2, [w * 0.5, h * 0.5], false);
            vec![v, hole]
        }
    };
    rings.into_iter().map(turn).collect()
}

#[test]
fn stop_points_near_a_turned_tile_corner_are_seen() {
    // Found by the property test: tile 8's corner came 0.54 m from an earlier stop point,
    // inside the clearance along the tile's own axes but outside its world box grown by it.
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("sample_scenery/autogen/lakeside.ags");
    let Ok(bytes) = std::fs::read(&path) else {
        return;
    };
    let ag = parse(&path, &bytes, &mut Vec::new()).unwrap();
    let seed = 5521509686956633184;
    let inp = input(polygon(3, 687, seed), 2, seed);
    let d = run(&ag, &path, &inp).unwrap();
    check_spec(&ag, &inp, &d);
}

#[test]
fn fill_trees_stay_off_tiles_on_a_generated_polygon() {
    // Found by the property test (stop 22's CI run): a fill tree 0.1 mm inside a tile's
    // edge, where the fill's scanline and the tile's quad rounded differently.
    let ag = asset(ASSET);
    let seed = 5101624474791752707;
    let inp = input(polygon(2, 584, seed), 1, seed);
    let d = go(&ag, &inp);
    check_spec(&ag, &inp, &d);
}

proptest! {
    // Failures are not written to proptest-regressions/ (outside this module); a case found
    // becomes a named test above.
    #![proptest_config(ProptestConfig {
        cases: 400,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn spec_properties_hold_on_generated_polygons(
        kind in 0u8..4,
        n in 0usize..1000,
        seed in any::<u64>(),
        low in 1u32..4,
    ) {
        let ag = asset(ASSET);
        let rings = polygon(kind, n, seed);
        let inp = input(rings, low, seed);
        let d = go(&ag, &inp);
        check_spec(&ag, &inp, &d);
        // Determinism per seed.
        let again = go(&ag, &inp);
        prop_assert_eq!(
            serde_json::to_string(&d.scene).unwrap(),
            serde_json::to_string(&again.scene).unwrap()
        );
    }

    #[test]
    fn the_lakeside_rules_hold_too(kind in 0u8..4, n in 0usize..1000, seed in any::<u64>()) {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("sample_scenery/autogen/lakeside.ags");
        let bytes = std::fs::read(&path).expect("the sample string");
        let ag = parse(&path, &bytes, &mut Vec::new()).unwrap();
        let inp = input(polygon(kind, n, seed), 2, seed);
        let d = run(&ag, &path, &inp).unwrap();
        check_spec(&ag, &inp, &d);
    }
}

/// The windings WED's exporter writes for an outer ring with these edge flags (see
/// `format::wed::export`): the spawning runs first, then the non-spawning runs (adjacent
/// runs sharing their end point; a one-point first winding when the first edge does not
/// spawn), then the holes, whole and open; and the number of spawning windings.
fn wed_windings(rings: &[Vec<P2>], flags: &[bool]) -> (Vec<Vec<P2>>, u32) {
    let outer = &rings[0];
    let mut spawning: Vec<Vec<P2>> = vec![Vec::new()];
    let mut other: Vec<Vec<P2>> = Vec::new();
    let mut last = true;
    for (p, &f) in outer.iter().zip(flags) {
        if last {
            spawning.last_mut().unwrap().push(*p);
        } else {
            other.last_mut().unwrap().push(*p);
        }
        if f != last {
            if last {
                other.push(vec![*p]);
            } else {
                spawning.push(vec![*p]);
            }
            last = f;
        }
    }
    if last {
        spawning.last_mut().unwrap().push(outer[0]);
    } else {
        other.last_mut().unwrap().push(outer[0]);
    }
    let n = spawning.len() as u32;
    let mut w = spawning;
    w.extend(other);
    w.extend(rings[1..].iter().cloned());
    (w, n)
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any spawn flags on the outer ring: the windings WED writes for them join back into the
    /// ring with those flags (the GeoJSON `spawn` form; the joined ring may start at another
    /// vertex), and the spec's statements hold (tiles only on spawning edges, see
    /// `check_spec`).
    #[test]
    fn windings_and_spawn_flags_lay_out_alike(kind in 0u8..4, n in 0usize..1000, seed in any::<u64>()) {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("sample_scenery/autogen/lakeside.ags");
        let bytes = std::fs::read(&path).expect("the sample string");
        let ag = parse(&path, &bytes, &mut Vec::new()).unwrap();
        let rings = polygon(kind, n, seed);
        let mut rng = Rng::new(seed ^ 0x5eed);
        let flags: Vec<bool> = rings[0].iter().map(|_| rng.below(3) > 0).collect();
        let (w, low) = wed_windings(&rings, &flags);
        let mut spawn: Vec<Vec<bool>> = rings.iter().map(|r| vec![false; r.len()]).collect();
        spawn[0] = flags;
        let a = windings_input(w, low, seed);
        let b = geojson_input(rings, spawn, seed);
        let (da, db) = (run(&ag, &path, &a), run(&ag, &path, &b));
        match (da, db) {
            (Ok(da), Ok(db)) => {
                check_spec(&ag, &a, &da);
                check_spec(&ag, &b, &db);
                let (pa, pb) = (&da.scene.polygon, &db.scene.polygon);
                prop_assert_eq!(pa.len(), pb.len());
                prop_assert_eq!(&pa[1..], &pb[1..]);
                prop_assert_eq!(&da.scene.spawn[1..], &db.scene.spawn[1..]);
                let m = pb[0].len();
                prop_assert_eq!(pa[0].len(), m);
                let k = pb[0].iter().position(|p| *p == pa[0][0]).expect("same vertices");
                for i in 0..m {
                    prop_assert_eq!(pa[0][i], pb[0][(i + k) % m]);
                    prop_assert_eq!(da.scene.spawn[0][i], db.scene.spawn[0][(i + k) % m]);
                }
            }
            (Err(ea), Err(eb)) => prop_assert_eq!(ea.message, eb.message),
            (x, y) => prop_assert!(false, "{:?} vs {:?}", x.map(|_| ()), y.map(|_| ())),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Windings of any points (one-point windings, repeats, chains that close or not, ends
    /// shared by several) join and lay out, or fail with an error; never a panic.
    #[test]
    fn any_windings_lay_out_or_fail_cleanly(
        w in proptest::collection::vec(
            proptest::collection::vec((0i32..6, 0i32..6), 0..6),
            0..6,
        ),
        low in 0u32..8,
        seed in any::<u64>(),
    ) {
        let ag = asset(ASSET);
        let w: Vec<Vec<P2>> = w
            .into_iter()
            .map(|r| r.into_iter().map(|(x, y)| [x as f32 * 20.0, y as f32 * 20.0]).collect())
            .collect();
        let _ = run(&ag, Path::new("s.ags"), &windings_input(w, low, seed));
    }
}

/// The benchmark's towns and the jagged stress towns (most vertices corners, sides a few
/// meters long) obey the spec's statements with the sample string, one and two spawning
/// contours.
#[test]
fn the_benchmark_and_jagged_towns_obey_the_spec() {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("sample_scenery/autogen/lakeside.ags");
    let bytes = std::fs::read(&path).expect("the sample string");
    let ag = parse(&path, &bytes, &mut Vec::new()).unwrap();
    let towns = bench_polygons(40, 3)
        .into_iter()
        .chain(jagged_polygons(40, 3));
    for (i, rings) in towns.enumerate() {
        let inp = input(rings, 1 + (i as u32 % 2), i as u64);
        let d = run(&ag, &path, &inp).unwrap();
        assert!(!d.scene.tiles.is_empty(), "town {i} got no tiles");
        check_spec(&ag, &inp, &d);
    }
}

/// The first timing generator, kept as a stress case: star-shaped towns whose every vertex
/// moves by up to 15 % of the radius, so most vertices are corners and sides are a few
/// meters long.
fn jagged_polygons(n: usize, seed: u64) -> Vec<Vec<Vec<P2>>> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let total = 20 + rng.below(181);
            let holes = (total / 5).max(6);
            let outer = total - holes;
            let r = 60.0 + rng.f32() * 60.0;
            let wobble = rng.f32() * std::f32::consts::TAU;
            let lobes = 2.0 + rng.below(4) as f32;
            let ring = |m: usize, radius: f32, noise: f32, ccw: bool, rng: &mut Rng| {
                let mut pts: Vec<P2> = (0..m)
                    .map(|i| {
                        let a = (i as f32 + rng.f32() * 0.6) / m as f32 * std::f32::consts::TAU;
                        let k = 1.0 + 0.12 * (lobes * a + wobble).sin();
                        let rr = radius * k * (1.0 - noise * rng.f32());
                        [rr * a.cos(), rr * a.sin()]
                    })
                    .collect();
                if !ccw {
                    pts.reverse();
                }
                pts
            };
            let o = ring(outer, r, 0.15, true, &mut rng);
            let h = ring(holes, r * 0.3, 0.2, false, &mut rng);
            vec![o, h]
        })
        .collect()
}

/// Found by the `ags_polygon` fuzz target: a triangle thousands of kilometres across, 12,000
/// km from the origin, with 15 spawning contours claimed. The tile limit is reached while an
/// edge tile is being placed; the cap for that side must not look for the tile that was not
/// kept.
#[test]
fn hitting_the_tile_limit_mid_side_does_not_cap_a_missing_tile() {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("sample_scenery/autogen/lakeside.ags");
    let bytes = std::fs::read(&path).expect("the sample string");
    let ag = parse(&path, &bytes, &mut Vec::new()).unwrap();
    let k = 1000.0;
    let rings = vec![vec![
        [-12337.0 * k, -12337.0 * k],
        [-12337.0 * k, 3855.0 * k],
        [3847.0 * k, 2575.0 * k],
    ]];
    let inp = LayoutInput {
        polygon: Some(rings),
        param: Some(0x690f),
        seed: 0x0f0f_0f0f,
        ..Default::default()
    };
    let d = run(&ag, &path, &inp).unwrap();
    let s = &d.scene;
    assert!(s.tiles.len() <= MAX_TILES);
    assert!(s.trees.len() - d.fill_from <= MAX_FILL_TREES);
    assert!(
        s.warnings
            .lines()
            .iter()
            .any(|w| w.contains("tiles: the layout stops there")),
        "{:?}",
        s.warnings
    );
}
