//! X-Plane airports (`Earth nav data/apt.dat`): the rows that are drawn as ground —
//! runways (100), helipads (102), taxiway pavement (110 with its 111–116 node rows) and
//! painted marking chains (120) — of every airport (1, 16, 17) in the file (GROUND.md §6).
//!
//! The file starts `A` or `I`, then a version (703 … 1200 as `ReadAptFileMem` accepts; 1000
//! to 1200 are the ones agview is checked on), and ends with `99`. **Coordinates are
//! latitude first.** A node row gives a point, a bezier control (112, 114, 116: the
//! outgoing handle, the incoming being its mirror), and line and light attributes (a line
//! type below 100 applies to the side starting at the node). 113 and 114 close a ring,
//! 115 and 116 end an open chain. A 110's first ring is its outer boundary, the rings after
//! it are holes. A 130 boundary's rings are read past.
//!
//! XP12's jetways are read too (XP12.md §3, `AptIO.cpp`): `1500 lat lon install_heading
//! style_code size_code parked_tunnel_heading parked_tunnel_length parked_cab_heading`, and
//! `1501 path` naming a custom jetway for the `1500` before it ([`Jetway`]).
//!
//! Every other row (frequencies, signs, lights, ramps, routing …) is read past. A row that
//! cannot be read is a located error that skips that feature, and reading goes on with the
//! next row: one bad runway does not hide the airport.

use std::path::Path;

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::format::text::{Line, TextFile};

/// Versions `ReadAptFileMem` accepts.
pub const VERSIONS: &[u32] = &[703, 715, 810, 850, 1000, 1050, 1100, 1130, 1200];

/// One end of a runway.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunwayEnd {
    pub id: String,
    pub lat: f64,
    pub lon: f64,
    /// Meters of the runway before its threshold (inside the runway).
    pub displaced: f64,
    /// Meters of blast pad or overrun beyond the end (outside the runway).
    pub blastpad: f64,
}

/// A land runway (row 100).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Runway {
    pub width: f64,
    pub surface: u32,
    /// The shoulder code: `% 100` its surface (0 none), `/ 100` its width in meters (XP12).
    pub shoulder: u32,
    pub ends: [RunwayEnd; 2],
    pub line: u32,
}

/// A helipad (row 102).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Helipad {
    pub id: String,
    pub lat: f64,
    pub lon: f64,
    pub heading: f64,
    pub length: f64,
    pub width: f64,
    pub surface: u32,
    pub line: u32,
}

/// A node of a pavement ring or a marking chain.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct AptNode {
    pub lat: f64,
    pub lon: f64,
    /// The outgoing bezier handle (lat, lon), for 112, 114 and 116.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ctrl: Option<[f64; 2]>,
    /// The painted line type of the side starting here (1–99), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_type: Option<u32>,
}

/// A ring or chain of nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct AptChain {
    pub nodes: Vec<AptNode>,
    /// Closed by a 113 or 114.
    pub closed: bool,
    pub line: u32,
}

/// Taxiway pavement (row 110): its rings, the first the boundary, the rest holes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pavement {
    pub surface: u32,
    /// Degrees: the texture's heading.
    pub heading: f64,
    pub name: String,
    pub rings: Vec<AptChain>,
    pub line: u32,
}

/// One airport of the file.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Airport {
    pub icao: String,
    pub name: String,
    pub line: u32,
    pub runways: Vec<Runway>,
    pub helipads: Vec<Helipad>,
    pub pavements: Vec<Pavement>,
    /// Free painted lines (row 120), each chain on its own.
    pub markings: Vec<AptChain>,
    /// Jetways (rows 1500 and 1501), drawn parked.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jetways: Vec<Jetway>,
}

/// A jetway (row `1500`), and the custom path of a `1501` after it. Headings are degrees
/// clockwise from north; the parked pose is how it stands when no aircraft is at the gate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Jetway {
    /// The rotunda (the fixed end), latitude first as the row writes it.
    pub lat: f64,
    pub lon: f64,
    pub install_heading: f64,
    /// Which default facade (`Jetway_1_glass`, `Jetway_1_solid`, `Jetway_2_glass`).
    pub style_code: i64,
    /// The tunnel size, 0–3 (`size_code % 10`).
    pub size_code: i64,
    /// The row's size code was 10 or more: the jetway docks at door 2.
    pub door_2: bool,
    pub parked_tunnel_heading: f64,
    /// Meters from the rotunda to the cab.
    pub parked_tunnel_length: f64,
    pub parked_cab_heading: f64,
    /// `1501`: a custom jetway's path (WED writes its tunnel object's path there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom: Option<String>,
    pub line: u32,
    /// The line of the `1501`, when there is one.
    #[serde(skip_serializing_if = "is_zero")]
    pub custom_line: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// One drawn item of an airport.
