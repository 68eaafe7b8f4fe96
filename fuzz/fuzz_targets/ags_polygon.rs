//! The sample autogen string laid out on polygons taken from the input: any number of
//! contours of any points (repeated, collinear, crossing, wound either way, huge or tiny),
//! any DSF parameter and seed, read as rings (with or without `spawn` flags) or as DSF
//! windings to join. The layout returns a scene or an error; it never panics or
//! loops.
#![no_main]
use libfuzzer_sys::fuzz_target;

const ASSET: &str = include_str!("../../sample_scenery/autogen/lakeside.ags");

fuzz_target!(|data: &[u8]| {
    thread_local! {
        static AG: agview_format::format::autogen::Autogen = agview_format::format::autogen::parse(
            std::path::Path::new("lakeside.ags"),
            ASSET.as_bytes(),
            &mut Vec::new(),
        )
        .expect("the sample parses");
    }
    if data.len() < 8 {
        return;
    }
    let (head, rest) = data.split_at(8);
    let param = u32::from(u16::from_le_bytes([head[0], head[1]]));
    let seed = u64::from(u32::from_le_bytes([head[2], head[3], head[4], head[5]]));
    // Scale: from a millimetre to 40 cm per unit (polygons up to 26 km across). Larger ones
    // hit the tile and tree limits on every run, which makes fuzzing crawl; the unit tests
    // cover them (`tiny_and_huge_polygons_stay_bounded`,
    // `hitting_the_tile_limit_mid_side_does_not_cap_a_missing_tile`).
    let scale = [0.001f32, 0.02, 0.1, 0.4][usize::from(head[6] % 4)];
    // Each point is 4 bytes (two i16); a point whose bytes are 0x7fff 0x7fff ends a contour.
    let mut rings: Vec<Vec<[f32; 2]>> = vec![Vec::new()];
    for c in rest.chunks_exact(4) {
        let x = i16::from_le_bytes([c[0], c[1]]);
        let y = i16::from_le_bytes([c[2], c[3]]);
        if x == i16::MAX && y == i16::MAX {
            rings.push(Vec::new());
            continue;
        }
        if let Some(r) = rings.last_mut() {
            r.push([f32::from(x) * scale, f32::from(y) * scale]);
        }
    }
    // Bit 1: the contours are DSF windings to join; bit 2: spawn flags drawn from the seed.
    let spawn: Option<Vec<Vec<bool>>> = (head[7] & 4 == 4).then(|| {
        rings
            .iter()
            .enumerate()
            .map(|(k, r)| (0..r.len()).map(|i| (seed >> ((k * 7 + i) % 32)) & 1 == 1).collect())
            .collect()
    });
    let input = agview_layout::layout::LayoutInput {
        polygon: Some(rings),
        param: (head[7] & 1 == 1).then_some(param),
        seed,
        windings: head[7] & 2 == 2,
        spawn,
        ..Default::default()
    };
    AG.with(|ag| {
        let _ = agview_layout::layout::layout(ag, std::path::Path::new("lakeside.ags"), &input);
    });
});
