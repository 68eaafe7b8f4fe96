//! Layout inputs from the command line and from polygon files (GeoJSON, DSF text), turned
//! into a [`LayoutInput`] in local meters.
//!
//! Geographic coordinates are projected to a local east/north frame around the first vertex
//! of the chosen polygon (or the placement point) with an equirectangular projection, which
//! is accurate to well under a centimetre over the few hundred meters an autogen element
//! covers.

use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::format::{self, FileKind};
use crate::layout::geom::P2;
use crate::layout::{Convention, LayoutInput, PointInput};
use crate::scene::GeoFrame;

/// Meters per degree of latitude (and of longitude at the equator) on the WGS84 sphere.
pub const METERS_PER_DEGREE: f64 = 111_319.490_793_273_6;

/// `--convention`: the command line's names for the layout's [`Convention`], which knows
/// nothing of the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ConventionArg {
    /// As WED and OverlayEditor draw it: texture up points north at heading 0.
    #[default]
    Wed,
    /// As the AGP spec words it: the tile turned 180° from WED's, `ROTATION`
    /// counter-clockwise.
    Spec,
}

impl From<ConventionArg> for Convention {
    fn from(c: ConventionArg) -> Self {
        match c {
            ConventionArg::Wed => Convention::Wed,
            ConventionArg::Spec => Convention::Spec,
        }
    }
}

/// The layout options every layout-driven command takes.
#[derive(Debug, Clone, Default, PartialEq, clap::Args)]
pub struct LayoutArgs {
    /// Polygon (or point) file: GeoJSON, or DSF text (its polygons whose POLYGON_DEF names
    /// the asset).
    #[arg(long, value_name = "FILE")]
    pub polygon: Option<PathBuf>,
    /// Which polygon of the file to use (0-based, among those that apply).
    #[arg(long, value_name = "N")]
    pub polygon_index: Option<usize>,
    /// A rectangle in meters, WxD: first side from (0,0) east to (W,0), counter-clockwise.
    #[arg(long, value_name = "WxD")]
    pub rect: Option<String>,
    /// Place a point asset at LON,LAT,HEADING.
    #[arg(long, value_name = "LON,LAT,HEADING", allow_hyphen_values = true)]
    pub at: Option<String>,
    /// Heading of a point asset, degrees clockwise from north.
    #[arg(long, value_name = "DEG", allow_hyphen_values = true)]
    pub heading: Option<f32>,
    /// Building height in meters (overrides the parameter's high byte).
    #[arg(long, value_name = "M")]
    pub height: Option<f32>,
    /// The DSF parameter (height/4 in the high byte; spelling set or contour count low).
    #[arg(long, value_name = "N")]
    pub param: Option<u32>,
    /// Seed for every random choice.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Which way a tile faces at heading 0: as WED draws it, or as the AGP spec words it.
    #[arg(long, value_enum, default_value_t = ConventionArg::Wed)]
    pub convention: ConventionArg,
    /// For an .agn whose name carries no LOD13 code: the square's north-west corner LAT,LON.
    #[arg(long, value_name = "LAT,LON", allow_hyphen_values = true)]
    pub origin: Option<String>,
    /// For an .agn: a file of `GUID path` lines. A path to a `.for` gives a vegetation GUID
    /// its forest's trees and heights; to an image (.png .dds .bmp), a roof GUID its roof
    /// texture; to anything else (a model), a library object its real model instead of a box.
    #[arg(long, value_name = "FILE")]
    pub guid_map: Option<PathBuf>,
    /// An X-Plane install whose scenery libraries resolve library paths (after the
    /// document's own package). Without it, the environment variable XPLANE_ROOT.
    #[arg(long, value_name = "DIR")]
    pub xplane: Option<PathBuf>,
    /// A library package (a folder holding library.txt), or a folder of packages as
    /// `Custom Scenery` is, whose libraries resolve library paths without an install. They
    /// rank after the document's own package and before the install's. Repeatable.
    #[arg(long = "library", value_name = "DIR")]
    pub libraries: Vec<PathBuf>,
    /// Show only part of a document, a comma-separated list of: `autogen` (.agp .agb .ags),
    /// `art` (objects, facades and forests placed by hand), `ground` (draped polygons,
    /// orthophotos, painted lines, object strings). Default: everything.
    #[arg(long, value_enum, value_name = "WHAT", value_delimiter = ',')]
    pub only: Vec<Only>,
}

