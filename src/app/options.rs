//! Render options shared by `agview render`, `agview view` and `agview sweep`: image size,
//! camera, terrain, density, overlays.

use std::path::{Path, PathBuf};

use crate::render::{Camera, FrameChoice, FrameParams, Framing, LodSwitch, Overlays, Sun};
use crate::scene::Scene;
use crate::terrain::Terrain;

/// How the terrain under the scene is made.
#[derive(Debug, Clone, PartialEq)]
pub enum TerrainSpec {
    Flat,
    Hills,
    /// A 16-bit grayscale PNG or a GeoTIFF height map.
    Heightmap(PathBuf),
}

impl std::str::FromStr for TerrainSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "flat" => TerrainSpec::Flat,
            "hills" => TerrainSpec::Hills,
            "" => return Err("--terrain: expected flat, hills or a height map file".into()),
            p => TerrainSpec::Heightmap(PathBuf::from(p)),
        })
    }
}

/// The camera as given on the command line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CameraSpec {
    /// The whole scene framed from the south-west at about 35°.
    Orbit,
    /// Straight down, north up.
    Top,
    /// An eye at x, y, z (meters; z up) looking along yaw (clockwise from north), pitch down.
    Free([f32; 5]),
}

/// The default texture cap of headless renders (`--max-texture-size`).
pub const HEADLESS_MAX_TEXTURE: u32 = 2048;

/// The window's texture memory budget in MB unless `--texture-budget` is given.
pub const WINDOW_TEXTURE_BUDGET_MB: u64 = 1024;

const MB: u64 = 1024 * 1024;

/// `--frame`: what `orbit` and `top` frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FrameSpec {
    /// Everything the scene places.
    All,
    /// A document's main cluster (the default).
    Main,
    /// One feature: an index into the layout's `features`.
    Feature(u32),
    /// A circle: LON,LAT (the order `--at` uses) and a radius in meters.
    Around { lon: f64, lat: f64, radius: f32 },
}

impl std::str::FromStr for FrameSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("--frame {s}: expected all, main, a feature index or LON,LAT,RADIUS");
        match s.trim() {
            "all" => Ok(FrameSpec::All),
            "main" => Ok(FrameSpec::Main),
            t if !t.contains(',') => t.parse::<u32>().map(FrameSpec::Feature).map_err(|_| bad()),
            t => {
                let v: Vec<f64> = t
                    .split(',')
                    .map(|p| p.trim().parse::<f64>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| bad())?;
                match v[..] {
                    [lon, lat, r]
                        if v.iter().all(|x| x.is_finite())
                            && lon.abs() <= 180.0
                            && lat.abs() <= 90.0
                            && r > 0.0 =>
                    {
                        Ok(FrameSpec::Around {
                            lon,
                            lat,
                            radius: r as f32,
                        })
                    }
                    _ => Err(bad()),
                }
            }
        }
    }
}

/// The `--frame` argument that asks for the same framing (read back by `FromStr`).
impl std::fmt::Display for FrameSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameSpec::All => f.write_str("all"),
            FrameSpec::Main => f.write_str("main"),
            FrameSpec::Feature(i) => write!(f, "{i}"),
            FrameSpec::Around { lon, lat, radius } => write!(f, "{lon},{lat},{radius}"),
        }
    }
}

impl std::str::FromStr for CameraSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "orbit" => Ok(CameraSpec::Orbit),
            "top" => Ok(CameraSpec::Top),
            _ => {
                let v: Vec<f32> = s
                    .split(',')
                    .map(|p| p.trim().parse::<f32>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| format!("--camera {s}: expected orbit, top or X,Y,Z,YAW,PITCH"))?;
                if v.len() != 5 || v.iter().any(|x| !x.is_finite()) {
                    return Err(format!(
                        "--camera {s}: expected orbit, top or X,Y,Z,YAW,PITCH (5 numbers)"
                    ));
                }
                Ok(CameraSpec::Free([v[0], v[1], v[2], v[3], v[4]]))
            }
        }
    }
}

/// Parses `WxH` pixels.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("--size {s}: expected WxH, e.g. 1280x720"))?;
    let w: u32 = w
        .trim()
        .parse()
        .map_err(|_| format!("--size {s}: width is not a whole number"))?;
    let h: u32 = h
        .trim()
        .parse()
        .map_err(|_| format!("--size {s}: height is not a whole number"))?;
    if w == 0 || h == 0 || w > 16384 || h > 16384 {
        return Err(format!("--size {s}: each side must be 1..16384 pixels"));
    }
    Ok((w, h))
}

