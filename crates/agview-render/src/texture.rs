//! Images to GPU textures: RGBA8 with a full mip chain, BC1/2/3/7 uploaded compressed where
//! the device can sample them (decoded on the CPU where it cannot, and BC4/5 always), scaled down to the
//! device's size limit, and the few images the renderer makes itself (placeholders).

use crate::art::decode_bc;
use crate::art::{BcFormat, ImageData, ImagePixels};

use super::context::GpuContext;

/// A texture and the view materials bind.
#[derive(Clone)]
pub(crate) struct GpuTexture {
    /// Kept alive for the view; also counted in the upload statistics.
    #[allow(dead_code)]
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    /// Bytes uploaded (all mips).
    pub bytes: u64,
}

fn block_bytes(format: BcFormat) -> usize {
    format.block_bytes()
}

/// The GPU format a BC image is uploaded as, sampled as sRGB colour like every other
/// texture; `None` for BC4 and BC5, which are expanded on the CPU instead: their GPU
/// formats are linear and one- or two-channel, and wgpu views cannot swizzle a channel to
/// grey.
fn wgpu_bc_format(format: BcFormat) -> Option<wgpu::TextureFormat> {
    match format {
        BcFormat::Bc1 => Some(wgpu::TextureFormat::Bc1RgbaUnormSrgb),
        BcFormat::Bc2 => Some(wgpu::TextureFormat::Bc2RgbaUnormSrgb),
        BcFormat::Bc3 => Some(wgpu::TextureFormat::Bc3RgbaUnormSrgb),
        BcFormat::Bc7 => Some(wgpu::TextureFormat::Bc7RgbaUnormSrgb),
        BcFormat::Bc4 | BcFormat::Bc5 => None,
    }
}

fn mip_dim(size: u32, level: u32) -> u32 {
    (size >> level.min(31)).max(1)
}

/// Levels of a full mip chain for a `w × h` image.
fn full_chain(w: u32, h: u32) -> u32 {
    32 - w.max(h).max(1).leading_zeros()
}

/// Bytes of BC level data for a `w × h` level.
fn bc_level_len(format: BcFormat, w: u32, h: u32) -> usize {
    w.div_ceil(4) as usize * h.div_ceil(4) as usize * block_bytes(format)
}

/// Above this many bytes, a texture's staged copy is flushed to the GPU (and its staging
/// memory given back) before the next texture is staged: a package of large textures
/// otherwise holds a second copy of every one of them until the scene's first submit.
const FLUSH_BYTES: u64 = 4 << 20;

/// Uploads one image of the art set. Bad data (wrong lengths, zero sizes) gives a
/// checkerboard and a warning, never a panic. With an alpha `cutoff` (the image is
/// alpha-tested there), its RGBA8 mips keep the coverage of mip 0 ([`preserve_coverage`]).
///
/// `in_flight` is the last flush ([`FLUSH_BYTES`]) of this upload: each flush waits for the
/// one before it rather than for itself, so the device copies one texture while the next
/// is staged (on a software rasterizer, another thread's work), and at most two staged
/// copies live at once.
pub(crate) fn upload_image(
    ctx: &GpuContext,
    img: &ImageData,
    cutoff: Option<f32>,
    warnings: &mut Vec<String>,
    in_flight: &mut Option<wgpu::SubmissionIndex>,
) -> GpuTexture {
    let t = upload_image_staged(ctx, img, cutoff, warnings);
    if t.bytes > FLUSH_BYTES {
        let index = ctx.queue.submit(std::iter::empty());
        if let Some(before) = in_flight.replace(index) {
            let _ = ctx.device.poll(wgpu::PollType::Wait {
                submission_index: Some(before),
                timeout: None,
            });
        }
    }
    t
}

