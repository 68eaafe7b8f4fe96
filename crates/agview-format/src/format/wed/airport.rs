//! A WED project's airport pavement, as WED's apt.dat exporter would write it
//! (`WED_AptIE.cpp` `AptExportRecursive`; GROUND.md §6.5): `WED_Runway` → row 100,
//! `WED_Helipad` → 102, `WED_Taxiway` → 110 with its rings' nodes, and a `WED_AirportChain`
//! on its own → 120 (a painted marking line).
//!
//! WED saves enumerations as their descriptions (`WED_PropIntEnum::ToXML` writes
//! `ENUM_Desc`): a runway's `surface="Asphalt L"`, a node's `<marking value="Solid
//! Yellow"/>`. They are turned back into apt.dat codes by the tables of `WED_Enums.h`
//! (`Surface_Type`, `Shoulder_Type`, `LinearFeature`) and `AptDefs.h`. A surface agview does
//! not know is a located warning and drawn as asphalt; a marking it does not know (WED 2.6
//! reads line names from the library) is counted in one note and not drawn.
//!
//! Bezier handles are saved as offsets from their node (made absolute by the parser); the
//! apt.dat control point is the outgoing handle, `hi`, or the incoming one mirrored.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::{WedData, WedObject, WedProject};
use crate::diag::Diagnostic;
use crate::format::apt::{AptChain, AptItem, AptNode, Helipad, Pavement, Runway, RunwayEnd};

/// One airport item of a WED project.
#[derive(Debug, Clone, PartialEq)]
pub struct WedAirportItem {
    /// The WED id of the runway, helipad, taxiway or chain.
    pub id: u64,
    pub name: String,
    /// The ICAO code of the airport it is in (empty outside one).
    pub icao: String,
    pub item: AptItem,
    /// Where its `<object>` element is.
    pub line: u32,
    pub col: u32,
}

/// `Surface_Type` descriptions (WED_Enums.h) and their apt.dat codes (AptDefs.h).
const SURFACES: &[(&str, u32)] = &[
    ("Asphalt L", 20),
    ("Asphalt L Patched", 21),
    ("Asphalt L Plain", 22),
    ("Asphalt L Worn", 23),
    ("Asphalt", 1),
    ("Asphalt Patched", 24),
    ("Asphalt Plain", 25),
    ("Asphalt Worn", 26),
    ("Asphalt D", 27),
    ("Asphalt D Patched", 28),
    ("Asphalt D Plain", 29),
    ("Asphalt D Worn", 30),
    ("Asphalt D2", 31),
    ("Asphalt D2 Patched", 32),
    ("Asphalt D2 Plain", 33),
    ("Asphalt D2 Worn", 34),
    ("Asphalt D3", 35),
    ("Asphalt D3 Patched", 36),
    ("Asphalt D3 Plain", 37),
    ("Asphalt D3 Worn", 38),
    ("Concrete L", 50),
    ("Concrete L Dirty", 51),
    ("Concrete L Worn", 52),
    ("Concrete", 2),
    ("Concrete Dirty", 53),
    ("Concrete Worn", 54),
    ("Concrete D", 55),
    ("Concrete D Dirty", 56),
    ("Concrete D Worn", 57),
    ("Grass", 3),
    ("Dirt", 4),
    ("Gravel", 5),
    ("Dry Lakebed", 12),
    ("Water", 13),
    ("Snow", 14),
    ("Transparent", 15),
];

/// `LinearFeature` descriptions of painted lines (WED_Enums.h) and their apt.dat line types
/// (AptDefs.h). Lights (101 and up) are not drawn and not listed.
const LINES: &[(&str, u32)] = &[
    ("Solid Yellow", 1),
    ("Broken Yellow", 2),
    ("Double Solid Yellow", 3),
    ("Runway Hold", 4),
    ("Other Hold", 5),
    ("ILS Hold", 6),
    ("ILS Critical Centerline", 7),
    ("Wide Broken Single Yellow", 8),
    ("Wide Broken Double Yellow", 9),
    ("Solid White (Roadway)", 20),
    ("Chequered White (Roadway)", 21),
    ("Broken White (Roadway)", 22),
    ("Solid Yellow (Black)", 51),
    ("Broken Yellow (Black)", 52),
    ("Double Solid Yellow (Black)", 53),
    ("Runway Hold (Black)", 54),
    ("Other Hold (Black)", 55),
    ("ILS Hold (Black)", 56),
    ("ILS Critical Centerline (Black)", 57),
    ("Wide Broken Single Yellow (Black)", 58),
    ("Wide Broken Double Yellow (Black)", 59),
];

/// The apt.dat code of a `Surface_Type` description.
pub fn surface_code(desc: &str) -> Option<u32> {
    SURFACES.iter().find(|(d, _)| *d == desc).map(|&(_, c)| c)
}