/// What `--only` keeps of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Only {
    /// The autogen features (.agp, .agb, .ags).
    Autogen,
    /// Objects, facades and forests placed by hand (.obj, .fac, .for).
    Art,
    /// The ground: draped polygons and orthophotos (.pol), painted lines (.lin), object
    /// strings (.str).
    Ground,
}

impl Only {
    /// Which part of a document a feature of `kind` belongs to.
    pub fn of(kind: crate::scene::FeatureKind) -> Only {
        use crate::scene::FeatureKind as K;
        match kind {
            K::Agp | K::Agb | K::Ags => Only::Autogen,
            K::Obj | K::Fac | K::For => Only::Art,
            K::Pol | K::Lin | K::Str => Only::Ground,
            K::Runway | K::Helipad | K::Pavement | K::Marking => Only::Ground,
        }
    }
}

impl LayoutArgs {
    /// What resolution is asked: `--xplane` (else `XPLANE_ROOT`) and `--library`. An
    /// `--xplane` that is not an X-Plane folder is refused.
    pub fn resolve_options(&self) -> Result<crate::resolve::ResolveOptions, String> {
        Ok(crate::resolve::ResolveOptions {
            xplane: crate::resolve::xplane_root(self.xplane.as_deref())?,
            libraries: self.libraries.clone(),
            ..Default::default()
        })
    }

    /// Whether `--only` keeps features of `kind` (everything when it is not given).
    pub fn keeps(&self, kind: crate::scene::FeatureKind) -> bool {
        self.only.is_empty() || self.only.contains(&Only::of(kind))
    }

    /// `--origin LAT,LON` as numbers.
    pub fn origin(&self) -> Result<Option<(f64, f64)>, String> {
        let Some(o) = &self.origin else {
            return Ok(None);
        };
        let v = numbers(o, 2, "--origin LAT,LON")?;
        if v[0].abs() > 90.0 || v[1].abs() > 180.0 {
            return Err(format!("--origin {o}: latitude or longitude out of range"));
        }
        Ok(Some((v[0], v[1])))
    }
}

fn numbers(s: &str, n: usize, what: &str) -> Result<Vec<f64>, String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{what}: expected {n} comma-separated numbers, got `{s}`"))?;
    if v.len() != n || v.iter().any(|x| !x.is_finite()) {
        return Err(format!(
            "{what}: expected {n} comma-separated finite numbers, got `{s}`"
        ));
    }
    Ok(v)
}

/// Parses `WxD` into positive meters.
pub fn parse_rect(s: &str) -> Result<(f32, f32), String> {
    let (w, d) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("--rect {s}: expected WxD in meters, e.g. 100x80"))?;
    let w: f32 = w
        .trim()
        .parse()
        .map_err(|_| format!("--rect {s}: width `{w}` is not a number"))?;
    let d: f32 = d
        .trim()
        .parse()
        .map_err(|_| format!("--rect {s}: depth `{d}` is not a number"))?;
    if !(w.is_finite() && d.is_finite()) || w <= 0.0 || d <= 0.0 {
        return Err(format!(
            "--rect {s}: width and depth must be positive meters"
        ));
    }
    Ok((w, d))
}

/// Projects geographic points to local meters around `origin` (lon, lat).
pub fn project(origin: [f64; 2], lonlat: [f64; 2]) -> P2 {
    let k = origin[1].to_radians().cos();
    [
        ((lonlat[0] - origin[0]) * k * METERS_PER_DEGREE) as f32,
        ((lonlat[1] - origin[1]) * METERS_PER_DEGREE) as f32,
    ]
}

fn geo(origin: [f64; 2]) -> GeoFrame {
    GeoFrame {
        origin_lat: origin[1],
        origin_lon: origin[0],
        ..Default::default()
    }
}

fn project_rings(rings: &[Vec<[f64; 2]>]) -> (Vec<Vec<P2>>, GeoFrame) {
    let origin = rings
        .first()
        .and_then(|r| r.first())
        .copied()
        .unwrap_or([0.0, 0.0]);
    let out = rings
        .iter()
        .map(|r| r.iter().map(|p| project(origin, *p)).collect())
        .collect();
    (out, geo(origin))
}