#[derive(Debug, Clone, PartialEq)]
pub enum AptItem {
    Runway(Runway),
    Helipad(Helipad),
    Pavement(Pavement),
    Marking(AptChain),
}

/// A parsed `apt.dat`.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct AptFile {
    pub version: u32,
    pub airports: Vec<Airport>,
}

/// What the node rows that follow build.
enum Open {
    None,
    Pavement,
    Marking,
    Boundary,
}

/// Reads an `apt.dat`.
pub fn parse(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<AptFile, Diagnostic> {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(path, &src);
    let first = match tf.next() {
        Some(l) => l?,
        None => {
            return Err(Diagnostic::error_at(
                path,
                1,
                1,
                "empty file: expected `A` or `I`",
            ))
        }
    };
    if first.keyword != "A" && first.keyword != "I" {
        return Err(first.error_kw(format!(
            "missing header: expected `A` or `I` on the first line, found `{}`",
            first.keyword
        )));
    }
    let vline = match tf.next() {
        Some(l) => l?,
        None => return Err(tf.error_at_end("truncated header: expected a version")),
    };
    let version: u32 = vline.keyword.parse().map_err(|_| {
        vline.error_kw(format!(
            "bad header: expected an apt.dat version, found `{}`",
            vline.keyword
        ))
    })?;
    if !VERSIONS.contains(&version) {
        return Err(vline.error_kw(format!(
            "unsupported apt.dat version {version} (expected one of {VERSIONS:?})"
        )));
    }
    let mut apt = AptFile {
        version,
        airports: Vec::new(),
    };
    let mut open = Open::None;
    let mut chain = AptChain::default();
    // Set while the current feature had an error: its node rows are skipped.
    let mut broken = false;
    // Set while the row before was a `1500` that was read: what a `1501` belongs to.
    let mut jetway_open = false;
    while let Some(line) = tf.next() {
        let mut line = match line {
            Ok(l) => l,
            Err(e) => {
                warnings.push(e);
                continue;
            }
        };
        let Ok(code) = line.keyword.parse::<u32>() else {
            warnings.push(line.error_kw(format!(
                "row code `{}` is not a number; the row is skipped",
                line.keyword
            )));
            continue;
        };
        let is_node = (111..=116).contains(&code);
        if !is_node {
            finish(&mut apt, &mut open, &mut chain);
            broken = false;
        }
        let after_jetway = std::mem::replace(&mut jetway_open, false);
        let r = match code {
            1 | 16 | 17 => airport_header(&mut line).map(|a| apt.airports.push(a)),
            99 => break,
            100 => runway(&mut line).map(|r| airport(&mut apt, line.number).runways.push(r)),
            102 => helipad(&mut line).map(|h| airport(&mut apt, line.number).helipads.push(h)),
            110 => pavement(&mut line).map(|p| {
                airport(&mut apt, line.number).pavements.push(p);
                open = Open::Pavement;
            }),
            120 => {
                open = Open::Marking;
                Ok(())
            }
            130 => {
                open = Open::Boundary;
                Ok(())
            }
            1500 => jetway(&mut line).map(|j| {
                airport(&mut apt, line.number).jetways.push(j);
                jetway_open = true;
            }),
            1501 if !after_jetway => Err(line.error_kw("1501 without a 1500 jetway before it")),
            1501 => custom_jetway(&mut line, &mut apt),
            111..=116 if broken => Ok(()),
            111..=116 => match node(&mut line, code) {
                Ok(n) => {
                    if chain.nodes.is_empty() {
                        chain.line = line.number;
                    }
                    chain.nodes.push(n);
                    if code >= 113 {
                        chain.closed = code <= 114;
                        end_chain(&mut apt, &open, &mut chain);
                    }
                    Ok(())
                }
                Err(e) => Err(e),
            },
            _ => Ok(()),
        };
        if let Err(e) = r {
            warnings.push(Diagnostic {
                message: format!("{}; the feature is skipped", e.message),
                ..e
            });
            broken = true;
            if is_node {
                // The feature the node belonged to goes.
                chain = AptChain::default();
                if matches!(open, Open::Pavement) {
                    if let Some(a) = apt.airports.last_mut() {
                        a.pavements.pop();
                    }
                }
            }
            open = Open::None;
        }
    }
    finish(&mut apt, &mut open, &mut chain);
    Ok(apt)
}

/// The airport rows belong to: the last one, or an unnamed one for rows before any header.
fn airport(apt: &mut AptFile, line: u32) -> &mut Airport {
    if apt.airports.is_empty() {
        apt.airports.push(Airport {
            line,
            ..Airport::default()
        });
    }
    apt.airports.last_mut().expect("one was pushed")
}

/// A chain closed or ended by its node row: it joins the feature the rows build.
fn end_chain(apt: &mut AptFile, open: &Open, chain: &mut AptChain) {
    let done = std::mem::take(chain);
    let line = done.line;
    match open {
        Open::Pavement => {
            if let Some(p) = airport(apt, line).pavements.last_mut() {
                p.rings.push(done);
            }
        }
        Open::Marking => airport(apt, line).markings.push(done),
        Open::Boundary | Open::None => {}
    }
}

/// A feature ends at the next non-node row: a chain left open there is kept as it is.
fn finish(apt: &mut AptFile, open: &mut Open, chain: &mut AptChain) {
    if !chain.nodes.is_empty() {
        end_chain(apt, open, chain);
    }
    *open = Open::None;
}

fn airport_header(line: &mut Line<'_>) -> Result<Airport, Diagnostic> {
    let _elevation = line.f64("elevation")?;
    let _deprecated = line.word("deprecated")?;
    let _deprecated2 = line.word("deprecated")?;
    let icao = line.word("ICAO code")?.to_string();
    let name = line.rest("name").unwrap_or("").to_string();
    Ok(Airport {
        icao,
        name,
        line: line.number,
        ..Airport::default()
    })
}

/// `100 width surface shoulder smoothness centre_lights edge_lights signs`, then per end
/// `id lat lon displaced blastpad markings approach tdz reil`.
fn runway(line: &mut Line<'_>) -> Result<Runway, Diagnostic> {
    let width = non_negative(line, "width")?;
    let surface = line.u32("surface")?;
    let shoulder = line.u32("shoulder")?;
    for what in [
        "smoothness",
        "centre lights",
        "edge lights",
        "distance signs",
    ] {
        line.word(what)?;
    }
    let mut end = || -> Result<RunwayEnd, Diagnostic> {
        let id = line.word("runway number")?.to_string();
        let lat = line.f64("latitude")?;
        let lon = line.f64("longitude")?;
        let displaced = non_negative(line, "displaced threshold")?;
        let blastpad = non_negative(line, "blast pad")?;
        for what in ["markings", "approach lights", "touchdown lights", "REIL"] {
            line.word(what)?;
        }
        Ok(RunwayEnd {
            id,
            lat,
            lon,
            displaced,
            blastpad,
        })
    };
    let ends = [end()?, end()?];
    Ok(Runway {
        width,
        surface,
        shoulder,
        ends,
        line: line.number,
    })
}

/// `102 id lat lon heading length width surface markings shoulder smoothness lights`.
fn helipad(line: &mut Line<'_>) -> Result<Helipad, Diagnostic> {
    Ok(Helipad {
        id: line.word("helipad")?.to_string(),
        lat: line.f64("latitude")?,
        lon: line.f64("longitude")?,
        heading: line.f64("heading")?,
        length: non_negative(line, "length")?,
        width: non_negative(line, "width")?,
        surface: line.u32("surface")?,
        line: line.number,
    })
}

/// `110 surface smoothness heading name`.
fn pavement(line: &mut Line<'_>) -> Result<Pavement, Diagnostic> {
    let surface = line.u32("surface")?;
    let _smoothness = line.f64("smoothness")?;
    let heading = line.f64("texture heading")?;
    let name = line.rest("name").unwrap_or("").to_string();
    Ok(Pavement {
        surface,
        heading,
        name,
        rings: Vec::new(),
        line: line.number,
    })
}

/// A node row: `lat lon`, the control `lat lon` for 112/114/116, then attributes.
fn node(line: &mut Line<'_>, code: u32) -> Result<AptNode, Diagnostic> {
    let lat = line.f64("latitude")?;
    let lon = line.f64("longitude")?;
    let ctrl = if matches!(code, 112 | 114 | 116) {
        Some([
            line.f64("control latitude")?,
            line.f64("control longitude")?,
        ])
    } else {
        None
    };
    let mut line_type = None;
    while let Some((tok, _)) = line.next_token() {
        if let Ok(a) = tok.parse::<u32>() {
            if (1..100).contains(&a) && line_type.is_none() {
                line_type = Some(a);
            }
        }
    }
    Ok(AptNode {
        lat,
        lon,
        ctrl,
        line_type,
    })
}

/// `1500 lat lon install_heading style_code size_code parked_tunnel_heading
/// parked_tunnel_length parked_cab_heading`. A size code of 10–19 is door 2 (`AptIO.cpp`).
fn jetway(line: &mut Line<'_>) -> Result<Jetway, Diagnostic> {
    let lat = line.f64("latitude")?;
    let lon = line.f64("longitude")?;
    let install_heading = line.f64("install heading")?;
    let style_code = line.i64("style code")?;
    let col = line.next_col();
    let size = line.i64("size code")?;
    if !(0..20).contains(&size) {
        return Err(line.error(
            col,
            format!("<size code> must be 0–3 (10–13 for door 2), found {size}"),
        ));
    }
    let parked_tunnel_heading = line.f64("parked tunnel heading")?;
    let parked_tunnel_length = non_negative(line, "parked tunnel length")?;
    let parked_cab_heading = line.f64("parked cab heading")?;
    Ok(Jetway {
        lat,
        lon,
        install_heading,
        style_code,
        size_code: size % 10,
        door_2: size >= 10,
        parked_tunnel_heading,
        parked_tunnel_length,
        parked_cab_heading,
        custom: None,
        line: line.number,
        custom_line: 0,
    })
}

/// `1501 path`: the custom path of the last `1500` of the airport.
fn custom_jetway(line: &mut Line<'_>, apt: &mut AptFile) -> Result<(), Diagnostic> {
    let path = line.rest("path")?.to_string();
    let number = line.number;
    let j = apt
        .airports
        .last_mut()
        .and_then(|a| a.jetways.last_mut())
        .ok_or_else(|| line.error_kw("1501 without a 1500 jetway before it"))?;
    // (`jetway_open` in `parse` makes sure the last one is the row just before.)
    j.custom = Some(path);
    j.custom_line = number;
    Ok(())
}

fn non_negative(line: &mut Line<'_>, what: &str) -> Result<f64, Diagnostic> {
    let col = line.clone().next_token().map_or(1, |(_, c)| c);
    let v = line.f64(what)?;
    if v < 0.0 {
        return Err(line.error(col, format!("<{what}> must not be negative, found {v}")));
    }
    Ok(v)
}

/// An airport of every drawn row kind: the reader's test airport, and the document stage's
/// (in another crate, hence public).
#[doc(hidden)]
pub const TEST_AIRPORT: &str = "I\n1100 Generated by WorldEditor\n\n\
1 1500 0 0 XAGV Agview Field\n\
100 30.00 1 215 0.25 0 2 1 09 47.50000000 8.50000000 150 60 3 0 0 0 27 47.50000000 8.52000000 0 0 3 0 0 0\n\
102 H1 47.50300000 8.50500000 90.00 20.00 20.00 2 0 0 0.25 0\n\
110 2 0.25 45.00 Apron\n\
111 47.49800000 8.50000000\n\
112 47.49800000 8.50400000 47.49700000 8.50450000 1\n\
111 47.49600000 8.50400000\n\
113 47.49600000 8.50000000\n\
111 47.49750000 8.50100000\n\
111 47.49750000 8.50200000\n\
113 47.49700000 8.50200000\n\
120 Hold line\n\
111 47.49900000 8.50000000 4\n\
115 47.49900000 8.50100000\n\
130 Boundary\n\
111 47.4 8.4\n\
113 47.6 8.4\n\
21 47.5 8.5 2 90 3.0 09 PAPI\n\
99\n";

#[cfg(test)]
mod tests {
    use super::*;

    const APT: &str = TEST_AIRPORT;

    fn p(src: &str) -> (Result<AptFile, Diagnostic>, Vec<Diagnostic>) {
        let mut w = Vec::new();
        let r = parse(Path::new("apt.dat"), src.as_bytes(), &mut w);
        (r, w)
    }

    #[test]
    fn reads_runways_helipads_pavement_and_markings() {
        let (r, w) = p(APT);
        assert!(w.is_empty(), "{w:?}");
        let apt = r.unwrap();
        assert_eq!(apt.version, 1100);
        let a = &apt.airports[0];
        assert_eq!((a.icao.as_str(), a.name.as_str()), ("XAGV", "Agview Field"));
        let rw = &a.runways[0];
        assert_eq!((rw.width, rw.surface, rw.shoulder), (30.0, 1, 215));
        assert_eq!(rw.ends[0].id, "09");
        assert_eq!(
            (rw.ends[0].lat, rw.ends[0].lon),
            (47.5, 8.5),
            "latitude first"
        );
        assert_eq!((rw.ends[0].displaced, rw.ends[0].blastpad), (150.0, 60.0));
        assert_eq!(a.helipads[0].width, 20.0);
        let pv = &a.pavements[0];
        assert_eq!(
            (pv.surface, pv.heading, pv.name.as_str()),
            (2, 45.0, "Apron")
        );
        assert_eq!(pv.rings.len(), 2, "boundary and a hole");
        assert!(pv.rings.iter().all(|r| r.closed));
        assert_eq!(pv.rings[0].nodes[1].ctrl, Some([47.497, 8.5045]));
        assert_eq!(pv.rings[0].nodes[1].line_type, Some(1));
        assert_eq!(a.markings.len(), 1);
        assert!(!a.markings[0].closed);
        assert_eq!(a.markings[0].nodes[0].line_type, Some(4));
    }

    #[test]
    fn a_bad_row_skips_its_feature_and_the_rest_is_read() {
        let src = APT.replace("100 30.00 1 215", "100 30.00 x 215");
        let (r, w) = p(&src);
        let a = &r.unwrap().airports[0];
        assert!(a.runways.is_empty());
        assert_eq!(a.pavements.len(), 1);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].to_string().contains("apt.dat:5:"), "{}", w[0]);
        // A bad node: its pavement is skipped, the next feature is read.
        let src = APT.replace("111 47.49600000 8.50400000", "111 47.49600000 east");
        let (r, w) = p(&src);
        let a = &r.unwrap().airports[0];
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(a.markings.len(), 1);
    }

    #[test]
    fn jetways_and_their_custom_paths_are_read() {
        let src = APT.replace(
            "99\n",
            "1500 47.501 8.501 90.0 1 12 180.0 14.5 270.0\n1501 objects/jw/tunnel.obj\n\
1500 47.502 8.502 0 0 1 45 20 90\n99\n",
        );
        let (r, w) = p(&src);
        assert!(w.is_empty(), "{w:?}");
        let js = &r.unwrap().airports[0].jetways;
        assert_eq!(js.len(), 2);
        let j = &js[0];
        assert_eq!((j.lat, j.lon, j.install_heading), (47.501, 8.501, 90.0));
        assert_eq!((j.style_code, j.size_code, j.door_2), (1, 2, true));
        assert_eq!(
            (
                j.parked_tunnel_heading,
                j.parked_tunnel_length,
                j.parked_cab_heading
            ),
            (180.0, 14.5, 270.0)
        );
        assert_eq!(j.custom.as_deref(), Some("objects/jw/tunnel.obj"));
        assert_eq!(
            (js[1].size_code, js[1].door_2, js[1].custom.as_ref()),
            (1, false, None)
        );
    }

    #[test]
    fn a_bad_jetway_row_costs_its_own_line() {
        let src = APT.replace(
            "99\n",
            "1500 47.501 8.501 90.0 1 x 180.0 14.5 270.0\n1501 a.obj\n\
1500 47.501 8.501 90.0 1 25 180.0 14.5 270.0\n1500 47.501 8.501 90.0 1 2 180.0 -3 270.0\n\
1500 47.502 8.502 0 0 1 45 20\n1500 47.502 8.502 0 0 1 45 20 90\n99\n",
        );
        let (r, w) = p(&src);
        let a = &r.unwrap().airports[0];
        // The good last row is read, and the runway before them all.
        assert_eq!(a.jetways.len(), 1, "{w:?}");
        assert_eq!(a.runways.len(), 1);
        let w: Vec<String> = w.iter().map(|d| d.to_string()).collect();
        assert_eq!(w.len(), 5, "{w:#?}");
        assert!(
            w[0].starts_with("apt.dat:22:26: error: 1500: <size code> must be a whole number"),
            "{}",
            w[0]
        );
        assert!(
            w[1].starts_with("apt.dat:23:1: error: 1501 without a 1500"),
            "{}",
            w[1]
        );
        assert!(
            w[2].starts_with("apt.dat:24:26: error: <size code> must be 0–3"),
            "{}",
            w[2]
        );
        assert!(
            w[3].starts_with("apt.dat:25:") && w[3].contains("must not be negative"),
            "{}",
            w[3]
        );
        assert!(
            w[4].starts_with("apt.dat:26:") && w[4].contains("parked cab heading"),
            "{}",
            w[4]
        );
    }

    #[test]
    fn headers_are_checked() {
        assert!(p("").0.is_err());
        let e = p("I\n999\n").0.unwrap_err();
        assert!(e.message.contains("unsupported apt.dat version 999"));
        assert!(p("X\n1100\n")
            .0
            .unwrap_err()
            .to_string()
            .contains("apt.dat:1:1"));
    }
}