/// The apt.dat shoulder code of a `Shoulder_Type` description ("None" is 0; the others are
/// the pavement surfaces' codes).
fn shoulder_code(desc: &str) -> Option<u32> {
    match desc {
        "None" | "" => Some(0),
        d => surface_code(d).filter(|&c| c <= 2 || (20..=57).contains(&c)),
    }
}

/// The apt.dat line type of a `LinearFeature` description, or `None` (a light, or a name
/// this table does not hold).
pub fn line_type(desc: &str) -> Option<u32> {
    LINES.iter().find(|(d, _)| *d == desc).map(|&(_, c)| c)
}

/// True for a `LinearFeature` description of a light (not drawn, so not a missing line).
fn is_light(desc: &str) -> bool {
    desc.contains("Lights")
}

/// Every runway, helipad, taxiway and marking chain of the project that WED would export
/// to apt.dat, in hierarchy order, hidden ones left out. An item whose parts are missing is
/// skipped with a located error; the rest are kept.
pub fn airports(
    project: &WedProject,
    path: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> Vec<WedAirportItem> {
    let mut r = Reader {
        project,
        path,
        warnings,
        out: Vec::new(),
        visited: HashSet::new(),
        unknown_lines: BTreeMap::new(),
    };
    for root in project.roots() {
        r.visit(root.id, "");
    }
    if let Some((first, _)) = r.unknown_lines.values().min_by_key(|v| v.0) {
        let list: Vec<String> = r
            .unknown_lines
            .iter()
            .map(|(d, (_, n))| format!("{n} `{d}`"))
            .collect();
        r.warnings.push(Diagnostic::new(
            crate::diag::Severity::Note,
            path,
            crate::diag::Location::Text { line: first.0, col: first.1 },
            format!(
                "marking names agview does not know (a chain of its own is drawn as a plain yellow line, a pavement edge without a line): {}",
                list.join(", ")
            ),
        ).with_kind(crate::diag::kind::NOT_DRAWN));
    }
    r.out
}

struct Reader<'a, 'w> {
    project: &'a WedProject,
    path: &'a Path,
    warnings: &'w mut Vec<Diagnostic>,
    out: Vec<WedAirportItem>,
    visited: HashSet<u64>,
    /// Marking names not in [`LINES`]: where the first is, and how many nodes use each.
    unknown_lines: BTreeMap<String, ((u32, u32), usize)>,
}

impl Reader<'_, '_> {
    fn visit(&mut self, id: u64, icao: &str) {
        if !self.visited.insert(id) {
            return;
        }
        let Some(obj) = self.project.get(id) else {
            return;
        };
        if obj.hidden {
            return;
        }
        let item = match &obj.data {
            WedData::Root | WedData::Group => {
                for &c in &obj.children {
                    self.visit(c, icao);
                }
                return;
            }
            WedData::Airport { icao } => {
                for &c in &obj.children {
                    self.visit(c, icao);
                }
                return;
            }
            WedData::Runway {
                width,
                surface,
                shoulder,
                shoulder_width,
                displaced,
                blastpad,
            } => self.runway(
                obj,
                *width,
                surface,
                shoulder,
                *shoulder_width,
                *displaced,
                *blastpad,
            ),
            WedData::Helipad {
                lon,
                lat,
                heading,
                width,
                length,
                surface,
            } => Some(AptItem::Helipad(Helipad {
                id: obj.name.clone(),
                lat: *lat,
                lon: *lon,
                heading: *heading,
                length: *length,
                width: *width,
                surface: self.surface(obj, surface),
                line: obj.line,
            })),
            WedData::Taxiway { surface, heading } => {
                let rings: Option<Vec<AptChain>> = obj
                    .children
                    .iter()
                    .map(|&c| self.chain(obj, c, true))
                    .collect();
                match rings {
                    Some(rings) if !rings.is_empty() => Some(AptItem::Pavement(Pavement {
                        surface: self.surface(obj, surface),
                        heading: *heading,
                        name: obj.name.clone(),
                        rings,
                        line: obj.line,
                    })),
                    Some(_) => self.fail(obj, "it has no ring"),
                    None => None,
                }
            }
            WedData::AirportChain { .. } => self.chain(obj, obj.id, false).map(AptItem::Marking),
            _ => None,
        };
        if let Some(item) = item {
            self.out.push(WedAirportItem {
                id: obj.id,
                name: obj.name.clone(),
                icao: icao.to_string(),
                item,
                line: obj.line,
                col: obj.col,
            });
        }
    }

    fn fail<T>(&mut self, obj: &WedObject, why: impl std::fmt::Display) -> Option<T> {
        // A warning, not an error: the item is left out and the project opens as before.
        self.warnings.push(Diagnostic::warning_at(
            self.path,
            obj.line,
            obj.col,
            format!("{} {} \"{}\" not drawn: {why}", obj.class, obj.id, obj.name),
        ));
        None
    }

    /// A surface's apt.dat code; one WED does not write is drawn as asphalt, with a warning.
    fn surface(&mut self, obj: &WedObject, desc: &str) -> u32 {
        surface_code(desc).unwrap_or_else(|| {
            self.warnings.push(Diagnostic::warning_at(
                self.path,
                obj.line,
                obj.col,
                format!(
                    "{} {} \"{}\": surface \"{desc}\" is not one WED writes; drawn as asphalt",
                    obj.class, obj.id, obj.name
                ),
            ));
            1
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn runway(
        &mut self,
        obj: &WedObject,
        width: f64,
        surface: &str,
        shoulder: &str,
        shoulder_width: f64,
        displaced: [f64; 2],
        blastpad: [f64; 2],
    ) -> Option<AptItem> {
        let ends: Vec<[f64; 2]> = obj
            .children
            .iter()
            .filter_map(|&c| match self.project.get(c).map(|n| &n.data) {
                Some(WedData::Node { lon, lat, .. }) => Some([*lon, *lat]),
                _ => None,
            })
            .collect();
        if ends.len() != 2 {
            return self.fail(obj, format!("a runway has two ends, it has {}", ends.len()));
        }
        // WED_Runway::Export: the numbers are the name split at '/'.
        let mut ids = obj.name.splitn(2, '/').map(|s| s.trim().to_string());
        let (id1, id2) = (
            ids.next().unwrap_or_default(),
            ids.next().unwrap_or_default(),
        );
        let shoulder_surface = shoulder_code(shoulder).unwrap_or_else(|| {
            self.warnings.push(Diagnostic::warning_at(
                self.path,
                obj.line,
                obj.col,
                format!(
                    "{} {} \"{}\": shoulder \"{shoulder}\" is not one WED writes; none drawn",
                    obj.class, obj.id, obj.name
                ),
            ));
            0
        });
        // `ENUM_Export(shoulder) + 100 * max(0, intround(shoulder_width))`.
        // Clamped: a width no runway has would overflow the code.
        let shoulder = shoulder_surface + 100 * shoulder_width.round().clamp(0.0, 1.0e6) as u32;
        let end = |k: usize, id: String| RunwayEnd {
            id,
            lat: ends[k][1],
            lon: ends[k][0],
            displaced: displaced[k],
            blastpad: blastpad[k],
        };
        Some(AptItem::Runway(Runway {
            width,
            surface: self.surface(obj, surface),
            shoulder,
            ends: [end(0, id1), end(1, id2)],
            line: obj.line,
        }))
    }

    /// The chain `id` (a taxiway's ring when `ring`, else a marking line on its own) as
    /// apt.dat nodes: each with its outgoing handle and the painted line of the side
    /// starting at it.
    fn chain(&mut self, owner: &WedObject, id: u64, ring: bool) -> Option<AptChain> {
        let Some(chain) = self.project.get(id) else {
            return self.fail(owner, format!("ring {id} is not in the file"));
        };
        let closed = match &chain.data {
            WedData::AirportChain { closed } => *closed || ring,
            WedData::Ring => true,
            _ => {
                return self.fail(
                    owner,
                    format!("child {id} is a {}, not a ring", chain.class),
                )
            }
        };
        let mut nodes = Vec::with_capacity(chain.children.len());
        for &nid in &chain.children {
            let Some(n) = self.project.get(nid) else {
                return self.fail(owner, format!("node {nid} is not in the file"));
            };
            let (lon, lat, lo, hi, markings) = match &n.data {
                WedData::AirportNode {
                    lon,
                    lat,
                    lo,
                    hi,
                    markings,
                } => (*lon, *lat, *lo, *hi, markings.as_slice()),
                WedData::Node {
                    lon, lat, lo, hi, ..
                } => (*lon, *lat, *lo, *hi, &[][..]),
                _ => return self.fail(owner, format!("child {nid} is a {}, not a node", n.class)),
            };
            // apt.dat keeps the outgoing handle; a node with only an incoming one mirrors it.
            let ctrl = hi
                .or_else(|| lo.map(|l| [2.0 * lon - l[0], 2.0 * lat - l[1]]))
                .map(|c| [c[1], c[0]]);
            let mut painted = None;
            for m in markings {
                match line_type(m) {
                    Some(t) => painted = painted.or(Some(t)),
                    None if is_light(m) => {}
                    None => {
                        let e = self
                            .unknown_lines
                            .entry(m.clone())
                            .or_insert(((n.line, n.col), 0));
                        e.1 += 1;
                    }
                }
            }
            nodes.push(AptNode {
                lat,
                lon,
                ctrl,
                line_type: painted,
            });
        }
        let min = if closed { 3 } else { 2 };
        if nodes.len() < min {
            return self.fail(
                owner,
                format!("a chain of {} node(s) (at least {min})", nodes.len()),
            );
        }
        Some(AptChain {
            nodes,
            closed,
            line: chain.line,
        })
    }
}
