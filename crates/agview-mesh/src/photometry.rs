//! Photometric light: the units the frame is lit in, the camera's exposure and the tonemap
//! curve. X-Plane 12 renders "actual real world light levels" in HDR, with an exposure and a
//! tonemapper (`shared/spec/XP12.md` §5); agview does the same, and every scale lives here:
//!
//! - [`Lighting::of`] gives the sun, the ambient and the sky in nits (cd/m²): the sky's and
//!   a white surface's luminance;
//! - light points carry an intensity in candela ([`LIGHT_GLOW_SHARE`] spreads it over their
//!   glow);
//! - a lit texture's texel of 1.0 at the default luminance shows at [`LIT_TEXTURE_NITS`];
//! - the camera meters the light falling on the ground and sets the exposure from it
//!   ([`auto_exposure`]), so the time-of-day slider moves the exposure as a camera would;
//! - the exposed HDR frame goes through [`tonemap`] (the shaders' `screen.wgsl` is the same
//!   curve: an ACES fit on the brightest channel, keeping the hue, with [`ACES_FIT`]'s
//!   coefficients; agview-render's `shaders.rs` tests the two equal) into the output's 0..1.
//!
//! The curve and the exposure law are not Laminar's (unpublished, **UNCONFIRMED**); see
//! `docs/light.md` and `docs/spec-decisions.md`, "Photometric light".

use glam::Vec3;

use super::sun::Lighting;

/// Rec. 709 luminance of linear RGB.
pub fn luminance(c: Vec3) -> f32 {
    c.dot(Vec3::new(0.2126, 0.7152, 0.0722))
}

/// The luminance (nits) a lit texture's full texel shows at when its object gives no
/// `GLOBAL_luminance` (the default luminance): a lit window or sign, a little above the
/// "flood lights on buildings at night, 2 nt" of Laminar's photometric post (XP12.md §5), as
/// bright as a lit office window.
/// Objects with `GLOBAL_luminance` scale it by their luminance over the default.
pub const LIT_TEXTURE_NITS: f32 = 25.0;

/// The exposed value a white surface lit as the meter reads comes to: an incident-light
/// meter's key. Mid-grey (18 %) then lands on 0.1, which the curve shows at about 0.14
/// (0.41 sRGB), and a white wall in the sun below the curve's shoulder.
pub const EXPOSURE_KEY: f32 = 0.55;

/// The least light (nits on a white surface) the camera adapts to: below it (a moonlit
/// night) the exposure stops opening, so night looks dark and lit windows and lights stand
/// out, as a camera held at its longest exposure (or the dark-adapted eye) sees them.
pub const ADAPTATION_FLOOR_NITS: f32 = 5.0;

/// The share of a light point's billboard disc that its glow profile fills (the integral
/// of `lights.wgsl`'s halo and core over the unit disc, over π): the glow's luminance is
/// its intensity over `π r² × LIGHT_GLOW_SHARE`, so a light of `I` candela lights the eye
/// as `I / d²` whatever its radius.
pub const LIGHT_GLOW_SHARE: f32 = 0.19;

/// The camera's exposure (frame units per nit) for a frame's light: an incident-light
/// meter on the ground, reading what a white horizontal surface would show (the sun by its
/// height plus the sky's ambient), set so that it comes to [`EXPOSURE_KEY`]; never opening
/// past [`ADAPTATION_FLOOR_NITS`]. The time of day changes the light, so the exposure.
pub fn auto_exposure(light: &Lighting) -> f32 {
    let sun = luminance(light.sun_color) * light.sun_dir.z.max(0.0);
    let meter = sun + luminance(light.sky_ambient);
    EXPOSURE_KEY / meter.max(ADAPTATION_FLOOR_NITS)
}

/// The coefficients `[a, b, c, d, e]` of [`aces_fit`], `x (a x + b) / (x (c x + d) + e)`:
/// the one place they are written. The shaders get them as the WGSL constants `ACES_A` …
/// `ACES_E` (agview-render's `shaders.rs` writes them from this table), and a test there
/// keeps the shaders' curve equal to this module's.
pub const ACES_FIT: [f32; 5] = [2.51, 0.03, 2.43, 0.59, 0.14];

/// The camera's exposure for a frame's light with `ev` stops of exposure compensation
/// (`--exposure`, the viewer's Sun panel): [`auto_exposure`] times 2^`ev`. 0, the default,
/// is the meter's exposure exactly; +1 lets in twice the light, -1 half. A compensation
/// that is not finite counts as 0.
pub fn exposure(light: &Lighting, ev: f32) -> f32 {
    let metered = auto_exposure(light);
    if ev == 0.0 || !ev.is_finite() {
        return metered;
    }
    metered * ev.exp2()
}

