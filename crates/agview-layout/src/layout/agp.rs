//! Autogen point layout: one tile, chosen with the seed, placed at a point and heading.

use std::path::Path;

use crate::diag::Diagnostic;
use crate::format::autogen::Autogen;
use crate::scene::{Scene, Tile};

use super::geom::{self, Frame};
use super::rng::Rng;
use super::{scene_for, Convention, Emit, LayoutInput, TileXf};

/// Lays out an `.agp` at `input.point` (the origin, heading 0, when none is given).
pub fn layout(ag: &Autogen, asset_path: &Path, input: &LayoutInput) -> Result<Scene, Diagnostic> {
    let mut scene = scene_for(ag, asset_path, input);
    let mut rng = Rng::new(input.seed);
    if ag.tiles.is_empty() {
        return Err(Diagnostic::error_file(
            asset_path,
            "the autogen point has no TILE",
        ));
    }
    let index = rng.below(ag.tiles.len());
    let tile = &ag.tiles[index];
    let point = input.point.unwrap_or_default();
    if input.polygon.is_some() && input.point.is_none() {
        scene.warnings.push(
            Diagnostic::warning_file(
                asset_path,
                "an autogen point is placed at a point; the polygon's first vertex is used",
            )
            .with_kind(crate::diag::kind::LAYOUT),
        );
    }
    let origin = match (&input.point, &input.polygon) {
        (None, Some(p)) => p
            .first()
            .and_then(|r| r.first())
            .copied()
            .unwrap_or([0.0; 2]),
        _ => point.pos,
    };
    let turns = f32::from(tile.rotation) * 90.0;
    let heading = match input.convention {
        Convention::Wed => point.heading + turns,
        Convention::Spec => point.heading + 180.0 - turns,
    };
    let frame = Frame {
        origin,
        u: geom::rotate_cw([1.0, 0.0], heading),
        v: geom::rotate_cw([0.0, 1.0], heading),
    };
    let [l, b, r, t] = tile.rect;
    let center = [(l + r) * 0.5, (b + t) * 0.5];
    let mut xf = TileXf::new(frame, tile.anchor.unwrap_or(center), ag.meters_per_pixel());
    if input.convention == Convention::Spec {
        // The spec's words: an object takes "a heading matching the autogen point, plus a
        // clockwise offset"; a tree is "rotated by the amount of the AG tile and then
        // additionally clockwise": the point's heading turned by ROTATION's
        // counter-clockwise steps. (The tile's own 180° is where its bottom edge faces, not
        // a turn of the tile.)
        xf.object_heading = point.heading;
        xf.tree_heading = point.heading - turns;
    }
    let corners = [[l, b], [r, b], [r, t], [l, t]].map(|p| xf.px(p));
    let crop = tile.crop_poly.as_ref().map(|c| {
        let mut w: Vec<[f32; 2]> = c.iter().map(|p| xf.px(*p)).collect();
        if geom::signed_area2(&w) < 0.0 {
            w.reverse();
        }
        std::sync::Arc::from(w)
    });
    scene.tiles.push(Tile {
        corners,
        uv: tile.rect,
        tile: u32::try_from(index).ok(),
        crop,
        ..Default::default()
    });
    scene.polygon = vec![corners.to_vec()];
    let ground = xf.px(tile.ground.unwrap_or(center));
    let mut emit = Emit {
        ag,
        input,
        rng: rng.fork(1),
    };
    for ann in &tile.annotations {
        emit.annotation(&mut scene, ann, &xf, ground);
    }
    Ok(scene)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::PointInput;
    use crate::scene::Placement;

    fn ag(src: &str) -> Autogen {
        crate::format::autogen::parse(Path::new("t.agp"), src.as_bytes(), &mut Vec::new()).unwrap()
    }

    const ONE: &str = "A\n1000\nAG_POINT\nTEXTURE_SCALE 100 100\nTEXTURE_WIDTH 50\nOBJECT o.obj\nTILE 0 0 100 100\nGROUND_PT 50 100\nOBJ_GRADED 50 100 10 0\nOBJ_SCRAPER 0 0 0 0 1 9 1\n";

    fn close(a: [f32; 2], b: [f32; 2]) -> bool {
        (a[0] - b[0]).abs() < 1e-3 && (a[1] - b[1]).abs() < 1e-3
    }

    #[test]
    fn wed_convention_puts_texture_up_north() {
        let a = ag(ONE);
        let s = layout(&a, Path::new("t.agp"), &LayoutInput::default()).unwrap();
        let t = &s.tiles[0];
        // 100 px = 50 m, anchored at the centre.
        assert!(close(t.corners[0], [-25.0, -25.0]), "{:?}", t.corners);
        assert!(close(t.corners[2], [25.0, 25.0]));
        let o = &s.objects[0];
        assert!(close(o.pos, [0.0, 25.0]), "top centre is north");
        assert_eq!(o.heading, 10.0);
        assert_eq!(o.mode, Placement::Graded);
        assert!(close(o.ground_pt, [0.0, 25.0]));
        // A scraper on a point acts as graded: no rise.
        assert_eq!(s.objects[1].z_offset, 0.0);
    }

    #[test]
    fn heading_and_rotation_turn_the_tile() {
        let a = ag(ONE);
        let input = LayoutInput {
            point: Some(PointInput {
                pos: [100.0, 0.0],
                heading: 90.0,
            }),
            ..Default::default()
        };
        let s = layout(&a, Path::new("t.agp"), &input).unwrap();
        // Heading 90: texture up points east.
        assert!(
            close(s.objects[0].pos, [125.0, 0.0]),
            "{:?}",
            s.objects[0].pos
        );
        assert_eq!(s.objects[0].heading, 100.0);
        let spec = LayoutInput {
            convention: Convention::Spec,
            ..Default::default()
        };
        let s = layout(&a, Path::new("t.agp"), &spec).unwrap();
        // The spec's reading: bottom edge to the north, so texture up points south.
        assert!(
            close(s.objects[0].pos, [0.0, -25.0]),
            "{:?}",
            s.objects[0].pos
        );
        let rot = ag(&ONE.replace("GROUND_PT", "ROTATION 1\nGROUND_PT"));
        let s = layout(&rot, Path::new("t.agp"), &LayoutInput::default()).unwrap();
        assert!(close(s.objects[0].pos, [25.0, 0.0]), "WED turns clockwise");
        assert_eq!(s.objects[0].heading, 100.0);
    }

    /// The table in `docs/spec-decisions.md`: tile (texture up), object and tree headings
    /// for ROTATION 0–3 under each convention, for a point at heading 30 with an object
    /// offset of 10 and a tree offset of 20.
    #[test]
    fn convention_table_for_tiles_objects_and_trees() {
        let src = "A\n1000\nAG_POINT\nTEXTURE_SCALE 100 100\nTEXTURE_WIDTH 50\nOBJECT o.obj\nTILE 0 0 100 100\nROTATION {n}\nOBJ_DRAPED 50 90 10 0\nTREE 50 90 20 5 0\n";
        let h = 30.0f32;
        for n in 0..4u8 {
            let a = ag(&src.replace("{n}", &n.to_string()));
            let turn = f32::from(n) * 90.0;
            for (conv, tile, obj, tree) in [
                (Convention::Wed, h + turn, h + turn + 10.0, h + turn + 20.0),
                (
                    Convention::Spec,
                    h + 180.0 - turn,
                    h + 10.0,
                    h - turn + 20.0,
                ),
            ] {
                let input = LayoutInput {
                    point: Some(PointInput {
                        pos: [0.0, 0.0],
                        heading: h,
                    }),
                    convention: conv,
                    ..Default::default()
                };
                let s = layout(&a, Path::new("t.agp"), &input).unwrap();
                let c = s.tiles[0].corners;
                let up = [c[3][0] - c[0][0], c[3][1] - c[0][1]];
                let got_tile = up[0].atan2(up[1]).to_degrees().rem_euclid(360.0);
                let same = |a: f32, b: f32| {
                    let d = (a - b).rem_euclid(360.0);
                    !(1e-3..=360.0 - 1e-3).contains(&d)
                };
                assert!(
                    same(got_tile, tile),
                    "{conv:?} ROTATION {n}: tile {got_tile} vs {tile}"
                );
                assert!(
                    same(s.objects[0].heading, obj),
                    "{conv:?} ROTATION {n}: object {} vs {obj}",
                    s.objects[0].heading
                );
                assert!(
                    same(s.trees[0].heading, tree),
                    "{conv:?} ROTATION {n}: tree {} vs {tree}",
                    s.trees[0].heading
                );
                // Positions follow the tile in both: the annotation 40 px above the centre
                // lies 20 m along texture up.
                let p = s.objects[0].pos;
                let want = geom::rotate_cw([0.0, 20.0], tile);
                assert!(close(p, want), "{conv:?} ROTATION {n}: {p:?} vs {want:?}");
            }
        }
    }

    /// `HIDE_TILES`: the tiles are laid out for their annotations, but the scene names no
    /// tile texture (`scene.rs`: "when the asset has one and does not hide its tiles").
    #[test]
    fn hidden_tiles_leave_out_the_tile_texture() {
        let shown = ag(&ONE.replace("TEXTURE_SCALE", "TEXTURE t.png\nTEXTURE_SCALE"));
        let s = layout(&shown, Path::new("t.agp"), &LayoutInput::default()).unwrap();
        assert!(s.tile_texture.is_some());
        let hidden = ag(&ONE.replace("TEXTURE_SCALE", "TEXTURE t.png\nHIDE_TILES\nTEXTURE_SCALE"));
        let s = layout(&hidden, Path::new("t.agp"), &LayoutInput::default()).unwrap();
        assert!(s.hide_tiles);
        assert!(s.tile_texture.is_none());
        assert_eq!(s.tiles.len(), 1);
        assert_eq!(s.objects.len(), 2);
    }

    #[test]
    fn tile_choice_is_seeded_and_covers_all_tiles() {
        let two = "A\n1000\nAG_POINT\nTEXTURE_SCALE 100 100\nTEXTURE_WIDTH 50\nTILE 0 0 50 50\nTILE 50 0 100 50\n";
        let a = ag(two);
        let mut seen = [0; 2];
        for seed in 0..200 {
            let input = LayoutInput {
                seed,
                ..Default::default()
            };
            let s1 = layout(&a, Path::new("t"), &input).unwrap();
            let s2 = layout(&a, Path::new("t"), &input).unwrap();
            assert_eq!(s1.tiles, s2.tiles, "same seed, same scene");
            seen[s1.tiles[0].tile.unwrap() as usize] += 1;
        }
        assert!(seen[0] > 60 && seen[1] > 60, "{seen:?}");
    }
}
