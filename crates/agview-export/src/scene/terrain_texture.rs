//! The terrain's ground colour as a texture: `terrain.wgsl`'s procedural grass, dry grass
//! and bare earth, baked over the exported terrain, so a viewer shows the ground the
//! renders show (not a plain green).
//!
//! The same noise as the shader's `ground_albedo` ([`albedo`]; a test fails when the shader
//! changes and this copy has not followed), sampled at each texel's centre with the texel's
//! size as the pixel footprint: octaves finer than a texel fade to their mean, as the
//! renderer fades them seen from afar. Colours are the shader's linear
//! albedo, written sRGB-encoded as glTF's base colour wants; the viewer lights them.

use agview_core::terrain::Terrain;
use agview_load::parallel::parallel_map;

use crate::textures::{encode_jpeg, encode_png, Rgba};

/// The most texels on the texture's longer side (less under `--max-texture-size`).
pub const TERRAIN_TEXTURE_MAX: u32 = 1024;
/// The finest texel (m): finer adds nothing the shader's finest octave (2.5 m) shows.
pub const TERRAIN_TEXEL_MIN_M: f32 = 0.5;

/// The baked ground over the rectangle `lo`..`hi` (the scene's frame, metres): its size
/// is [`TERRAIN_TEXEL_MIN_M`] a texel, at most [`TERRAIN_TEXTURE_MAX`] (and `max_side`) on
/// the longer side. Row 0 is the north edge, as glTF's UV origin is the image's top left.
pub fn bake(terrain: &Terrain, lo: [f32; 2], hi: [f32; 2], max_side: Option<u32>) -> Rgba {
    let (ex, ey) = ((hi[0] - lo[0]).max(1e-3), (hi[1] - lo[1]).max(1e-3));
    let cap = max_side.unwrap_or(u32::MAX).clamp(1, TERRAIN_TEXTURE_MAX) as f32;
    let texel = (ex.max(ey) / cap).max(TERRAIN_TEXEL_MIN_M);
    let side = |e: f32| ((e / texel).round() as u32).clamp(1, cap as u32);
    let (w, h) = (side(ex), side(ey));
    let (tx, ty) = (ex / w as f32, ey / h as f32);
    let footprint = tx.max(ty);
    let rows: Vec<u32> = (0..h).collect();
    let px = parallel_map(&rows, 0, None, |_, &r| {
        let y = hi[1] - (r as f32 + 0.5) * ty;
        let mut row = Vec::with_capacity(w as usize * 4);
        for c in 0..w {
            let x = lo[0] + (c as f32 + 0.5) * tx;
            let rgb = albedo([x, y], footprint, normal_z(terrain, x, y));
            row.extend(rgb.map(srgb_byte));
            row.push(255);
        }
        row
    })
    .concat();
    Rgba {
        width: w,
        height: h,
        px,
    }
}

/// The baked ground encoded: JPEG at `jpeg` quality (it is opaque), else PNG.
pub fn encode(img: &Rgba, jpeg: Option<u8>) -> Result<(crate::document::Mime, Vec<u8>), String> {
    use crate::document::Mime;
    match jpeg {
        Some(q) => encode_jpeg(img, q.clamp(1, 100)).map(|b| (Mime::Jpeg, b)),
        None => encode_png(img).map(|b| (Mime::Png, b)),
    }
}

/// The up component of the terrain's normal at `(x, y)`, from the drawn heights a grid
/// cell either side (as `common.wgsl`'s `grid_normal`).
fn normal_z(t: &Terrain, x: f32, y: f32) -> f32 {
    let c = t.cell_size();
    if !c.is_finite() || c <= 0.0 {
        return 1.0;
    }
    let dx = t.surface_at(x + c, y) - t.surface_at(x - c, y);
    let dy = t.surface_at(x, y + c) - t.surface_at(x, y - c);
    let n = [-dx, -dy, 2.0 * c];
    let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if len.is_finite() && len > 0.0 {
        n[2] / len
    } else {
        1.0
    }
}

fn fract(v: f32) -> f32 {
    v - v.floor()
}

/// `terrain.wgsl`'s `hash2`.
fn hash2(p: [f32; 2]) -> f32 {
    let q = [fract(p[0] * 0.1031), fract(p[1] * 0.1030)];
    let d = q[0] * (q[1] + 33.33) + q[1] * (q[0] + 33.33);
    let r = [q[0] + d, q[1] + d];
    fract((r[0] + r[1]) * r[0])
}

/// `terrain.wgsl`'s `value_noise`: smooth value noise in 0..1.
fn value_noise(p: [f32; 2]) -> f32 {
    let i = [p[0].floor(), p[1].floor()];
    let f = [p[0] - i[0], p[1] - i[1]];
    let u = f.map(|f| f * f * (3.0 - 2.0 * f));
    let a = hash2(i);
    let b = hash2([i[0] + 1.0, i[1]]);
    let c = hash2([i[0], i[1] + 1.0]);
    let d = hash2([i[0] + 1.0, i[1] + 1.0]);
    let mix = |a: f32, b: f32, t: f32| a + (b - a) * t;
    mix(mix(a, b, u[0]), mix(c, d, u[0]), u[1])
}