/// True when the asset is placed at a point rather than on a polygon.
fn is_point_asset(asset: &Path) -> bool {
    asset
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("agp"))
}

/// Builds the layout input for `asset` from the options. Warnings from reading the polygon
/// file are pushed to `warnings`.
pub fn build(
    args: &LayoutArgs,
    asset: &Path,
    warnings: &mut Vec<Diagnostic>,
) -> Result<LayoutInput, Diagnostic> {
    let usage = |m: String| Diagnostic::error_file(asset, m);
    let mut input = LayoutInput {
        param: args.param,
        height: args.height,
        seed: args.seed,
        convention: args.convention.into(),
        ..Default::default()
    };
    if let Some(h) = args.height {
        if !h.is_finite() || h < 0.0 {
            return Err(usage(format!(
                "--height {h}: must be a non-negative number of meters"
            )));
        }
    }
    if let Some(p) = args.param {
        if p > 0xFFFF {
            return Err(usage(format!("--param {p}: a DSF parameter is 0..65535")));
        }
    }
    let sources = [
        args.polygon.is_some(),
        args.rect.is_some(),
        args.at.is_some(),
    ];
    if sources.iter().filter(|b| **b).count() > 1 {
        return Err(usage(
            "give only one of --polygon, --rect and --at".to_string(),
        ));
    }
    if let Some(r) = &args.rect {
        let (w, d) = parse_rect(r).map_err(usage)?;
        input.polygon = Some(vec![vec![[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]]]);
    }
    if let Some(at) = &args.at {
        let v = numbers(at, 3, "--at LON,LAT,HEADING").map_err(usage)?;
        if v[1].abs() > 90.0 || v[0].abs() > 180.0 {
            return Err(usage(format!(
                "--at {at}: longitude or latitude out of range"
            )));
        }
        input.point = Some(PointInput {
            pos: [0.0, 0.0],
            heading: v[2] as f32,
        });
        input.geo = Some(geo([v[0], v[1]]));
    }
    if let Some(h) = args.heading {
        if !h.is_finite() {
            return Err(usage(format!("--heading {h}: not a finite number")));
        }
        let p = input.point.get_or_insert_with(PointInput::default);
        p.heading = h;
    }
    if let Some(file) = &args.polygon {
        read_polygon_file(args, asset, file, &mut input, warnings)?;
    }
    Ok(input)
}