fn upload_image_staged(
    ctx: &GpuContext,
    img: &ImageData,
    cutoff: Option<f32>,
    warnings: &mut Vec<String>,
) -> GpuTexture {
    let max = ctx.device.limits().max_texture_dimension_2d.max(1);
    match &img.pixels {
        ImagePixels::Rgba8(levels) => match valid_rgba_levels(img.width, img.height, levels) {
            // Uploaded as it is, without a copy, when nothing is to change: within the
            // device's limit, a whole chain, no coverage to keep.
            Some(n)
                if img.width <= max
                    && img.height <= max
                    && n == full_chain(img.width, img.height) as usize
                    && cutoff.is_none() =>
            {
                upload_rgba_levels(ctx, &img.name, img.width, img.height, &levels[..n])
            }
            Some(n) => {
                let mut mips: Vec<Vec<u8>> = levels[..n].to_vec();
                let (mut w, mut h) = (img.width, img.height);
                if w > max || h > max {
                    warnings.push(format!(
                        "texture {} is {}x{}, larger than this GPU's {max}: scaled down",
                        img.name, img.width, img.height
                    ));
                    while w > max || h > max {
                        if mips.len() > 1 {
                            mips.remove(0);
                        } else {
                            mips[0] = downsample(&mips[0], w, h);
                        }
                        w = mip_dim(w, 1);
                        h = mip_dim(h, 1);
                    }
                }
                complete_chain(&mut mips, w, h);
                if let Some(c) = cutoff {
                    preserve_coverage(&mut mips, c);
                }
                upload_rgba_levels(ctx, &img.name, w, h, &mips)
            }
            None => {
                warnings.push(format!(
                    "texture {}: pixel data does not match its size {}x{}; drawn as a checkerboard",
                    img.name, img.width, img.height
                ));
                upload_checkerboard(ctx, &img.name)
            }
        },
        ImagePixels::Bc(format, levels) => {
            let n = valid_bc_levels(*format, img.width, img.height, levels);
            if n == 0 {
                warnings.push(format!(
                    "texture {}: compressed data does not match its size {}x{}; drawn as a checkerboard",
                    img.name, img.width, img.height
                ));
                return upload_checkerboard(ctx, &img.name);
            }
            // Drop levels larger than the device allows.
            let mut first = 0u32;
            while (mip_dim(img.width, first) > max || mip_dim(img.height, first) > max)
                && first + 1 < n as u32
            {
                first += 1;
            }
            let (w, h) = (mip_dim(img.width, first), mip_dim(img.height, first));
            if first > 0 {
                warnings.push(format!(
                    "texture {} is {}x{}, larger than this GPU's {max}: scaled down",
                    img.name, img.width, img.height
                ));
            }
            let keep = keep_compressed(ctx.has_bc(), w, h, max, n - first as usize);
            if let Some(gpu_format) = wgpu_bc_format(*format).filter(|_| keep) {
                let slice: Vec<&[u8]> = levels[first as usize..n]
                    .iter()
                    .enumerate()
                    .map(|(i, l)| {
                        let len = bc_level_len(*format, mip_dim(w, i as u32), mip_dim(h, i as u32));
                        &l[..len]
                    })
                    .collect();
                return upload_bc_levels(ctx, &img.name, *format, gpu_format, w, h, &slice);
            }
            // No BC on this device, a size BC cannot hold, a file without mips, or BC4/BC5:
            // decode on the CPU (and make the mip chain).
            let mut rgba = decode_bc(*format, w, h, &levels[first as usize]);
            let (mut w, mut h) = (w, h);
            while w > max || h > max {
                rgba = downsample(&rgba, w, h);
                w = mip_dim(w, 1);
                h = mip_dim(h, 1);
            }
            let mut mips = vec![rgba];
            complete_chain(&mut mips, w, h);
            if let Some(c) = cutoff {
                preserve_coverage(&mut mips, c);
            }
            upload_rgba_levels(ctx, &img.name, w, h, &mips)
        }
    }
}

/// How many leading RGBA8 levels have exactly the bytes their size needs (0 when mip 0 is
/// bad).
fn valid_rgba_levels(w: u32, h: u32, levels: &[Vec<u8>]) -> Option<usize> {
    if w == 0 || h == 0 {
        return None;
    }
    let n = levels
        .iter()
        .enumerate()
        .take(full_chain(w, h) as usize)
        .take_while(|(i, l)| {
            let (lw, lh) = (mip_dim(w, *i as u32), mip_dim(h, *i as u32));
            l.len() == lw as usize * lh as usize * 4
        })
        .count();
    (n > 0).then_some(n)
}

/// How many leading BC levels hold at least the blocks their size needs.
fn valid_bc_levels(format: BcFormat, w: u32, h: u32, levels: &[Vec<u8>]) -> usize {
    if w == 0 || h == 0 {
        return 0;
    }
    levels
        .iter()
        .enumerate()
        .take(full_chain(w, h) as usize)
        .take_while(|(i, l)| {
            l.len() >= bc_level_len(format, mip_dim(w, *i as u32), mip_dim(h, *i as u32))
        })
        .count()
}

/// Whether a block-compressed image of `w × h` with `levels` mip levels is uploaded as it is:
/// the device must take BC, the size whole blocks within its limit; and a file without mips
/// is decoded instead, so that its mip chain can be made (a texture without mips shimmers and
/// loses its alpha-tested coverage in the distance).
fn keep_compressed(has_bc: bool, w: u32, h: u32, max: u32, levels: usize) -> bool {
    let blocks_ok = w.is_multiple_of(4) && h.is_multiple_of(4);
    let has_mips = levels > 1 || (w <= 4 && h <= 4);
    has_bc && blocks_ok && w <= max && h <= max && has_mips
}

