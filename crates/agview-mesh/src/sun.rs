//! The sun and the sky: where the light comes from ([`Sun`], `--sun`), and the colours of
//! the light, the ambient and the sky that follow from its elevation ([`Lighting::of`]).
//!
//! Pure functions, no GPU: the frame uniforms (`scene_gpu.rs`) are written from them.

use glam::Vec3;

/// The sun's place: `elevation_deg` above the horizon (negative below it) and
/// `azimuth_deg` clockwise from north, toward the sun.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sun {
    pub elevation_deg: f32,
    pub azimuth_deg: f32,
}

impl Sun {
    /// `noon`: high in the south-west, the default.
    pub const NOON: Sun = Sun::new(60.0, 225.0);
    /// `dusk`: 4° over the western horizon.
    pub const DUSK: Sun = Sun::new(4.0, 270.0);
    /// `night`: 20° below the northern horizon, under a dim moonlit ambient.
    pub const NIGHT: Sun = Sun::new(-20.0, 0.0);

    pub const fn new(elevation_deg: f32, azimuth_deg: f32) -> Self {
        Sun {
            elevation_deg,
            azimuth_deg,
        }
    }

    /// The unit vector toward the sun (x east, y north, z up).
    pub fn direction(&self) -> Vec3 {
        let (az, el) = (
            self.azimuth_deg.to_radians(),
            self.elevation_deg.to_radians(),
        );
        Vec3::new(az.sin() * el.cos(), az.cos() * el.cos(), el.sin())
    }

    /// The sun at `hour` (0..24, local solar time) of an equinox day at 30° north, the time
    /// of day the viewer's slider sets: the hour angle is 15° an hour from noon, and
    /// `sin(elevation) = cos(30°) · cos(hour angle)`, azimuth `180° + atan2(sin H, cos H ·
    /// sin 30°)`. It rises in the east at 6:00, stands 60° high in the south at 12:00, sets in
    /// the west at 18:00 and is 60° below the northern horizon at midnight.
    pub fn at_hour(hour: f32) -> Sun {
        let lat = 30f32.to_radians();
        let h = ((hour - 12.0) * 15.0).to_radians();
        let elevation = (lat.cos() * h.cos()).clamp(-1.0, 1.0).asin().to_degrees();
        let azimuth = (180.0 + h.sin().atan2(h.cos() * lat.sin()).to_degrees()).rem_euclid(360.0);
        Sun::new(elevation, azimuth)
    }
}

impl Sun {
    /// The hour (to a tenth) whose [`Sun::at_hour`] comes nearest this sun in direction:
    /// where the viewer's time-of-day slider starts for a `--sun` off the model's day.
    pub fn nearest_hour(&self) -> f32 {
        let d = self.direction();
        (0..240)
            .map(|k| k as f32 / 10.0)
            .max_by(|a, b| {
                let (da, db) = (
                    Sun::at_hour(*a).direction().dot(d),
                    Sun::at_hour(*b).direction().dot(d),
                );
                da.total_cmp(&db)
            })
            .unwrap_or(12.0)
    }
}

impl Default for Sun {
    fn default() -> Self {
        Sun::NOON
    }
}

impl std::fmt::Display for Sun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{},{}", self.elevation_deg, self.azimuth_deg)
    }
}

impl std::str::FromStr for Sun {
    type Err = String;

    /// `noon`, `dusk`, `night` or `ELEV,AZIMUTH` in degrees (elevation -90..90, azimuth any
    /// finite angle, taken modulo 360).
    fn from_str(s: &str) -> Result<Self, String> {
        let expected = "expected noon, dusk, night or ELEV,AZIMUTH in degrees (e.g. 35,200)";
        match s.trim() {
            "noon" => return Ok(Sun::NOON),
            "dusk" => return Ok(Sun::DUSK),
            "night" => return Ok(Sun::NIGHT),
            _ => {}
        }
        let Some((e, a)) = s.split_once(',') else {
            return Err(format!("`{s}`: {expected}"));
        };
        let num = |v: &str, what: &str| -> Result<f32, String> {
            match v.trim().parse::<f32>() {
                Ok(x) if x.is_finite() => Ok(x),
                _ => Err(format!(
                    "`{s}`: the {what} `{}` is not a number; {expected}",
                    v.trim()
                )),
            }
        };
        let elevation = num(e, "elevation")?;
        let azimuth = num(a, "azimuth")?;
        if !(-90.0..=90.0).contains(&elevation) {
            return Err(format!(
                "`{s}`: the elevation must be -90..90 degrees above the horizon"
            ));
        }
        Ok(Sun::new(elevation, azimuth.rem_euclid(360.0)))
    }
}

