//! Jetways of an `apt.dat` (rows `1500`/`1501`, XP12.md §3) as facade features, drawn parked
//! and still: which facade a jetway is, and how its parked pose becomes the facade's nodes.
//!
//! The pose follows WED's `WED_FacadePlacement::ImportJetway`: the rotunda node at the row's
//! point, the cabin node `parked_tunnel_length` meters from it along
//! `parked_tunnel_heading`, and an end node [`CAB_NODE_M`] meters from the cabin node along
//! `parked_cab_heading`. The side rotunda → cabin node takes the `.fac`'s `#tunnel` wall of
//! the row's size code, the side cabin → end node its `#cabin` wall ([`jetway_walls`]).
//! X-Plane animates the tunnel with the `#tunnel` object; agview draws the tunnel wall's
//! segments, as WED's preview does, and never moves them. `install_heading` is kept, not
//! drawn: a parked jetway's geometry is the parked headings alone.

use std::path::{Path, PathBuf};

use crate::diag::{Diagnostic, Severity};
use crate::format::apt::Jetway;
use crate::format::facade::Facade;

/// Meters from the cabin node to the end node along the cab heading: WED's
/// `ImportJetway` places the end node 5 m out.
pub(super) const CAB_NODE_M: f32 = 5.0;

/// The facade height a jetway feature is placed with (the DSF parameter). A jetway facade has
/// no roof, so its walls are its segments as written whatever this is; a missing `.fac`'s
/// placeholder box stands this high.
pub(super) const JETWAY_HEIGHT_M: u32 = 5;

/// The default facade of a `1500` style code, as WED's `ImportJetway` picks it (style 3 is
/// the solid one again).
pub(super) fn default_facade(style: i64) -> Option<&'static str> {
    Some(match style {
        0 => "lib/airport/Ramp_Equipment/Jetways/Jetway_1_glass.fac",
        1 | 3 => "lib/airport/Ramp_Equipment/Jetways/Jetway_1_solid.fac",
        2 => "lib/airport/Ramp_Equipment/Jetways/Jetway_2_glass.fac",
        _ => return None,
    })
}

/// The parked jetway's nodes in meters east and north of its rotunda: rotunda, cabin node,
/// end node.
pub(super) fn parked_nodes(j: &Jetway) -> Vec<[f32; 2]> {
    let toward = |from: [f32; 2], heading: f64, m: f32| {
        let h = heading.to_radians();
        [from[0] + m * h.sin() as f32, from[1] + m * h.cos() as f32]
    };
    let rotunda = [0.0, 0.0];
    let cabin = toward(
        rotunda,
        j.parked_tunnel_heading,
        j.parked_tunnel_length as f32,
    );
    let end = toward(cabin, j.parked_cab_heading, CAB_NODE_M);
    vec![rotunda, cabin, end]
}

/// The wall types of a jetway's two sides: the `#tunnel` wall of its size code (the one
/// tagged with that code, else WED's pick, the `size_code`-th tunnel), and the `#cabin`
/// wall. `None` when the facade is no jetway.
pub(super) fn jetway_walls(fac: &Facade, size_code: i64) -> Option<[u32; 2]> {
    let cabin = fac.cabin.as_ref()?;
    let n = fac.tunnels.len();
    let tunnel = fac
        .tunnels
        .iter()
        .find(|t| t.size_code == size_code)
        .or_else(|| fac.tunnels.get(usize::try_from(size_code).ok()? % n.max(1)))?;
    Some([tunnel.wall, cabin.wall])
}

/// The facade a jetway is: its `1501` path when that names a `.fac`; when it names the
/// tunnel object (what WED writes), the package's `.fac` whose `#tunnel` names it
/// ([`find_by_tunnel`]); else the default facade of its style code. A `1501` that finds no
/// facade, or a style code with no default, warns at its line.
pub(super) fn facade_of(j: &Jetway, apt: &Path, diags: &mut Vec<Diagnostic>) -> Option<String> {
    let warn = |diags: &mut Vec<Diagnostic>, line: u32, m: String| {
        diags.push(Diagnostic::new(
            Severity::Warning,
            apt,
            crate::diag::Location::Text { line, col: 1 },
            m,
        ))
    };
    if let Some(custom) = &j.custom {
        let slashed = custom.replace('\\', "/");
        if slashed.to_ascii_lowercase().ends_with(".fac") {
            return Some(slashed);
        }
        let root = crate::resolve::package_root(apt);
        if let Some(found) = find_by_tunnel(&root, &slashed) {
            return Some(found);
        }
        let fallback = default_facade(j.style_code);
        warn(
            diags,
            j.custom_line,
            format!(
                "1501 `{custom}`: no .fac of this package has a #tunnel naming it; {}",
                fallback.map_or("the jetway is not drawn".to_string(), |f| format!(
                    "drawn with the default facade of style {} ({f})",
                    j.style_code
                ))
            ),
        );
        return fallback.map(str::to_string);
    }
    let d = default_facade(j.style_code);
    if d.is_none() {
        warn(
            diags,
            j.line,
            format!(
                "jetway style code {} has no default facade (0–3); the jetway is not drawn",
                j.style_code
            ),
        );
    }
    d.map(str::to_string)
}

