//! The airports drawn with a DSF (its package's `apt.dat`, within the DSF's tile) and how
//! one airport item is laid out, in the install's pavement art where it has some.

use std::collections::HashMap;
use std::path::Path;

use super::features::{self, DocFeature};
use crate::diag::Diagnostic;
use crate::format;
use crate::input;
use crate::resolve::Resolver;
use crate::scene::Scene;

/// The airports of a DSF's package (`<root>/Earth nav data/apt.dat`) that lie in the DSF's
/// 1° tile (from its name, `+47+008.dsf`; every airport when the name says no tile), drawn
/// with the DSF. Problems in the `apt.dat` are reported; a missing one is nothing.
pub(super) fn package_airports(dsf: &Path, diags: &mut Vec<Diagnostic>) -> Vec<DocFeature> {
    let root = crate::resolve::package_root(dsf);
    let apt_path = root.join("Earth nav data").join("apt.dat");
    let Ok(bytes) = format::read_file(&apt_path) else {
        return Vec::new();
    };
    let apt = match format::apt::parse(&apt_path, &bytes, diags) {
        Ok(a) => a,
        Err(e) => {
            diags.push(e);
            return Vec::new();
        }
    };
    features::from_apt(&apt_path, &apt, tile_of(dsf), diags)
}

/// `[west, south]` of the 1° tile a DSF's name gives (`+47+008.dsf`, `-01-080.txt`).
fn tile_of(path: &Path) -> Option<[f64; 2]> {
    let stem = path.file_stem()?.to_str()?;
    let b = stem.as_bytes();
    if b.len() != 7 || !matches!(b[0], b'+' | b'-') || !matches!(b[3], b'+' | b'-') {
        return None;
    }
    let lat: f64 = stem[..3].parse().ok()?;
    let lon: f64 = stem[3..].parse().ok()?;
    Some([lon, lat])
}

/// The install's pavement `.pol` for each surface code, as WED's preview picks it
/// (`WED_LibraryMgr::RescanSurfaces`, GROUND.md §6.3): the public
/// `lib/airport/ground/pavement/<dir>/<variant>.pol` of X-Plane 12, else (an X-Plane 11
/// library) `lib/airport/pavement/asphalt_3D.pol` for every asphalt and `concrete_1D.pol`
/// for every concrete. Grass, dirt, gravel, lakebed, water and snow have no public `.pol`:
/// agview's own art draws them, as it draws every surface without an install.
pub(super) type PavementLibrary = HashMap<u32, crate::scene::ArtRef>;

/// XP12's public pavement `.pol` of each surface code (`RescanSurfaces`' second column).
const PAVEMENT_POLS: &[(u32, &str)] = &[
    (20, "asphalt_L/strips.pol"),
    (21, "asphalt_L/patched.pol"),
    (22, "asphalt_L/plain.pol"),
    (23, "asphalt_L/worn.pol"),
    (1, "asphalt/strips.pol"),
    (24, "asphalt/patched.pol"),
    (25, "asphalt/plain.pol"),
    (26, "asphalt/worn.pol"),
    (27, "asphalt_D/strips.pol"),
    (28, "asphalt_D/patched.pol"),
    (29, "asphalt_D/plain.pol"),
    (30, "asphalt_D/worn.pol"),
    (31, "asphalt_D2/strips.pol"),
    (32, "asphalt_D2/patched.pol"),
    (33, "asphalt_D2/plain.pol"),
    (34, "asphalt_D2/worn.pol"),
    (35, "asphalt_D3/strips.pol"),
    (36, "asphalt_D3/patched.pol"),
    (37, "asphalt_D3/plain.pol"),
    (38, "asphalt_D3/worn.pol"),
    (50, "concrete_L/new.pol"),
    (51, "concrete_L/dirty.pol"),
    (52, "concrete_L/worn.pol"),
    (2, "concrete/new.pol"),
    (53, "concrete/dirty.pol"),
    (54, "concrete/worn.pol"),
    (55, "concrete_D/new.pol"),
    (56, "concrete_D/dirty.pol"),
    (57, "concrete_D/worn.pol"),
];

pub(super) fn pavement_library(resolver: &Resolver) -> PavementLibrary {
    let art = |name: String| {
        let path = resolver.resolve_library(&name)?;
        Some(crate::scene::ArtRef {
            resolved: Some(crate::diag::shown_path(&path)),
            name: name.into(),
        })
    };
    let xp12: PavementLibrary = PAVEMENT_POLS
        .iter()
        .filter_map(|&(code, pol)| Some((code, art(format!("lib/airport/ground/pavement/{pol}"))?)))
        .collect();
    if !xp12.is_empty() {
        return xp12;
    }
    let asphalt = art("lib/airport/pavement/asphalt_3D.pol".into());
    let concrete = art("lib/airport/pavement/concrete_1D.pol".into());
    PAVEMENT_POLS
        .iter()
        .filter_map(|&(code, _)| {
            let concrete_family = code == 2 || (50..=57).contains(&code);
            let a = if concrete_family { &concrete } else { &asphalt };
            Some((code, a.clone()?))
        })
        .collect()
}

/// One airport item laid out: its pavement, lines and markings in one scene.
pub(super) fn layout_airport(
    item: &features::AirportItem,
    origin: [f64; 2],
    lib: &PavementLibrary,
) -> Scene {
    use crate::layout::airport as ap;
    use features::AptItem;
    let project = |p: [f64; 2]| input::project(origin, [p[1], p[0]]);
    let lib = |code: u32| lib.get(&code).cloned();
    let parts = match &item.what {
        AptItem::Runway(r) => ap::runway(r, item.order, &project, &lib),
        AptItem::Helipad(h) => ap::helipad(h, item.order, &project, &lib),
        AptItem::Pavement(p) => ap::pavement(p, item.order, &project, &lib),
        AptItem::Marking(m) => {
            let mut v = ap::edge_lines(m, &project);
            if v.is_empty() && m.nodes.len() >= 2 {
                // A chain without a line type still shows where it runs.
                let pts = ap::chain_points(m, &project);
                let mut s = crate::layout::placed::painted_line("apt.dat", &[pts], m.closed);
                s.lin_defs[0].name = "agview:line/yellow".into();
                v.push(s);
            }
            v
        }
    };
    let mut out = Scene {
        asset: item.file.display().to_string(),
        tile_lod: crate::layout::DEFAULT_TILE_LOD,
        ..Scene::default()
    };
    for mut s in parts {
        let base = out.pol_defs.len();
        out.pol_defs.append(&mut s.pol_defs);
        out.draped.extend(s.draped.into_iter().map(|mut d| {
            d.def += base;
            d
        }));
        let base = out.lin_defs.len();
        out.lin_defs.append(&mut s.lin_defs);
        out.lines.extend(s.lines.into_iter().map(|mut l| {
            l.def += base;
            l
        }));
        out.polygon.append(&mut s.polygon);
    }
    out.update_stats();
    out
}