/// The light of a frame, linear RGB in nits (cd/m², [`crate::photometry`]): everything
/// the shaders' `shade()`, `fog()` and sky take from the sun, before the camera's exposure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lighting {
    /// Unit vector toward the sun.
    pub sun_dir: Vec3,
    /// Direct sunlight: the luminance of a white (Lambertian) surface facing the sun, its
    /// illuminance over π (0 with the sun below the horizon).
    pub sun_color: Vec3,
    /// Ambient light from the sky (on an upward face) and from the ground (a downward one),
    /// as the luminance of a white surface.
    pub sky_ambient: Vec3,
    pub ground_ambient: Vec3,
    /// Sky luminance at the horizon (also the clear colour and the distance haze) and at
    /// the zenith.
    pub horizon: Vec3,
    pub zenith: Vec3,
    /// How far night has come, 0 (day: lit textures and lights off) to 1 (night: fully
    /// on): what `TEXTURE_LIT` and light points are multiplied by ([`Lighting::of`]).
    pub night: f32,
}

impl Lighting {
    /// The same light seen through a camera of `exposure` (frame units per nit,
    /// [`crate::photometry::auto_exposure`]): every colour scaled, what the frame uniforms
    /// carry.
    pub fn exposed(self, exposure: f32) -> Lighting {
        Lighting {
            sun_color: self.sun_color * exposure,
            sky_ambient: self.sky_ambient * exposure,
            ground_ambient: self.ground_ambient * exposure,
            horizon: self.horizon * exposure,
            zenith: self.zenith * exposure,
            ..self
        }
    }
}

/// Sky and light at three moments, blended by the sun's elevation in [`Lighting::of`]. All
/// in nits (see `docs/light.md`): the sky's luminance, and the ambient as a white surface
/// facing up shows it.
struct Moment {
    horizon: Vec3,
    zenith: Vec3,
    /// Ambient from the sky; the ground's is [`GROUND_BOUNCE`] of it.
    ambient: Vec3,
}

/// A clear day: "clear sky 7 000 nt" (XP12.md §5) between a hazy horizon of about 11,000
/// nits and a deep blue zenith of about 5,800, and the sky's light on the ground about
/// 19,000 lux (a white surface at 6,000 nits).
const DAY: Moment = Moment {
    horizon: Vec3::new(8500.0, 11000.0, 15000.0),
    zenith: Vec3::new(3000.0, 6000.0, 12500.0),
    ambient: Vec3::new(4800.0, 6100.0, 7850.0),
};
/// The sun at the horizon: a warm horizon of about 800 nits, the sky's light some 2,800
/// lux.
const TWILIGHT: Moment = Moment {
    horizon: Vec3::new(1200.0, 700.0, 420.0),
    zenith: Vec3::new(300.0, 420.0, 800.0),
    ambient: Vec3::new(1000.0, 850.0, 950.0),
};
/// A moonlit night, brighter than a real full moon's 0.25 lux (a white surface at about
/// 0.3 nits, as the dark-adapted eye sees it) so that the ground stays readable.
const MOONLIT: Moment = Moment {
    horizon: Vec3::new(0.26, 0.34, 0.64),
    zenith: Vec3::new(0.06, 0.09, 0.26),
    ambient: Vec3::new(0.22, 0.3, 0.56),
};
/// The ground's ambient as a share of the sky's, per channel (warmer: sunlit earth).
const GROUND_BOUNCE: Vec3 = Vec3::new(1.0, 0.714, 0.5);
/// Direct sunlight high in the sky (about 85,000 lux: a white surface facing it at 27,000
/// nits), and at the horizon (reddened and dimmed by the long air path, about 18,000 lux).
const SUN_HIGH: Vec3 = Vec3::new(27800.0, 26900.0, 25100.0);
const SUN_LOW: Vec3 = Vec3::new(9800.0, 4750.0, 1900.0);

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// `a` to `b` by `t`, per channel geometrically (light falls off by orders of magnitude
/// through twilight, so a linear blend would stay near the brighter end too long).
fn glerp(a: Vec3, b: Vec3, t: f32) -> Vec3 {
    let f = |a: f32, b: f32| (a.max(1e-6).ln() * (1.0 - t) + b.max(1e-6).ln() * t).exp();
    Vec3::new(f(a.x, b.x), f(a.y, b.y), f(a.z, b.z))
}

