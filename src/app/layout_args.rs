//! The layout options of the command line, and their one translation into the loader's
//! typed [`Inputs`]: clap's types stay here, on the binary's side.

use std::path::PathBuf;

use crate::input::{self, Convention, GeoPoint, Inputs, Only, PolygonFile};
use crate::season::Season;

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

/// `--only`: the command line's names for the parts of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnlyArg {
    /// The autogen features (.agp, .agb, .ags).
    Autogen,
    /// Objects, facades and forests placed by hand (.obj, .fac, .for).
    Art,
    /// The ground: draped polygons and orthophotos (.pol), painted lines (.lin), object
    /// strings (.str). Not roads.
    Ground,
    /// Road networks: a DSF's network segments and WED's roads (.net).
    Roads,
}

impl From<OnlyArg> for Only {
    fn from(o: OnlyArg) -> Self {
        match o {
            OnlyArg::Autogen => Only::Autogen,
            OnlyArg::Art => Only::Art,
            OnlyArg::Ground => Only::Ground,
            OnlyArg::Roads => Only::Roads,
        }
    }
}

/// `--season`: X-Plane 12's seasons as the command line names them, the words of a
/// `library.txt` season list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SeasonArg {
    /// Spring.
    Spr,
    /// Summer (the default, what WED shows).
    #[default]
    Sum,
    /// Fall.
    Fal,
    /// Winter.
    Win,
}

impl From<SeasonArg> for Season {
    fn from(s: SeasonArg) -> Self {
        match s {
            SeasonArg::Spr => Season::Spring,
            SeasonArg::Sum => Season::Summer,
            SeasonArg::Fal => Season::Fall,
            SeasonArg::Win => Season::Winter,
        }
    }
}

/// Where library paths are looked up, and in which season: the options of every command
/// that resolves a name (`layout`, `render`, `view`, `report`, `sweep` through
/// [`LayoutArgs`], and `check`).
#[derive(Debug, Clone, Default, PartialEq, clap::Args)]
pub struct LibraryArgs {
    /// An X-Plane install whose scenery libraries resolve library paths (after the
    /// document's own package). Without it, the environment variable XPLANE_ROOT.
    ///
    /// A DSF's road network (NETWORK_DEF lib/g10/roads.net) resolves through those
    /// libraries, else in the install's Resources/default scenery/1000 roads. Without it,
    /// roads draw in agview's plain profile, whose widths per subtype band are agview's
    /// choice (UNCONFIRMED; docs/roads.md).
    #[arg(long, value_name = "DIR")]
    pub xplane: Option<PathBuf>,
    /// A library package (a folder holding library.txt), or a folder of packages as
    /// `Custom Scenery` is, whose libraries resolve library paths without an install. They
    /// rank after the document's own package and before the install's. Repeatable.
    #[arg(long = "library", value_name = "DIR")]
    pub libraries: Vec<PathBuf>,
    /// The season library paths resolve in: an EXPORT*_SEASON line applies only in the
    /// seasons it lists, a plain EXPORT in all. A season for which a package exports no
    /// file of a path uses that package's plain exports, then lower-priority packages',
    /// then EXPORT_BACKUP, never another season's file (agview's choice: X-Plane's rule is
    /// unconfirmed; docs/guide.md, "Seasons").
    #[arg(long, value_enum, value_name = "SEASON", default_value_t = SeasonArg::Sum)]
    pub season: SeasonArg,
}