/// Appends box-filtered levels (in linear light) until the chain is complete.
fn complete_chain(mips: &mut Vec<Vec<u8>>, w: u32, h: u32) {
    let full = full_chain(w, h) as usize;
    while mips.len() < full {
        let level = (mips.len() - 1) as u32;
        let last = &mips[mips.len() - 1];
        let next = downsample(last, mip_dim(w, level), mip_dim(h, level));
        mips.push(next);
    }
}

/// Scales each mip's alpha so that the share of texels at or above `cutoff` (0..1) is
/// mip 0's, as near as a single scale can make it (Castaño, "Computing alpha mipmaps"):
/// averaging alone thins alpha-tested foliage and fences away in the distance. The scale of
/// each level is found by bisection over its alpha histogram. Images without partial alpha
/// are left alone.
pub(crate) fn preserve_coverage(mips: &mut [Vec<u8>], cutoff: f32) {
    let Some(top) = mips.first() else {
        return;
    };
    let threshold = (cutoff.clamp(0.0, 1.0) * 255.0).max(0.5);
    let target = coverage(&alpha_histogram(top), threshold, 1.0);
    for level in mips.iter_mut().skip(1) {
        let hist = alpha_histogram(level);
        let n: u64 = hist.iter().sum();
        if n == 0 || hist[255] == n || hist[0] == n {
            continue;
        }
        // Coverage grows with the scale: bisect for the smallest scale that reaches the
        // target, then keep whichever side lands nearer.
        let (mut lo, mut hi) = (0.0f32, 16.0f32);
        for _ in 0..20 {
            let mid = 0.5 * (lo + hi);
            if coverage(&hist, threshold, mid) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let off = |s: f32| (coverage(&hist, threshold, s) - target).abs();
        let scale = if off(lo) < off(hi) { lo } else { hi };
        for px in level.chunks_exact_mut(4) {
            px[3] = (f32::from(px[3]) * scale).round().clamp(0.0, 255.0) as u8;
        }
    }
}

/// How many texels of an RGBA8 level have each alpha.
fn alpha_histogram(level: &[u8]) -> [u64; 256] {
    let mut h = [0u64; 256];
    for px in level.chunks_exact(4) {
        h[usize::from(px[3])] += 1;
    }
    h
}

/// The share of texels whose alpha, scaled by `scale` and rounded as stored, reaches
/// `threshold` (0..255).
fn coverage(hist: &[u64; 256], threshold: f32, scale: f32) -> f32 {
    let n: u64 = hist.iter().sum();
    if n == 0 {
        return 0.0;
    }
    let above: u64 = hist
        .iter()
        .enumerate()
        .filter(|(a, _)| (*a as f32 * scale).round().min(255.0) >= threshold)
        .map(|(_, c)| c)
        .sum();
    above as f32 / n as f32
}

struct SrgbTables {
    to_linear: [f32; 256],
    to_srgb: Vec<u8>,
}

fn srgb_tables() -> &'static SrgbTables {
    static TABLES: std::sync::OnceLock<SrgbTables> = std::sync::OnceLock::new();
    TABLES.get_or_init(|| {
        let mut to_linear = [0.0f32; 256];
        for (i, v) in to_linear.iter_mut().enumerate() {
            let c = i as f32 / 255.0;
            *v = if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            };
        }
        let to_srgb = (0..4096)
            .map(|i| {
                let l = i as f32 / 4095.0;
                let s = if l <= 0.003_130_8 {
                    l * 12.92
                } else {
                    1.055 * l.powf(1.0 / 2.4) - 0.055
                };
                (s * 255.0 + 0.5).clamp(0.0, 255.0) as u8
            })
            .collect();
        SrgbTables { to_linear, to_srgb }
    })
}