impl Lighting {
    /// The light, ambient and sky of a sun, in nits, from its elevation `e` (degrees)
    /// alone:
    ///
    /// - the sky and the ambient blend (geometrically) from day (`e ≥ 25°`) to twilight (`e ≤ 2°`) by
    ///   `smoothstep(2°, 25°, e)`, and from that to moonlit night by
    ///   `smoothstep(0°, -12°, e)` (night from 12° below the horizon: astronomical dusk);
    /// - direct sunlight reddens from white (`e ≥ 30°`) to orange at the horizon and fades
    ///   out by `smoothstep(-2°, 10°, e)`: nothing below 2° under the horizon, half at 4°
    ///   (the dusk preset), whole from 10°;
    /// - lit textures and lights come on as the sun goes down, `1 − smoothstep(−6°, 12°, e)`:
    ///   off from 12° up (noon), a third on at the dusk preset's 4°, full from 6° below the
    ///   horizon (civil dusk) on.
    pub fn of(sun: Sun) -> Lighting {
        let e = if sun.elevation_deg.is_finite() {
            sun.elevation_deg
        } else {
            Sun::NOON.elevation_deg
        };
        let day = smoothstep(2.0, 25.0, e);
        let night = 1.0 - smoothstep(-12.0, 0.0, e);
        let blend =
            |f: fn(&Moment) -> Vec3| glerp(glerp(f(&TWILIGHT), f(&DAY), day), f(&MOONLIT), night);
        let sky_ambient = blend(|m| m.ambient);
        let sun_color =
            SUN_LOW.lerp(SUN_HIGH, smoothstep(0.0, 30.0, e)) * smoothstep(-2.0, 10.0, e);
        Lighting {
            sun_dir: sun.direction(),
            sun_color,
            sky_ambient,
            ground_ambient: sky_ambient * GROUND_BOUNCE,
            horizon: blend(|m| m.horizon),
            zenith: blend(|m| m.zenith),
            night: 1.0 - smoothstep(-6.0, 12.0, e),
        }
    }

