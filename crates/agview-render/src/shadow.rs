//! The sun's shadow map: where the light's orthographic view is put ([`light_view_proj`])
//! and how large the map is ([`shadow_map_size`]).
//!
//! The map holds the depth, seen from the sun, of everything that casts a shadow (objects,
//! facades, trees); terrain, tiles, draped parts, objects, facades and trees look it up when
//! they are shaded (`sun_visibility` in `common.wgsl`). The terrain casts none (its slopes
//! are shaded by their normals).
//!
//! The light's frustum is fitted each frame to what the shadows can fall on and be seen:
//!
//! 1. the receivers: the camera's frustum from its near plane out to the shadow distance
//!    ([`shadow_distance`]: three times the orbit distance, so a scene framed whole keeps
//!    its shadows, within 1.5 to 4 km), as eight corners; a slice wholly above the highest
//!    caster has no shadows in it;
//! 2. the casters: the box of everything that casts a shadow, computed at upload;
//! 3. across the light, the two boxes' extents in light space intersected: a shadow falls
//!    on a receiver only where a caster stands between it and the sun, at the same place
//!    across the light. A small scene seen whole is so covered by its own box, a large one
//!    by the part of the view near the camera;
//! 4. along the light, the casters' box alone: it starts at the highest caster toward the
//!    sun (nothing outside can cast into the map) and ends past the lowest ground under
//!    them. Receivers beyond its far end compare as at it, so they are lit unless a caster
//!    stands over them.
//!
//! Object casters are culled against this frustum, not the camera's: on the GPU path by a
//! second set of culling passes (`GpuCull` per view), on the CPU path by the same tests on
//! the CPU; both keep the camera's LOD eye, so a caster casts with the LOD it is drawn with.

use glam::{Mat4, Vec3, Vec4};

use super::camera::Camera;

/// The shadow distance's least value, meters.
const MIN_SHADOW_DISTANCE: f32 = 1500.0;

/// The shadow distance's greatest value, meters. A 2048-texel map fitted to a view this
/// deep has texels of about 2 m, already coarser than a house's eaves; farther, it would
/// only blur, and a view from a few kilometers up would draw every caster of a tile into it.
const MAX_SHADOW_DISTANCE: f32 = 4000.0;

/// How far from the camera shadows are drawn (see the module's documentation).
pub(crate) fn shadow_distance(camera: &Camera) -> f32 {
    match *camera {
        Camera::Orbit { distance, .. } if distance.is_finite() => {
            (3.0 * distance).clamp(MIN_SHADOW_DISTANCE, MAX_SHADOW_DISTANCE)
        }
        _ => MIN_SHADOW_DISTANCE,
    }
}

/// Texels a side of the shadow map: 2048, or `AGVIEW_SHADOW_SIZE` (256..8192), within
/// the device's largest texture.
pub(crate) fn shadow_map_size(device: &wgpu::Device) -> u32 {
    let asked = std::env::var("AGVIEW_SHADOW_SIZE")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .map_or(2048, |n| n.clamp(256, 8192));
    asked.min(device.limits().max_texture_dimension_2d)
}

/// The light's view and its extent, for the shaders and the culling.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LightView {
    /// World to shadow-map clip space: x, y in -1..1 across the map (y up), depth 0 at the
    /// side toward the sun, 1 at the far side.
    pub view_proj: Mat4,
    /// Meters a texel of a `size`-texel map covers across the light (the larger side).
    pub texel_m: f32,
}