/// Most files looked at when searching a package for a jetway's facade.
const MAX_SCANNED: usize = 20_000;

/// The package's `.fac` (path relative to `root`) with a `#tunnel` naming `tunnel`: as a
/// path relative to the `.fac`'s folder (WED writes a local facade's tunnel as its folder
/// plus the tag's object), or as written. Folders are visited in name order, so the same
/// package gives the same answer.
fn find_by_tunnel(root: &Path, tunnel: &str) -> Option<String> {
    let mut stack: Vec<PathBuf> = vec![root.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for p in entries.into_iter().rev() {
            seen += 1;
            if seen > MAX_SCANNED {
                return None;
            }
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if !p.extension().is_some_and(|e| e.eq_ignore_ascii_case("fac")) {
                continue;
            }
            let Ok(bytes) = std::fs::read(&p) else {
                continue;
            };
            if !bytes.windows(7).any(|w| w == b"#tunnel") {
                continue;
            }
            let Ok(fac) = crate::format::facade::parse(&p, &bytes, &mut Vec::new()) else {
                continue;
            };
            let rel = p
                .strip_prefix(root)
                .ok()?
                .to_string_lossy()
                .replace('\\', "/");
            let folder = rel.rsplit_once('/').map_or("", |(d, _)| d);
            let names = |t: &str| {
                let t = t.replace('\\', "/");
                t == tunnel || (!folder.is_empty() && format!("{folder}/{t}") == tunnel)
            };
            if fac.tunnels.iter().any(|t| names(&t.obj)) {
                return Some(rel);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jetway(tunnel_heading: f64, length: f64, cab_heading: f64) -> Jetway {
        Jetway {
            lat: 47.5,
            lon: 8.5,
            install_heading: 0.0,
            style_code: 0,
            size_code: 1,
            door_2: false,
            parked_tunnel_heading: tunnel_heading,
            parked_tunnel_length: length,
            parked_cab_heading: cab_heading,
            custom: None,
            line: 3,
            custom_line: 0,
        }
    }

    #[test]
    fn the_parked_pose_gives_rotunda_cabin_and_end_nodes() {
        let n = parked_nodes(&jetway(90.0, 20.0, 180.0));
        let close =
            |a: [f32; 2], b: [f32; 2]| (a[0] - b[0]).abs() < 1e-4 && (a[1] - b[1]).abs() < 1e-4;
        assert!(close(n[0], [0.0, 0.0]));
        assert!(close(n[1], [20.0, 0.0]), "east for 90°: {:?}", n[1]);
        assert!(
            close(n[2], [20.0, -CAB_NODE_M]),
            "south for 180°: {:?}",
            n[2]
        );
    }

    #[test]
    fn the_tunnel_wall_follows_the_size_code() {
        let fac = crate::format::facade::parse(
            Path::new("j.fac"),
            crate::format::facade::test_jetway_fac("t.png").as_bytes(),
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(jetway_walls(&fac, 0), Some([0, 2]));
        assert_eq!(jetway_walls(&fac, 1), Some([1, 2]));
        // A size the facade has no tunnel for: WED's pick by position.
        assert_eq!(jetway_walls(&fac, 3), Some([1, 2]));
        let plain = crate::format::facade::parse(
            Path::new("p.fac"),
            crate::format::facade::test_hangar_fac("t.png").as_bytes(),
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(jetway_walls(&plain, 0), None);
    }

    #[test]
    fn default_facades_by_style_code() {
        assert!(default_facade(0).unwrap().ends_with("Jetway_1_glass.fac"));
        assert!(default_facade(2).unwrap().ends_with("Jetway_2_glass.fac"));
        assert_eq!(default_facade(1), default_facade(3));
        assert_eq!(default_facade(7), None);
    }
}