/// Parses `on` or `off` (`--shadows`).
pub fn parse_on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("`{s}`: expected on or off")),
    }
}

/// The most exposure compensation `--exposure` takes, in stops either way: ±10 EV is a
/// thousand times the light or a thousandth of it, past anything a picture needs.
pub const MAX_EXPOSURE_EV: f32 = 10.0;

/// An exposure compensation in stops (`--exposure EV`): a finite number within
/// ±[`MAX_EXPOSURE_EV`].
pub fn parse_exposure(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(ev) if ev.is_finite() && ev.abs() <= MAX_EXPOSURE_EV => Ok(ev),
        Ok(_) => Err(format!(
            "`{s}`: expected stops (EV) from -{MAX_EXPOSURE_EV} to {MAX_EXPOSURE_EV}"
        )),
        Err(_) => Err(format!(
            "`{s}`: expected a number of stops (EV), such as 1 or -0.5"
        )),
    }
}

/// Overlay names for `--debug`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OverlayName {
    Polygon,
    Cuts,
    Slop,
    Ground,
    Stops,
    Corners,
    Caps,
    Edges,
    /// Autogen points SLOPE_LIMIT dropped.
    Dropped,
    All,
}

/// The render options every drawing command takes.
#[derive(Debug, Clone, clap::Args)]
pub struct RenderArgs {
    /// Camera: orbit (default: the whole scene from the south-west at about 35°), top, or
    /// X,Y,Z,YAW,PITCH (meters, z up; yaw clockwise from north; pitch down from level).
    #[arg(long, default_value = "orbit", value_parser = |s: &str| s.parse::<CameraSpec>(), allow_hyphen_values = true)]
    pub camera: CameraSpec,
    /// `--terrain`, `--terrain-size`, `--terrain-height`, `--exaggeration`.
    #[command(flatten)]
    pub terrain: TerrainArgs,
    /// Object density 1..6 (X-Plane's object rendering levels): thins objects by their show
    /// levels, seeded.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u8).range(1..=6))]
    pub density: u8,
    /// Debug overlays to draw (repeatable): polygon, cuts, slop, ground, stops, corners, caps,
    /// edges, dropped (points SLOPE_LIMIT dropped), all.
    #[arg(long = "debug", value_enum, value_name = "OVERLAY")]
    pub overlays: Vec<OverlayName>,
    /// How objects change LOD: fade (cross-fade by a fixed dither around the switch
    /// distance) or hard (switch at the distance, as X-Plane does, so the pop shows).
    #[arg(long, default_value = "fade", value_name = "fade|hard", value_parser = |s: &str| s.parse::<LodSwitch>())]
    pub lod_switch: LodSwitch,
    /// The sun: noon (60,225, the default), dusk (4,270), night (-20,0, moonlit) or
    /// ELEV,AZIMUTH in degrees (elevation above the horizon, azimuth clockwise from north,
    /// toward the sun). The light, ambient and sky (in nits) follow from the elevation; the
    /// frame is drawn in HDR, exposed by agview's auto-exposure (an incident meter, floor 5
    /// nits) and tonemapped by an ACES fit on the brightest channel (both agview's choice:
    /// X-Plane 12's are unpublished; docs/light.md).
    #[arg(long, default_value = "noon", value_name = "noon|dusk|night|ELEV,AZIMUTH", value_parser = |s: &str| s.parse::<Sun>(), allow_hyphen_values = true)]
    pub sun: Sun,
    /// Exposure compensation in stops (EV), -10..10, on top of the auto-exposure: +1 lets in
    /// twice the light, -1 half (docs/light.md). 0, the default, is the metered exposure.
    #[arg(long, default_value_t = 0.0, value_name = "EV", value_parser = parse_exposure, allow_hyphen_values = true)]
    pub exposure: f32,
    /// Shadows from the sun (objects, facades and trees on the ground and on each other).
    #[arg(long, default_value = "on", value_name = "on|off", value_parser = parse_on_off, action = clap::ArgAction::Set)]
    pub shadows: bool,
    /// What orbit and top frame: main (a document's main cluster, the default), all, a
    /// feature index, or LON,LAT,RADIUS (degrees and meters). Ignored with X,Y,Z,YAW,PITCH.
    #[arg(long, value_name = "all|main|FEATURE|LON,LAT,RADIUS", value_parser = |s: &str| s.parse::<FrameSpec>(), allow_hyphen_values = true)]
    pub frame: Option<FrameSpec>,
    /// Largest texture side kept, in pixels: bigger textures lose their top mip levels (the
    /// DDS's own smaller levels where it has them). `render` and `sweep` default to 2048;
    /// the window keeps the adapter's limit unless given.
    #[arg(long, value_name = "PX", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_texture_size: Option<u32>,
    /// Texture memory budget in MB: when the textures would take more, the largest lose
    /// their top mip levels first until they fit. The window defaults to 1024; `render` and
    /// `sweep` keep none unless given (they cap sizes with --max-texture-size).
    #[arg(long, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    pub texture_budget: Option<u64>,
}

