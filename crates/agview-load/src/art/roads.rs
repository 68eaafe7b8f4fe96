//! Road textures: each road look's files (resolved relative to its `.net`; a missing one
//! warns and draws the placeholder, as every texture does), or agview's own textures for
//! the plain profile: neutral asphalt with white edge lines and a dashed centre line, rail
//! ballast with two rails on sleepers, and a dark line for power lines.
//!
//! Across an image (x) is the road's s, from the left edge of travel to the right; down
//! it (y) is t, one repeat per the look's length.

use std::path::Path;

use super::ground::{grain, made, BUILTIN};
use super::{ImageData, ImagePool};
use crate::diag::Diagnostic;
use crate::scene::RoadLook;

/// The images of each look's textures (indexed by its rows' `texture`): for the plain
/// profile, one image of agview's own.
pub(crate) fn load_road_textures(
    looks: &[RoadLook],
    pool: &mut ImagePool,
    warnings: &mut Vec<Diagnostic>,
) -> Vec<Vec<usize>> {
    looks
        .iter()
        .map(|l| match l.plain.as_deref() {
            Some(band) => {
                let name = format!("{BUILTIN}road/{}", plain_texture(band));
                vec![pool.builtin(&name, || plain_image(&name))]
            }
            None => l
                .textures
                .iter()
                .map(|t| pool.load(&crate::diag::text_path(t), warnings))
                .collect(),
        })
        .collect()
}

/// Which of agview's road textures a plain band draws with.
fn plain_texture(band: &str) -> &'static str {
    match band {
        "rail" => "rail",
        "power line" => "power-line",
        _ => "asphalt",
    }
}

/// agview's own road texture `name` (`agview:road/asphalt|rail|power-line`).
fn plain_image(name: &str) -> ImageData {
    let kind = Path::new(name)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("asphalt")
        .to_string();
    match kind.as_str() {
        "rail" => made(name, 64, 128, |x, y| {
            // Sleepers every 0.6 m (20 per 12 m repeat), rails at 3/10 and 7/10 across.
            let rail = (18..=20).contains(&x) || (43..=45).contains(&x);
            let sleeper = (8..56).contains(&x) && y % 6 < 2;
            let g = (grain(x, y, 11) - 0.5) * 40.0;
            let c = |v: f32| (v + g).clamp(0.0, 255.0) as u8;
            if rail {
                [150, 150, 155, 255]
            } else if sleeper {
                [c(96.0), c(80.0), c(64.0), 255]
            } else {
                [c(128.0), c(120.0), c(110.0), 255]
            }
        }),
        "power-line" => made(name, 4, 4, |_, _| [24, 24, 26, 255]),
        _ => made(name, 64, 128, |x, y| {
            // White edge lines 2 px in from each side; a dashed centre line, 4.5 m of
            // every 12 m.
            let edge = (2..4).contains(&x) || (60..62).contains(&x);
            let centre = (31..33).contains(&x) && y < 48;
            let g = (grain(x, y, 5) - 0.5) * 14.0;
            let c = |v: f32| (v + g).clamp(0.0, 255.0) as u8;
            if edge || centre {
                [c(228.0), c(228.0), c(222.0), 255]
            } else {
                [c(84.0), c(84.0), c(86.0), 255]
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn look(plain: Option<&str>, textures: &[&str]) -> RoadLook {
        RoadLook {
            plain: plain.map(str::to_string),
            textures: textures.iter().map(|t| t.to_string()).collect(),
            ..RoadLook::default()
        }
    }

    #[test]
    fn plain_bands_share_agview_textures_and_missing_files_warn() {
        let mut pool = ImagePool::new();
        let mut w = Vec::new();
        let looks = [
            look(Some("primary"), &[]),
            look(Some("residential"), &[]),
            look(Some("rail"), &[]),
            look(Some("power line"), &[]),
            look(None, &["/nowhere/road.png"]),
        ];
        let t = load_road_textures(&looks, &mut pool, &mut w);
        assert_eq!(t[0], t[1], "asphalt bands share one image");
        assert_ne!(t[0], t[2]);
        assert_ne!(t[2], t[3]);
        let images = pool.images();
        assert!(!images[t[0][0]].missing && images[t[4][0]].missing);
        assert_eq!(w.len(), 1, "{w:?}");
    }
}