/// The light's orthographic view for a camera (`view_proj` of an image of `aspect`), the sun
/// direction `to_sun` (unit, above the horizon) and the casters' box `(lo, hi)`, fitted as
/// the module's documentation says; `None` when no caster can shadow anything in view.
pub(crate) fn light_view_proj(
    camera: &Camera,
    aspect: f32,
    to_sun: Vec3,
    casters: (Vec3, Vec3),
    size: u32,
) -> Option<LightView> {
    let (lo, hi) = casters;
    if !(to_sun.is_finite() && to_sun.z > 1e-4 && lo.is_finite() && hi.is_finite()) {
        return None;
    }
    let centre = (lo + hi) * 0.5;
    let up = if to_sun.z.abs() > 0.999 {
        Vec3::Y
    } else {
        Vec3::Z
    };
    let view = Mat4::look_at_rh(centre, centre - to_sun, up);

    // The casters' box in light space.
    let mut c_lo = Vec3::splat(f32::INFINITY);
    let mut c_hi = Vec3::splat(f32::NEG_INFINITY);
    for k in 0..8 {
        let p = Vec3::new(
            if k & 1 == 0 { lo.x } else { hi.x },
            if k & 2 == 0 { lo.y } else { hi.y },
            if k & 4 == 0 { lo.z } else { hi.z },
        );
        let q = view.transform_point3(p);
        c_lo = c_lo.min(q);
        c_hi = c_hi.max(q);
    }

    // The receivers: the camera's frustum out to the shadow distance.
    let inverse = camera.view_proj(aspect).inverse();
    let far_depth = match camera {
        // Reversed infinite perspective: depth = near / distance on the view axis.
        Camera::Orbit { .. } | Camera::Free { .. } => {
            (camera.near() / shadow_distance(camera)).clamp(1e-7, 1.0)
        }
        Camera::Top { .. } => 0.0,
    };
    let mut r_lo = Vec3::splat(f32::INFINITY);
    let mut r_hi = Vec3::splat(f32::NEG_INFINITY);
    let mut lowest = f32::INFINITY;
    for k in 0..8 {
        let ndc = Vec4::new(
            if k & 1 == 0 { -1.0 } else { 1.0 },
            if k & 2 == 0 { -1.0 } else { 1.0 },
            if k & 4 == 0 { 1.0 } else { far_depth },
            1.0,
        );
        let w = inverse * ndc;
        if w.w.abs() < 1e-12 {
            return None;
        }
        let world = w.truncate() / w.w;
        lowest = lowest.min(world.z);
        let q = view.transform_point3(world);
        r_lo = r_lo.min(q);
        r_hi = r_hi.max(q);
    }

    // A view whose shadowed slice is all above the highest caster (seen from high up, the
    // ground is beyond the shadow distance) has nothing a shadow can fall on.
    if lowest > hi.z {
        return None;
    }
    let x0 = c_lo.x.max(r_lo.x);
    let x1 = c_hi.x.min(r_hi.x);
    let y0 = c_lo.y.max(r_lo.y);
    let y1 = c_hi.y.min(r_hi.y);
    if !(x0 < x1 && y0 < y1) {
        return None;
    }
    // A little room along the light, so the highest caster's top and the lowest ground are
    // inside.
    let margin = 1.0 + 1e-3 * (c_hi.z - c_lo.z);
    // Right-handed view space looks down -z: near is -(highest z).
    let near = -c_hi.z - margin;
    let far = -c_lo.z + margin;
    let proj = Mat4::orthographic_rh(x0, x1, y0, y1, near, far);
    let texel_m = (x1 - x0).max(y1 - y0) / size.max(1) as f32;
    Some(LightView {
        view_proj: proj * view,
        texel_m,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(m: Mat4, p: Vec3) -> Vec3 {
        let c = m * p.extend(1.0);
        c.truncate() / c.w
    }

    fn inside(c: Vec3) -> bool {
        c.x.abs() <= 1.0001 && c.y.abs() <= 1.0001 && (-1e-4..=1.0001).contains(&c.z)
    }

    #[test]
    fn a_small_scene_seen_whole_fits_its_own_box() {
        // A 100 m town with 30 m towers, framed from the south-west.
        let casters = (Vec3::new(-50.0, -50.0, 0.0), Vec3::new(50.0, 50.0, 30.0));
        let camera = Camera::frame_scene(([-50.0, -50.0], [50.0, 50.0]));
        let sun = super::super::Sun::NOON.direction();
        let light = light_view_proj(&camera, 16.0 / 9.0, sun, casters, 2048).unwrap();
        // Every corner of the casters' box is in the map, depth included.
        for k in 0..8 {
            let p = Vec3::new(
                if k & 1 == 0 { -50.0 } else { 50.0 },
                if k & 2 == 0 { -50.0 } else { 50.0 },
                if k & 4 == 0 { 0.0 } else { 30.0 },
            );
            assert!(inside(project(light.view_proj, p)), "{p}");
        }
        // The map spans the box and no more: its texels are a few centimeters.
        assert!(light.texel_m < 160.0 / 2048.0, "{}", light.texel_m);
        // Depth 0 is toward the sun: a tower top is nearer than the ground under it.
        let top = project(light.view_proj, Vec3::new(0.0, 0.0, 30.0));
        let ground = project(light.view_proj, Vec3::new(0.0, 0.0, 0.0));
        assert!(top.z < ground.z);
    }

    #[test]
    fn a_large_scene_is_fitted_to_the_view_near_the_camera() {
        // A 40 km tile, seen from a street.
        let casters = (
            Vec3::new(-20_000.0, -20_000.0, 0.0),
            Vec3::new(20_000.0, 20_000.0, 60.0),
        );
        let camera = Camera::free(0.0, 0.0, 2.0, 0.0, 5.0);
        let sun = super::super::Sun::NOON.direction();
        let light = light_view_proj(&camera, 16.0 / 9.0, sun, casters, 2048).unwrap();
        // What the camera sees near it is in the map…
        for p in [Vec3::new(0.0, 50.0, 0.0), Vec3::new(30.0, 400.0, 20.0)] {
            assert!(inside(project(light.view_proj, p)), "{p}");
        }
        // …what is behind it or far beyond the shadow distance is not…
        for p in [Vec3::new(0.0, -500.0, 0.0), Vec3::new(0.0, 10_000.0, 0.0)] {
            let c = project(light.view_proj, p);
            assert!(c.x.abs() > 1.0 || c.y.abs() > 1.0, "{p}: {c}");
        }
        // …so the texels stay small (the slice is about 1.5 km long, not 40 km).
        assert!(light.texel_m < 2.0, "{}", light.texel_m);
    }

    #[test]
    fn no_light_view_without_a_sun_or_out_of_view() {
        let casters = (Vec3::new(-50.0, -50.0, 0.0), Vec3::new(50.0, 50.0, 30.0));
        let camera = Camera::frame_scene(([-50.0, -50.0], [50.0, 50.0]));
        let night = super::super::Sun::NIGHT.direction();
        assert!(light_view_proj(&camera, 1.5, night, casters, 2048).is_none());
        // A camera 10 km away looking away from the scene.
        let away = Camera::free(10_000.0, 10_000.0, 2.0, 45.0, 0.0);
        let sun = super::super::Sun::NOON.direction();
        assert!(light_view_proj(&away, 1.5, sun, casters, 2048).is_none());
    }

    #[test]
    fn shadow_distance_follows_the_orbit() {
        assert_eq!(
            shadow_distance(&Camera::free(0.0, 0.0, 2.0, 0.0, 0.0)),
            1500.0
        );
        assert_eq!(
            shadow_distance(&Camera::orbit([0.0; 3], 1000.0, 45.0, 35.0)),
            3000.0
        );
        // A 2048-texel map over a deeper view would blur every shadow away.
        assert_eq!(
            shadow_distance(&Camera::orbit([0.0; 3], 20_000.0, 45.0, 35.0)),
            4000.0
        );
    }

    #[test]
    fn no_light_view_from_high_above_the_casters() {
        // A 40 km tile seen from 20 km away at 35°: the eye is 11 km up, so the first 4 km
        // of the view are all sky.
        let casters = (
            Vec3::new(-20_000.0, -20_000.0, 0.0),
            Vec3::new(20_000.0, 20_000.0, 60.0),
        );
        let camera = Camera::orbit([0.0; 3], 20_000.0, 45.0, 35.0);
        let sun = super::super::Sun::NOON.direction();
        assert!(light_view_proj(&camera, 16.0 / 9.0, sun, casters, 2048).is_none());
    }
}