impl Default for RenderArgs {
    fn default() -> Self {
        RenderArgs {
            camera: CameraSpec::Orbit,
            terrain: TerrainArgs::default(),
            density: 6,
            overlays: Vec::new(),
            lod_switch: LodSwitch::Fade,
            sun: Sun::NOON,
            exposure: 0.0,
            shadows: true,
            frame: None,
            max_texture_size: None,
            texture_budget: None,
        }
    }
}

impl RenderArgs {
    /// The overlays the flags ask for.
    pub fn overlays(&self) -> Overlays {
        let mut o = Overlays::default();
        for n in &self.overlays {
            match n {
                OverlayName::Polygon => o.polygon = true,
                OverlayName::Cuts => o.cut_lines = true,
                OverlayName::Slop => o.slop_regions = true,
                OverlayName::Ground => o.ground_points = true,
                OverlayName::Stops => o.stop_points = true,
                OverlayName::Corners => o.corners = true,
                OverlayName::Caps => o.caps = true,
                OverlayName::Edges => o.edge_rects = true,
                OverlayName::Dropped => o.slope_drops = true,
                OverlayName::All => o = Overlays::all(),
            }
        }
        o
    }

    /// The camera `--camera` gives for `framing`, the orbit view fitted to an image of
    /// `aspect` (width / height).
    pub fn camera_in(&self, framing: &Framing, aspect: f32) -> Camera {
        match self.camera {
            CameraSpec::Orbit => Camera::frame_for(framing, aspect),
            CameraSpec::Top => Camera::frame_top(framing),
            CameraSpec::Free([x, y, z, yaw, pitch]) => Camera::free(x, y, z, yaw, pitch),
        }
    }

    /// Frame parameters for a scene framed by `framing`; the haze follows the framing
    /// ([`Framing::haze_visibility`]).
    pub fn frame_params(&self, framing: &Framing) -> FrameParams {
        self.frame_params_in(framing, 4.0 / 3.0)
    }

    /// [`RenderArgs::frame_params`] for an image of `aspect` (width / height).
    pub fn frame_params_in(&self, framing: &Framing, aspect: f32) -> FrameParams {
        let camera = self.camera_in(framing, aspect);
        let visibility_m = framing.haze_visibility(camera.lod_eye());
        FrameParams {
            camera,
            density: self.density,
            overlays: self.overlays(),
            lod_switch: self.lod_switch,
            sun: self.sun,
            exposure_ev: self.exposure,
            shadows: self.shadows,
            visibility_m,
            ..FrameParams::default()
        }
    }

    /// How a headless render loads art: textures capped at `--max-texture-size`, 2048 by
    /// default (a package of 4096² textures otherwise takes gigabytes to render a frame).
    pub fn headless_art(&self) -> crate::art::ArtOptions {
        crate::art::ArtOptions {
            max_texture_side: Some(self.max_texture_size.unwrap_or(HEADLESS_MAX_TEXTURE)),
            texture_budget: self.texture_budget.map(|mb| mb * MB),
        }
    }

    /// How the window loads art: textures capped only when `--max-texture-size` is given,
    /// under a texture memory budget (`--texture-budget`, 1024 MB by default).
    pub fn window_art(&self) -> crate::art::ArtOptions {
        crate::art::ArtOptions {
            max_texture_side: self.max_texture_size,
            texture_budget: Some(self.texture_budget.unwrap_or(WINDOW_TEXTURE_BUDGET_MB) * MB),
        }
    }