/// Halves an RGBA8 (sRGB) image with a 2×2 box filter in linear light; odd edges repeat.
pub(crate) fn downsample(src: &[u8], w: u32, h: u32) -> Vec<u8> {
    let t = srgb_tables();
    let (nw, nh) = (mip_dim(w, 1), mip_dim(h, 1));
    let (w, h) = (w as usize, h as usize);
    let mut out = Vec::with_capacity(nw as usize * nh as usize * 4);
    for y in 0..nh as usize {
        for x in 0..nw as usize {
            let xs = [(2 * x).min(w - 1), (2 * x + 1).min(w - 1)];
            let ys = [(2 * y).min(h - 1), (2 * y + 1).min(h - 1)];
            let mut acc = [0.0f32; 4];
            for sy in ys {
                for sx in xs {
                    let i = (sy * w + sx) * 4;
                    let Some(px) = src.get(i..i + 4) else {
                        continue;
                    };
                    for c in 0..3 {
                        acc[c] += t.to_linear[px[c] as usize];
                    }
                    acc[3] += f32::from(px[3]);
                }
            }
            for a in &acc[..3] {
                let l = (a * 0.25).clamp(0.0, 1.0);
                out.push(t.to_srgb[(l * 4095.0 + 0.5) as usize]);
            }
            out.push((acc[3] * 0.25 + 0.5) as u8);
        }
    }
    out
}

pub(crate) fn upload_rgba_levels(
    ctx: &GpuContext,
    name: &str,
    w: u32,
    h: u32,
    mips: &[Vec<u8>],
) -> GpuTexture {
    let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(name),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: mips.len().max(1) as u32,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let mut bytes = 0u64;
    for (i, data) in mips.iter().enumerate() {
        let (lw, lh) = (mip_dim(w, i as u32), mip_dim(h, i as u32));
        ctx.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: i as u32,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(lw * 4),
                rows_per_image: Some(lh),
            },
            wgpu::Extent3d {
                width: lw,
                height: lh,
                depth_or_array_layers: 1,
            },
        );
        bytes += data.len() as u64;
    }
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    GpuTexture {
        texture,
        view,
        bytes,
    }
}

fn upload_bc_levels(
    ctx: &GpuContext,
    name: &str,
    format: BcFormat,
    gpu_format: wgpu::TextureFormat,
    w: u32,
    h: u32,
    levels: &[&[u8]],
) -> GpuTexture {
    let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(name),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: levels.len() as u32,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: gpu_format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    let mut bytes = 0u64;
    for (i, data) in levels.iter().enumerate() {
        let (lw, lh) = (mip_dim(w, i as u32), mip_dim(h, i as u32));
        let (bw, bh) = (lw.div_ceil(4), lh.div_ceil(4));
        // Small levels are copied at their physical (block-rounded) size.
        ctx.queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &texture,
                mip_level: i as u32,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            data,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bw * block_bytes(format) as u32),
                rows_per_image: Some(bh),
            },
            wgpu::Extent3d {
                width: bw * 4,
                height: bh * 4,
                depth_or_array_layers: 1,
            },
        );
        bytes += data.len() as u64;
    }
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    GpuTexture {
        texture,
        view,
        bytes,
    }
}

/// A 1×1 texture of one colour (sRGB bytes).
pub(crate) fn upload_solid(ctx: &GpuContext, name: &str, rgba: [u8; 4]) -> GpuTexture {
    upload_rgba_levels(ctx, name, 1, 1, &[rgba.to_vec()])
}

pub(crate) fn upload_checkerboard(ctx: &GpuContext, name: &str) -> GpuTexture {
    let img = ImageData::checkerboard(name);
    match img.pixels {
        ImagePixels::Rgba8(mut levels) => {
            let mut mips = vec![levels.swap_remove(0)];
            complete_chain(&mut mips, img.width, img.height);
            upload_rgba_levels(ctx, name, img.width, img.height, &mips)
        }
        ImagePixels::Bc(..) => upload_solid(ctx, name, [255, 0, 255, 255]),
    }
}

/// Orange and black diagonal stripes: the texture of a missing mesh's placeholder box.
pub(crate) fn hazard_stripes() -> (u32, u32, Vec<u8>) {
    let n = 32u32;
    let mut px = Vec::with_capacity((n * n * 4) as usize);
    for y in 0..n {
        for x in 0..n {
            let on = ((x + y) / 8) % 2 == 0;
            px.extend_from_slice(if on {
                &[255, 120, 0, 255]
            } else {
                &[30, 20, 10, 255]
            });
        }
    }
    (n, n, px)
}

