//! [`FrameParams`]: what one frame shows (the camera, the sun, the layers, the overlays and
//! how LODs switch), below everything that draws a frame.

use super::camera::Camera;
use super::overlay::Overlays;
use super::sun::{Lighting, Sun};

/// What one frame shows: the camera, the light, which layers and which overlays.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameParams {
    pub camera: Camera,
    /// Object density level 1..6 (`ObjectInstance::visible_at`); 6 shows everything.
    pub density: u8,
    /// Where the sun stands (`--sun`); the light, ambient and sky colours follow from its
    /// elevation ([`Lighting::of`]).
    pub sun: Sun,
    /// Exposure compensation in stops (EV) on top of the camera's auto-exposure
    /// (`--exposure`): the exposure times 2^EV ([`photometry::exposure`]); 0, the default,
    /// leaves the metered exposure.
    ///
    /// [`photometry::exposure`]: super::photometry::exposure
    pub exposure_ev: f32,
    /// Whether the sun casts shadows (`--shadows`): objects, facades and trees through a
    /// shadow map (`shadow.rs`).
    pub shadows: bool,
    /// A plain sky of this colour (linear RGB; also the haze's) instead of the sun's
    /// gradient: `None`, the default, takes the sky from the sun.
    pub sky: Option<[f32; 3]>,
    /// Meters at which the haze reaches about 63%; 0 for none.
    pub visibility_m: f32,
    pub show_terrain: bool,
    pub show_tiles: bool,
    pub show_objects: bool,
    pub show_facades: bool,
    pub show_trees: bool,
    /// Trees are drawn only within about this distance of the camera's LOD eye (m;
    /// infinite, the default: as far as their forests reach). The test is per cell of
    /// trees (`cells.rs`), so trees a cell's size beyond it may still show; without cell
    /// culling it draws them all. The window's drag preview sets it.
    pub trees_within_m: f32,
    /// Draped polygons and orthophotos.
    pub show_draped: bool,
    /// Painted lines.
    pub show_lines: bool,
    /// An airport's pavement (runways, helipads, shoulders, taxiways).
    pub show_pavement: bool,
    /// An airport's painted markings.
    pub show_markings: bool,
    /// Road networks (`Scene::roads`): the viewer's "roads" checkbox.
    pub show_roads: bool,
    pub overlays: Overlays,
    /// How an object changes LOD at a switch distance.
    pub lod_switch: LodSwitch,
}

/// How an object changes from one LOD to the next at the switch distance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LodSwitch {
    /// Cross-fade over a band around the distance: each pixel shows one LOD or the other by
    /// a fixed screen-space ordered-dither pattern, shifted per instance, the two LODs'
    /// pixels complementary; nothing changes from frame to frame. Tiles fade out over the
    /// last tenth of their LOD.
    #[default]
    Fade,
    /// Switch at the distance, as X-Plane does: the pop shows. Tiles end at their LOD.
    Hard,
}

impl std::str::FromStr for LodSwitch {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fade" => Ok(LodSwitch::Fade),
            "hard" => Ok(LodSwitch::Hard),
            _ => Err(format!("`{s}`: expected fade or hard")),
        }
    }
}

impl Default for FrameParams {
    fn default() -> Self {
        FrameParams {
            camera: Camera::orbit([0.0, 0.0, 0.0], 300.0, 45.0, 35.0),
            density: 6,
            sun: Sun::NOON,
            exposure_ev: 0.0,
            shadows: true,
            sky: None,
            visibility_m: super::framing::DEFAULT_VISIBILITY_M,
            show_terrain: true,
            show_tiles: true,
            show_objects: true,
            show_draped: true,
            show_lines: true,
            show_pavement: true,
            show_markings: true,
            show_roads: true,
            show_facades: true,
            show_trees: true,
            trees_within_m: f32::INFINITY,
            overlays: Overlays::default(),
            lod_switch: LodSwitch::Fade,
        }
    }
}

impl FrameParams {
    /// The sky's colour at the horizon as seen (linear RGB, 0..1, after the exposure and
    /// the tonemap curve): `sky`, else the sun's. What a window shows with no scene.
    pub fn horizon(&self) -> [f32; 3] {
        self.sky.unwrap_or_else(|| {
            let light = Lighting::of(self.sun);
            let exposure = super::photometry::exposure(&light, self.exposure_ev);
            super::photometry::tonemap(light.horizon * exposure).to_array()
        })
    }

    /// Default parameters with the camera framing a scene's bounds
    /// ([`Camera::frame_scene`]).
    pub fn framing(bounds: ([f32; 2], [f32; 2])) -> Self {
        FrameParams {
            camera: Camera::frame_scene(bounds),
            ..FrameParams::default()
        }
    }
}