impl LibraryArgs {
    /// The resolver's options: the install checked (`--xplane`, else `XPLANE_ROOT`: one
    /// that is not an X-Plane folder is refused).
    pub fn resolve_options(&self) -> Result<crate::resolve::ResolveOptions, String> {
        Ok(crate::resolve::ResolveOptions {
            xplane: crate::resolve::xplane_root(self.xplane.as_deref())?,
            libraries: self.libraries.clone(),
            season: self.season.into(),
        })
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
    #[arg(long, value_name = "WxD", value_parser = parse_rect)]
    pub rect: Option<[f32; 2]>,
    /// Place a point asset at LON,LAT,HEADING.
    #[arg(long, value_name = "LON,LAT,HEADING", allow_hyphen_values = true, value_parser = input::parse_at)]
    pub at: Option<GeoPoint>,
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
    /// Also where a --rect or hand-drawn shape is placed when saved as GeoJSON (default 0,0).
    #[arg(long, value_name = "LAT,LON", allow_hyphen_values = true, value_parser = input::parse_origin)]
    pub origin: Option<(f64, f64)>,
    /// For an .agn: a file of `GUID path` lines. A path to a `.for` gives a vegetation GUID
    /// its forest's trees and heights; to an image (.png .dds .bmp), a roof GUID its roof
    /// texture; to anything else (a model), a library object its real model instead of a box.
    #[arg(long, value_name = "FILE")]
    pub guid_map: Option<PathBuf>,
    /// `--xplane`, `--library` and `--season`: where library paths are looked up, and in
    /// which season.
    #[command(flatten)]
    pub library: LibraryArgs,
    /// Show only part of a document, a comma-separated list of: `autogen` (.agp .agb .ags),
    /// `art` (objects, facades and forests placed by hand), `ground` (draped polygons,
    /// orthophotos, painted lines, object strings, an airport's pavement; not roads),
    /// `roads` (road networks). Default: everything.
    #[arg(long, value_enum, value_name = "WHAT", value_delimiter = ',')]
    pub only: Vec<OnlyArg>,
}

/// `--rect WxD` as positive meters.
fn parse_rect(s: &str) -> Result<[f32; 2], String> {
    input::parse_rect(s).map(|(w, d)| [w, d])
}

impl LayoutArgs {
    /// The loader's inputs: the install checked (`--xplane`, else `XPLANE_ROOT`: one that is
    /// not an X-Plane folder is refused) and the options checked together.
    pub fn inputs(&self) -> Result<Inputs, String> {
        let inputs = Inputs {
            polygon: self.polygon.clone().map(|path| PolygonFile {
                path,
                index: self.polygon_index,
            }),
            rect: self.rect,
            at: self.at,
            heading: self.heading,
            height: self.height,
            param: self.param,
            seed: self.seed,
            convention: self.convention.into(),
            origin: self.origin,
            guid_map: self.guid_map.clone(),
            resolve: self.library.resolve_options()?,
            only: self.only.iter().map(|&o| o.into()).collect(),
            edited: None,
        };
        inputs.validate()?;
        Ok(inputs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        layout: LayoutArgs,
    }

    fn parse(args: &[&str]) -> Result<Inputs, String> {
        let cli = Cli::try_parse_from(std::iter::once("agview").chain(args.iter().copied()))
            .map_err(|e| e.to_string())?;
        cli.layout.inputs()
    }

    #[test]
    fn values_are_parsed_once() {
        let i = parse(&["--rect", "100x80", "--seed", "7", "--only", "art,ground"]).unwrap();
        assert_eq!(i.rect, Some([100.0, 80.0]));
        assert_eq!(i.seed, 7);
        assert_eq!(i.only, vec![Only::Art, Only::Ground]);
        let i = parse(&["--at", "-122.5,37.5,-90", "--origin", "47.5,-8"]).unwrap();
        assert_eq!(
            i.at,
            Some(GeoPoint {
                lon: -122.5,
                lat: 37.5,
                heading: -90.0
            })
        );
        assert_eq!(i.origin, Some((47.5, -8.0)));
        assert_eq!(i.resolve.season, Season::Summer);
        let i = parse(&["--season", "win", "--library", "lib"]).unwrap();
        assert_eq!(i.resolve.season, Season::Winter);
        assert_eq!(i.resolve.libraries, [PathBuf::from("lib")]);
        assert!(parse(&["--season", "winter"])
            .unwrap_err()
            .contains("possible values: spr, sum, fal, win"));
    }

    #[test]
    fn only_roads_keeps_roads_and_ground_does_not() {
        use crate::scene::FeatureKind;
        let i = parse(&["--only", "roads"]).unwrap();
        assert_eq!(i.only, vec![Only::Roads]);
        assert!(i.keeps(FeatureKind::Road));
        assert!(!i.keeps(FeatureKind::Pol) && !i.keeps(FeatureKind::Agb));
        let i = parse(&["--only", "ground"]).unwrap();
        assert!(!i.keeps(FeatureKind::Road));
        assert!(i.keeps(FeatureKind::Lin) && i.keeps(FeatureKind::Pavement));
        let i = parse(&["--only", "ground,roads"]).unwrap();
        assert!(i.keeps(FeatureKind::Road) && i.keeps(FeatureKind::Pol));
        // Everything by default, roads included.
        assert!(parse(&[]).unwrap().keeps(FeatureKind::Road));
    }

    #[test]
    fn bad_values_are_refused_with_their_flag() {
        assert!(parse(&["--rect", "0x5"])
            .unwrap_err()
            .contains("must be positive"));
        assert!(parse(&["--at", "1,95,0"])
            .unwrap_err()
            .contains("out of range"));
        assert!(parse(&["--rect", "5x5", "--at", "1,2,3"])
            .unwrap_err()
            .contains("only one of"));
        assert!(parse(&["--param", "70000"])
            .unwrap_err()
            .contains("0..65535"));
    }
}