fn read_polygon_file(
    args: &LayoutArgs,
    asset: &Path,
    file: &Path,
    input: &mut LayoutInput,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), Diagnostic> {
    let bytes = format::read_file(file)?;
    let point_asset = is_point_asset(asset);
    let asset_name = asset
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let pick = |n: usize, what: &str| -> Result<usize, Diagnostic> {
        let i = args.polygon_index.unwrap_or(0);
        if i >= n {
            return Err(Diagnostic::error_file(
                file,
                format!("--polygon-index {i}: the file has {n} {what}"),
            ));
        }
        Ok(i)
    };
    match FileKind::detect(file, &bytes) {
        Some(FileKind::GeoJson) => {
            let gj = format::geojson::parse(file, &bytes, warnings)?;
            if point_asset && !gj.points.is_empty() {
                let p = &gj.points[pick(gj.points.len(), "point(s)")?];
                input.point = Some(PointInput {
                    pos: [0.0, 0.0],
                    heading: args.heading.unwrap_or(p.heading.unwrap_or(0.0) as f32),
                });
                input.geo = Some(geo([p.lon, p.lat]));
                input.param = input.param.or(p.param);
                input.height = input.height.or(p.height.map(|h| h as f32));
                input.polygon_source = Some((file.to_path_buf(), p.line));
                return Ok(());
            }
            if gj.polygons.is_empty() {
                return Err(Diagnostic::error_file(
                    file,
                    format!(
                        "no polygon in the file (it has {} point(s)); {} needs a polygon",
                        gj.points.len(),
                        asset_name
                    ),
                ));
            }
            let p = &gj.polygons[pick(gj.polygons.len(), "polygon(s)")?];
            let (rings, frame) = project_rings(&p.rings);
            input.polygon = Some(rings);
            input.spawn = p.spawn.clone();
            input.geo = Some(frame);
            input.param = input.param.or(p.param);
            input.height = input.height.or(p.height.map(|h| h as f32));
            input.polygon_source = Some((file.to_path_buf(), p.line));
        }
        Some(FileKind::DsfText) => {
            let dsf = format::dsf::parse(file, &bytes, warnings)?;
            if point_asset {
                let defs: Vec<usize> = dsf
                    .object_defs
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| d.path.replace('\\', "/").ends_with(&asset_name))
                    .map(|(i, _)| i)
                    .collect();
                let objs: Vec<_> = dsf
                    .objects
                    .iter()
                    .filter(|o| defs.contains(&o.def))
                    .collect();
                if objs.is_empty() {
                    return Err(Diagnostic::error_file(
                        file,
                        format!("no OBJECT in the file places {asset_name}"),
                    ));
                }
                let o = objs[pick(objs.len(), "placement(s) of the asset")?];
                input.point = Some(PointInput {
                    pos: [0.0, 0.0],
                    heading: args.heading.unwrap_or(o.heading as f32),
                });
                input.geo = Some(geo([o.lon, o.lat]));
                input.polygon_source = Some((file.to_path_buf(), o.line));
                return Ok(());
            }
            let polys = dsf.polygons_for(&asset_name);
            let chosen = if polys.is_empty() {
                if args.polygon_index.is_none() {
                    return Err(Diagnostic::error_file(
                        file,
                        format!(
                            "no polygon in the file uses {asset_name} (no POLYGON_DEF names it); pick one with --polygon-index"
                        ),
                    ));
                }
                let all: Vec<_> = dsf.polygons.iter().collect();
                all[pick(all.len(), "polygon(s)")?]
            } else {
                polys[pick(polys.len(), "polygon(s) that use the asset")?]
            };
            let (rings, frame) = project_rings(&chosen.windings);
            input.polygon = Some(rings);
            input.windings = true;
            input.geo = Some(frame);
            input.param = input.param.or(Some(chosen.param));
            input.polygon_source = Some((file.to_path_buf(), chosen.line));
        }
        _ => {
            return Err(Diagnostic::error_file(
                file,
                "--polygon takes a GeoJSON (.geojson) or DSF text file",
            ))
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rects() {
        assert_eq!(parse_rect("100x80"), Ok((100.0, 80.0)));
        assert!(parse_rect("0x0").unwrap_err().contains("must be positive"));
        assert!(parse_rect("-5x10")
            .unwrap_err()
            .contains("must be positive"));
        assert!(parse_rect("abc").unwrap_err().contains("expected WxD"));
        assert!(parse_rect("5xnan").is_err());
    }

    #[test]
    fn projection_is_meters() {
        let p = project([10.0, 0.0], [10.001, 0.001]);
        assert!(
            (p[0] - 111.32).abs() < 0.01 && (p[1] - 111.32).abs() < 0.01,
            "{p:?}"
        );
        let q = project([10.0, 60.0], [10.001, 60.0]);
        assert!(
            (q[0] - 55.66).abs() < 0.01,
            "longitude shrinks with cos(lat): {q:?}"
        );
    }

    #[test]
    fn one_source_only() {
        let args = LayoutArgs {
            rect: Some("10x10".into()),
            at: Some("1,2,3".into()),
            ..Default::default()
        };
        let e = build(&args, Path::new("a.agb"), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("only one of"));
    }

    #[test]
    fn geojson_without_polygon_is_an_error() {
        let dir = std::env::temp_dir().join(format!("agview-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("p.geojson");
        std::fs::write(
            &f,
            r#"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}"#,
        )
        .unwrap();
        let args = LayoutArgs {
            polygon: Some(f.clone()),
            ..Default::default()
        };
        let e = build(&args, Path::new("a.agb"), &mut Vec::new()).unwrap_err();
        assert!(e.to_string().contains("no polygon in the file"), "{e}");
        // A point asset takes the point.
        let i = build(&args, Path::new("a.agp"), &mut Vec::new()).unwrap();
        assert!(i.point.is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