    /// What `--frame` asks for in `scene` (its geographic frame places LON,LAT), and the
    /// warning when it is ignored because the camera is given.
    pub fn frame_choice(&self, scene: &Scene) -> (FrameChoice, Option<String>) {
        let ignored = matches!(self.camera, CameraSpec::Free(_)) && self.frame.is_some();
        let choice = match self.frame {
            None | Some(FrameSpec::Main) => FrameChoice::Main,
            Some(FrameSpec::All) => FrameChoice::All,
            Some(FrameSpec::Feature(i)) => FrameChoice::Feature(i),
            Some(FrameSpec::Around { lon, lat, radius }) => {
                let origin = scene
                    .geo
                    .as_ref()
                    .map_or([lon, lat], |g| [g.origin_lon, g.origin_lat]);
                FrameChoice::Around {
                    center: crate::input::project(origin, [lon, lat]),
                    radius,
                }
            }
        };
        let warning = ignored.then(|| {
            "note: --camera X,Y,Z,YAW,PITCH places the camera itself: --frame sets only the haze and the shadows' reach"
                .to_string()
        });
        (choice, warning)
    }

    /// The framing of `scene` as `--frame` asks (see [`Framing::choose`]).
    pub fn framing(
        &self,
        scene: &Scene,
        art: Option<&crate::art::ArtSet>,
        terrain: Option<&Terrain>,
    ) -> Framing {
        Framing::choose(scene, art, terrain, self.frame_choice(scene).0)
    }
}

/// `--terrain-size` and `--terrain-height`: the terrain square's side and its height, as
/// every command that makes a terrain takes them (through [`TerrainArgs`], and `layout`
/// through [`LayoutTerrainArgs`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, clap::Args)]
pub struct TerrainExtent {
    /// Side of the terrain square in meters (default: three times the scene's extent).
    #[arg(long, value_name = "M")]
    pub terrain_size: Option<f32>,
    /// Height in meters of the height map's white (65535), or the hills' amplitude.
    #[arg(long, value_name = "M")]
    pub terrain_height: Option<f32>,
}

/// The terrain flags of every command that stands a scene on a terrain (`render`, `view`,
/// `report` and `sweep` through [`RenderArgs`], and `export`), declared once, and the one
/// rule that makes the terrain of them ([`TerrainArgs::terrain_for`]).
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct TerrainArgs {
    /// Terrain: flat, hills, or a 16-bit PNG / GeoTIFF height map.
    #[arg(id = "terrain", long, value_name = "TERRAIN", default_value = "flat", value_parser = |s: &str| s.parse::<TerrainSpec>())]
    pub kind: TerrainSpec,
    /// `--terrain-size`, `--terrain-height`.
    #[command(flatten)]
    pub extent: TerrainExtent,
    /// Vertical exaggeration of the terrain.
    #[arg(long, default_value_t = 1.0)]
    pub exaggeration: f32,
}

impl Default for TerrainArgs {
    fn default() -> Self {
        TerrainArgs {
            kind: TerrainSpec::Flat,
            extent: TerrainExtent::default(),
            exaggeration: 1.0,
        }
    }
}

impl TerrainArgs {
    /// The terrain under a scene: centred on it, three times its extent unless told.
    pub fn terrain_for(&self, scene: &Scene) -> Result<Terrain, String> {
        let (lo, hi) = scene.bounds();
        self.terrain_for_bounds(lo, hi)
    }

    /// [`TerrainArgs::terrain_for`] by the scene's bounds `(min, max)`, for a document's
    /// loader: its `SLOPE_LIMIT`s are measured on this terrain
    /// ([`crate::document::LoadOptions::ground`]).
    pub fn ground(&self) -> crate::document::Ground {
        let args = self.clone();
        crate::document::Ground(std::sync::Arc::new(move |lo, hi| {
            args.terrain_for_bounds(lo, hi)
        }))
    }

    /// The terrain centred on the bounds `(min, max)`, three times their extent unless told.
    pub fn terrain_for_bounds(&self, lo: [f32; 2], hi: [f32; 2]) -> Result<Terrain, String> {
        let center = [(lo[0] + hi[0]) * 0.5, (lo[1] + hi[1]) * 0.5];
        let size = self
            .extent
            .terrain_size
            .unwrap_or_else(|| ((hi[0] - lo[0]).max(hi[1] - lo[1]) * 3.0).max(200.0));
        if !(size.is_finite() && size > 0.0) {
            return Err(format!("--terrain-size {size}: must be positive meters"));
        }
        if !(self.exaggeration.is_finite() && self.exaggeration >= 0.0) {
            return Err(format!(
                "--exaggeration {}: must be a non-negative number",
                self.exaggeration
            ));
        }
        let mut t = match &self.kind {
            TerrainSpec::Flat => Terrain::flat(size),
            TerrainSpec::Hills => {
                Terrain::hills(size, self.extent.terrain_height.unwrap_or(size * 0.04), 7)
            }
            TerrainSpec::Heightmap(p) => {
                load_heightmap(p, size, self.extent.terrain_height.unwrap_or(100.0))?
            }
        };
        t.exaggeration = self.exaggeration;
        Ok(t.with_center(center))
    }
}