/// `terrain.wgsl`'s `octave`: noise at a wavelength (m), faded to its mean where a pixel
/// covers more than a wavelength.
fn octave(p: [f32; 2], wavelength: f32, footprint: f32) -> f32 {
    let keep = (1.5 - footprint / wavelength * 2.0).clamp(0.0, 1.0);
    0.5 + (value_noise([p[0] / wavelength, p[1] / wavelength]) - 0.5) * keep
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// `terrain.wgsl`'s `ground_albedo` (linear RGB) at `p` (the scene's frame, metres), seen
/// with a pixel `footprint` metres wide, where the terrain's normal points `normal_z` up.
pub fn albedo(p: [f32; 2], footprint: f32, normal_z: f32) -> [f32; 3] {
    let big = octave([p[0] + 137.0, p[1] + 71.0], 90.0, footprint);
    let mid = octave(p, 17.0, footprint);
    let fine = octave([p[0] * 1.7 + 9.0, p[1] * 1.7 + 3.0], 2.5, footprint);
    let grass_dark = [0.16, 0.26, 0.08];
    let grass_light = [0.30, 0.40, 0.14];
    let dry = [0.42, 0.40, 0.22];
    let earth = [0.36, 0.27, 0.17];
    let mix3 = |a: [f32; 3], b: [f32; 3], t: f32| [0, 1, 2].map(|k| a[k] + (b[k] - a[k]) * t);
    let mut c = mix3(grass_dark, grass_light, mid * 0.7 + fine * 0.3);
    c = mix3(c, dry, smoothstep(0.55, 0.85, big) * 0.6);
    // Bare earth in patches and on steep slopes.
    let slope = 1.0 - normal_z;
    let bare = smoothstep(0.68, 0.8, mid * 0.6 + big * 0.4).max(smoothstep(0.25, 0.45, slope));
    let e = earth.map(|v| v * (0.85 + 0.3 * fine));
    mix3(c, e, bare)
}

/// A linear colour channel as an sRGB byte.
fn srgb_byte(v: f32) -> u8 {
    let v = if v.is_finite() {
        v.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let s = if v <= 0.003_130_8 {
        v * 12.92
    } else {
        1.055 * v.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a of `terrain.wgsl` from `fn hash2` to the end of `ground_albedo`: the shader
    /// text this file mirrors, as it was when the mirror last followed it.
    const MIRRORED_WGSL: u64 = 0xbb77_54ac_3bf1_6652;

    #[test]
    fn the_shader_ground_it_mirrors_is_unchanged() {
        let wgsl = include_str!("../../../agview-render/shaders/terrain.wgsl");
        let start = wgsl.find("fn hash2(").expect("terrain.wgsl's hash2");
        let tail = &wgsl[start..];
        let body = tail
            .find("fn ground_albedo(")
            .expect("terrain.wgsl's ground_albedo");
        let end = body + tail[body..].find("\n}\n").expect("ground_albedo's end") + 3;
        // Line ends do not count (a Windows checkout may have CRLF).
        let hash = tail[..end]
            .bytes()
            .filter(|&b| b != b'\r')
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            });
        assert_eq!(
            hash, MIRRORED_WGSL,
            "terrain.wgsl's ground changed: make this file's `albedo` follow it, then set \
             MIRRORED_WGSL to {hash:#x}"
        );
    }

    #[test]
    fn the_ground_is_grass_and_earth_and_fades_with_the_footprint() {
        // Near: the colours vary; seen from far off (a footprint wider than every
        // wavelength) it is one colour, between the grasses.
        let near: Vec<[f32; 3]> = (0..50)
            .map(|k| albedo([k as f32 * 7.3, k as f32 * 3.1], 0.5, 1.0))
            .collect();
        assert!(near.iter().any(|c| (c[1] - near[0][1]).abs() > 0.01));
        for c in &near {
            assert!(c[1] >= c[2] && c[0] <= 0.45 && c[1] <= 0.45, "{c:?}");
        }
        let far = albedo([12.0, 34.0], 1000.0, 1.0);
        assert_eq!(far, albedo([5000.0, -800.0], 1000.0, 1.0));
        // A steep slope is bare earth.
        let steep = albedo([12.0, 34.0], 1000.0, 0.5);
        assert!(steep[0] > steep[1], "{steep:?}");
    }

    #[test]
    fn the_texture_covers_the_rectangle_capped() {
        let t = Terrain::flat(4000.0);
        let img = bake(&t, [-100.0, -50.0], [100.0, 50.0], None);
        assert_eq!((img.width, img.height), (400, 200));
        assert_eq!(img.px.len(), 400 * 200 * 4);
        let img = bake(&t, [-1500.0, -500.0], [1500.0, 500.0], Some(512));
        assert_eq!((img.width, img.height), (512, 171));
        assert!(img.px.chunks_exact(4).all(|p| p[3] == 255 && p[1] > p[2]));
        // Nothing to cover still makes a texel.
        let img = bake(&t, [0.0, 0.0], [0.0, 0.0], None);
        assert_eq!((img.width, img.height), (1, 1));
    }
}