/// Krzysztof Narkowicz's fit of the ACES filmic curve (2016), `x (2.51 x + 0.03) /
/// (x (2.43 x + 0.59) + 0.14)` ([`ACES_FIT`]), clamped to 0..1: a soft toe, a near-linear
/// middle and a shoulder that reaches white at about 10.
pub fn aces_fit(x: f32) -> f32 {
    let [a, b, c, d, e] = ACES_FIT;
    let x = x.max(0.0);
    ((x * (a * x + b)) / (x * (c * x + d) + e)).clamp(0.0, 1.0)
}

/// The inverse of [`aces_fit`] for `y` in 0..1 (below the curve's top, 0.99 at most).
pub fn aces_fit_inverse(y: f32) -> f32 {
    let y = y.clamp(0.0, 0.99);
    let [a, b, c, d, e] = ACES_FIT;
    let qa = c * y - a;
    let qb = d * y - b;
    let qc = e * y;
    let disc = (qb * qb - 4.0 * qa * qc).max(0.0);
    ((-qb - disc.sqrt()) / (2.0 * qa)).max(0.0)
}

/// The tonemap: [`aces_fit`] applied to the brightest channel, the colour scaled with it,
/// so a hue keeps its hue however bright (a sodium lamp stays orange, a red light red: the
/// curve applied per channel would turn both white). `screen.wgsl`'s `tonemap` is the same
/// function.
pub fn tonemap(x: Vec3) -> Vec3 {
    let x = x.max(Vec3::ZERO);
    let m = x.max_element();
    if m <= 0.0 {
        return Vec3::ZERO;
    }
    (x * (aces_fit(m) / m)).min(Vec3::ONE)
}

/// The exposed value [`tonemap`] turns into `y` (0..1, below the curve's top): for colours
/// given as they are to be seen (a flat sky, the debug overlays).
pub fn untonemap(y: Vec3) -> Vec3 {
    let y = y.clamp(Vec3::ZERO, Vec3::ONE);
    let m = y.max_element();
    if m <= 0.0 {
        return Vec3::ZERO;
    }
    y * (aces_fit_inverse(m) / m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sun::Sun;

    #[test]
    fn the_curve_is_monotonic_and_inverts() {
        let mut last = -1.0;
        for k in 0..200 {
            let x = k as f32 * 0.1;
            let y = tonemap(Vec3::splat(x)).x;
            assert!(
                y >= last - 1e-6 && (0.0..=1.0).contains(&y),
                "{x}: {y} after {last}"
            );
            last = y;
            if y < 0.98 {
                assert!(
                    (untonemap(Vec3::splat(y)).x - x).abs() < 1e-2 * x.max(1.0),
                    "{x}"
                );
            }
        }
        assert!(tonemap(Vec3::splat(16.0)).x > 0.99, "white well above 10");
        // A hue keeps its hue: a bright sodium lamp stays orange.
        let lamp = tonemap(Vec3::new(1.0, 0.62, 0.3) * 500.0);
        assert!((lamp - Vec3::new(1.0, 0.62, 0.3)).length() < 0.01, "{lamp}");
        let c = Vec3::new(0.3, 0.5, 0.2);
        assert!((untonemap(tonemap(c)) - c).length() < 1e-3);
    }

    #[test]
    fn exposure_compensation_counts_in_stops() {
        let l = Lighting::of(Sun::DUSK);
        let metered = auto_exposure(&l);
        assert_eq!(
            exposure(&l, 0.0),
            metered,
            "0 EV is the meter's exposure exactly"
        );
        assert!((exposure(&l, 1.0) / metered - 2.0).abs() < 1e-6);
        assert!((exposure(&l, -2.0) / metered - 0.25).abs() < 1e-6);
        assert_eq!(exposure(&l, f32::NAN), metered);
    }

    #[test]
    fn the_camera_opens_as_the_light_goes() {
        let e = |s: Sun| auto_exposure(&Lighting::of(s));
        let (noon, dusk, night) = (e(Sun::NOON), e(Sun::DUSK), e(Sun::NIGHT));
        assert!(noon < dusk && dusk < night, "{noon} {dusk} {night}");
        // Day and dusk are metered to the same key; night stops at the floor.
        let white = |s: Sun| {
            let l = Lighting::of(s);
            (luminance(l.sun_color) * l.sun_dir.z.max(0.0) + luminance(l.sky_ambient))
                * auto_exposure(&l)
        };
        assert!((white(Sun::NOON) - EXPOSURE_KEY).abs() < 1e-3);
        assert!((white(Sun::DUSK) - EXPOSURE_KEY).abs() < 1e-3);
        assert!(white(Sun::NIGHT) < 0.2 * EXPOSURE_KEY, "night stays dark");
        // A lit window at night is bright but below the shoulder's white.
        let lit = LIT_TEXTURE_NITS * night;
        assert!((0.8..4.0).contains(&lit), "{lit}");
    }
}