    /// Whether the sun lights anything directly (and so casts shadows).
    pub fn sunlit(&self) -> bool {
        self.sun_color.max_element() > 1e-3 && self.sun_dir.z > 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_presets_and_angles() {
        assert_eq!("noon".parse::<Sun>(), Ok(Sun::new(60.0, 225.0)));
        assert_eq!("dusk".parse::<Sun>(), Ok(Sun::new(4.0, 270.0)));
        assert_eq!("night".parse::<Sun>(), Ok(Sun::new(-20.0, 0.0)));
        assert_eq!("35,200".parse::<Sun>(), Ok(Sun::new(35.0, 200.0)));
        assert_eq!(" -5.5 , 370 ".parse::<Sun>(), Ok(Sun::new(-5.5, 10.0)));
        assert_eq!("10,-90".parse::<Sun>(), Ok(Sun::new(10.0, 270.0)));
        assert_eq!(Sun::default(), Sun::NOON);
    }

    #[test]
    fn rejects_bad_suns_with_a_reason() {
        for bad in [
            "", "noonish", "35", "35,", ",200", "a,b", "35,200,1", "NaN,3", "91,0",
        ] {
            let e = bad.parse::<Sun>().unwrap_err();
            assert!(
                e.contains("expected") || e.contains("-90..90"),
                "{bad}: {e}"
            );
        }
        assert!("91,0".parse::<Sun>().unwrap_err().contains("-90..90"));
    }

    #[test]
    fn direction_is_toward_the_sun() {
        let d = Sun::new(0.0, 90.0).direction();
        assert!((d - Vec3::X).length() < 1e-5, "east at the horizon: {d}");
        let d = Sun::new(90.0, 0.0).direction();
        assert!((d - Vec3::Z).length() < 1e-5, "overhead: {d}");
        let d = Sun::NOON.direction();
        assert!(
            d.x < 0.0 && d.y < 0.0 && d.z > 0.8,
            "south-west and high: {d}"
        );
    }

    #[test]
    fn hours_follow_the_day() {
        let noon = Sun::at_hour(12.0);
        assert!(
            (noon.elevation_deg - 60.0).abs() < 1e-3 && (noon.azimuth_deg - 180.0).abs() < 1e-3
        );
        let rise = Sun::at_hour(6.0);
        assert!(rise.elevation_deg.abs() < 1e-3 && (rise.azimuth_deg - 90.0).abs() < 1e-3);
        let set = Sun::at_hour(18.0);
        assert!(set.elevation_deg.abs() < 1e-3 && (set.azimuth_deg - 270.0).abs() < 1e-3);
        let midnight = Sun::at_hour(0.0);
        assert!((midnight.elevation_deg + 60.0).abs() < 1e-3);
        assert!(
            Sun::at_hour(15.0).azimuth_deg > 180.0,
            "afternoon sun in the west"
        );
        assert!((Sun::at_hour(9.5).nearest_hour() - 9.5).abs() < 0.051);
        // The presets: noon is early afternoon on the model's day, dusk just before sunset.
        assert!((13.0..14.0).contains(&Sun::NOON.nearest_hour()));
        assert!((17.0..18.0).contains(&Sun::DUSK.nearest_hour()));
    }

    #[test]
    fn light_darkens_toward_night() {
        let (noon, dusk, night) = (
            Lighting::of(Sun::NOON),
            Lighting::of(Sun::DUSK),
            Lighting::of(Sun::NIGHT),
        );
        let lum = |c: Vec3| c.x * 0.2126 + c.y * 0.7152 + c.z * 0.0722;
        assert!(lum(noon.horizon) > lum(dusk.horizon) && lum(dusk.horizon) > lum(night.horizon));
        assert!(lum(noon.sun_color) > lum(dusk.sun_color));
        assert_eq!(night.sun_color, Vec3::ZERO);
        assert!(noon.sunlit() && dusk.sunlit() && !night.sunlit());
        // Dusk light is warm; the night's ambient bluish and dim.
        assert!(dusk.sun_color.x > 2.0 * dusk.sun_color.z);
        assert!(night.sky_ambient.z > night.sky_ambient.x && lum(night.sky_ambient) < 1.0);
        // On the scales of XP12.md §5: a clear day's sky about 7,000 nits (between the
        // horizon and the zenith), the noon sun near 100,000 lux (a white surface facing it
        // at about 27,000 nits).
        assert!(lum(noon.zenith) < 7000.0 && lum(noon.horizon) > 7000.0);
        assert!((20_000.0..40_000.0).contains(&lum(noon.sun_color)));
        // Lit textures and lights: off at noon, partly on at dusk, fully on at night.
        assert_eq!(noon.night, 0.0);
        assert!(dusk.night > 0.2 && dusk.night < 0.6, "{}", dusk.night);
        assert_eq!(night.night, 1.0);
        let mut last = 0.0;
        for e in (-30..=90).rev() {
            let n = Lighting::of(Sun::new(e as f32, 0.0)).night;
            assert!(n >= last, "rises as the sun goes down ({e}°)");
            last = n;
        }
        // Noon's sky is the day's.
        assert!((noon.sky_ambient - DAY.ambient).length() < 1.0);
    }
}