/// `layout`'s terrain flags: an autogen point placed by library path is screened by its
/// `SLOPE_LIMIT` on this terrain. Without `--terrain` nothing is screened.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LayoutTerrainArgs {
    /// Terrain to screen SLOPE_LIMITs on: flat, hills, or a 16-bit PNG / GeoTIFF height map
    /// (as `render --terrain`). Without it no autogen point is dropped.
    #[arg(long, value_parser = |s: &str| s.parse::<TerrainSpec>())]
    pub terrain: Option<TerrainSpec>,
    /// `--terrain-size`, `--terrain-height`.
    #[command(flatten)]
    pub extent: TerrainExtent,
}

impl LayoutTerrainArgs {
    /// The terrain a document's loader screens on, when `--terrain` is given.
    pub fn ground(&self) -> Option<crate::document::Ground> {
        let t = TerrainArgs {
            kind: self.terrain.clone()?,
            extent: self.extent,
            ..TerrainArgs::default()
        };
        Some(t.ground())
    }
}

/// Reads a 16-bit (or 8-bit) grayscale PNG or a GeoTIFF as a height map.
pub fn load_heightmap(path: &Path, size_m: f32, height_m: f32) -> Result<Terrain, String> {
    let img = image::open(path)
        .map_err(|e| format!("{}: error: cannot read height map: {e}", path.display()))?;
    let luma = img.to_luma16();
    let (w, h) = luma.dimensions();
    Terrain::from_heightmap_u16(w, h, luma.as_raw(), size_m, height_m)
        .map_err(|e| format!("{}: error: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_specs() {
        assert_eq!("all".parse::<FrameSpec>(), Ok(FrameSpec::All));
        assert_eq!("main".parse::<FrameSpec>(), Ok(FrameSpec::Main));
        assert_eq!("12".parse::<FrameSpec>(), Ok(FrameSpec::Feature(12)));
        assert_eq!(
            "8.5,47.25,300".parse::<FrameSpec>(),
            Ok(FrameSpec::Around {
                lon: 8.5,
                lat: 47.25,
                radius: 300.0
            })
        );
        for bad in ["", "x", "-1", "8.5,47", "8.5,95,10", "8.5,47,0"] {
            assert!(bad.parse::<FrameSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn parses_options() {
        assert_eq!(parse_size("1280x720"), Ok((1280, 720)));
        assert!(parse_size("0x10").is_err());
        assert_eq!("top".parse::<CameraSpec>(), Ok(CameraSpec::Top));
        assert_eq!(
            "1,2,3,4,-5".parse::<CameraSpec>(),
            Ok(CameraSpec::Free([1.0, 2.0, 3.0, 4.0, -5.0]))
        );
        assert!("1,2".parse::<CameraSpec>().is_err());
        assert_eq!(parse_on_off("off"), Ok(false));
        assert!(parse_on_off("no").is_err());
        assert_eq!("hills".parse::<TerrainSpec>(), Ok(TerrainSpec::Hills));
        assert_eq!(
            "h.png".parse::<TerrainSpec>(),
            Ok(TerrainSpec::Heightmap("h.png".into()))
        );
    }

    #[test]
    fn exposure_is_compensation_in_stops_and_none_by_default() {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            render: RenderArgs,
        }
        let parse = |args: &[&str]| {
            Cli::try_parse_from(std::iter::once("agview").chain(args.iter().copied()))
                .map(|c| c.render)
                .map_err(|e| e.to_string())
        };
        let framing = Framing::new(&crate::scene::Scene::default(), None, None);
        let none = parse(&[]).unwrap();
        assert_eq!(none.exposure, 0.0);
        assert_eq!(none.frame_params(&framing).exposure_ev, 0.0);
        assert_eq!(
            FrameParams::default().exposure_ev,
            0.0,
            "the library's default too"
        );
        let zero = parse(&["--exposure", "0"]).unwrap();
        assert_eq!(
            zero.frame_params(&framing),
            none.frame_params(&framing),
            "--exposure 0 is no option"
        );
        assert_eq!(parse(&["--exposure", "-1.5"]).unwrap().exposure, -1.5);
        assert_eq!(parse(&["--exposure=2"]).unwrap().exposure, 2.0);
        for bad in ["nan", "inf", "11", "-10.5", "one"] {
            assert!(parse(&["--exposure", bad]).is_err(), "{bad}");
        }
    }
}