/// A simple painted tree (crown and trunk on transparency), for forests whose art is
/// missing.
pub(crate) fn placeholder_tree() -> (u32, u32, Vec<u8>) {
    let (w, h) = (64u32, 128u32);
    let mut px = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            // Image rows are top first; `v` counts up from the bottom.
            let u = (x as f32 + 0.5) / w as f32 - 0.5;
            let v = 1.0 - (y as f32 + 0.5) / h as f32;
            let crown = (u / 0.46).powi(2) + ((v - 0.58) / 0.4).powi(2) < 1.0;
            let trunk = u.abs() < 0.05 && v < 0.3;
            let shade = (((x * 7 + y * 13) % 17) as f32 / 17.0 * 30.0) as u8;
            let c: [u8; 4] = if crown {
                [40 + shade, 90 + shade, 30, 255]
            } else if trunk {
                [90, 60, 35, 255]
            } else {
                [40, 80, 30, 0]
            };
            px.extend_from_slice(&c);
        }
    }
    (w, h, px)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_validated() {
        assert_eq!(
            valid_rgba_levels(4, 2, &[vec![0; 32], vec![0; 8], vec![0; 3]]),
            Some(2)
        );
        assert_eq!(valid_rgba_levels(4, 2, &[vec![0; 31]]), None);
        assert_eq!(valid_rgba_levels(0, 2, &[vec![]]), None);
        assert_eq!(
            valid_bc_levels(
                BcFormat::Bc1,
                8,
                8,
                &[vec![0; 32], vec![0; 8], vec![0; 8], vec![0; 8], vec![0; 8]]
            ),
            4
        );
        assert_eq!(full_chain(8, 2), 4);
        assert_eq!(full_chain(1, 1), 1);
    }

    #[test]
    fn downsample_averages_in_linear_light() {
        // Black and white average to mid grey in linear light: sRGB 188.
        let src = [
            0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 0, 255, 255, 255, 255, 255,
        ];
        let out = downsample(&src, 2, 2);
        assert_eq!(out.len(), 4);
        assert!((i32::from(out[0]) - 188).abs() <= 1, "{}", out[0]);
        assert_eq!(out[3], 255);
        // Odd sizes repeat the edge.
        let mut chain = vec![vec![255u8; 3 * 5 * 4]];
        complete_chain(&mut chain, 3, 5);
        assert_eq!(chain.len(), 3);
        assert_eq!(chain[1].len(), 2 * 4);
        assert_eq!(chain[2].len(), 4);
    }

    #[test]
    fn mips_keep_the_alpha_tested_coverage_of_mip_0() {
        // Sparse foliage: 30 % of texels opaque, scattered.
        let n = 64u32;
        let mut top = Vec::new();
        for y in 0..n {
            for x in 0..n {
                let on = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) % 100 < 30;
                top.extend_from_slice(&[40, 90, 30, if on { 255 } else { 0 }]);
            }
        }
        let share = |level: &[u8]| coverage(&alpha_histogram(level), 127.5, 1.0);
        let target = share(&top);
        assert!((target - 0.3).abs() < 0.03, "{target}");
        let mut plain = vec![top];
        complete_chain(&mut plain, n, n);
        // Averaging alone: the foliage thins away two levels down.
        assert!(share(&plain[2]) < 0.15, "{}", share(&plain[2]));
        let mut kept = plain.clone();
        preserve_coverage(&mut kept, 0.5);
        assert_eq!(kept[0], plain[0], "mip 0 is untouched");
        for (i, level) in kept.iter().enumerate().skip(1) {
            // One scale moves texels of equal alpha together, so small levels land only
            // near the target.
            let texels = level.len() as f32 / 4.0;
            let slack = 0.05f32.max(1.0 / texels.sqrt());
            let (off, before) = (
                (share(level) - target).abs(),
                (share(&plain[i]) - target).abs(),
            );
            assert!(
                off <= slack && off <= before,
                "level {i}: {} against {target} (unscaled {})",
                share(level),
                share(&plain[i])
            );
            // Colour is not touched.
            assert_eq!(level[..3], plain[i][..3]);
        }
        // An opaque image is left alone.
        let mut opaque = vec![vec![255u8; 16 * 4]];
        complete_chain(&mut opaque, 4, 4);
        let before = opaque.clone();
        preserve_coverage(&mut opaque, 0.5);
        assert_eq!(opaque, before);
    }

    #[test]
    fn a_compressed_texture_without_mips_is_decoded_to_get_them() {
        assert!(keep_compressed(true, 256, 256, 8192, 9));
        assert!(
            keep_compressed(true, 256, 256, 8192, 2),
            "a partial chain is kept"
        );
        assert!(
            !keep_compressed(true, 256, 256, 8192, 1),
            "no mips: decoded, chain made"
        );
        assert!(
            keep_compressed(true, 4, 4, 8192, 1),
            "one block needs no mips"
        );
        assert!(
            !keep_compressed(false, 256, 256, 8192, 9),
            "no BC on the device"
        );
        assert!(
            !keep_compressed(true, 258, 256, 8192, 9),
            "not whole blocks"
        );
        assert!(
            !keep_compressed(true, 256, 256, 128, 9),
            "over the device's limit"
        );
    }
}
