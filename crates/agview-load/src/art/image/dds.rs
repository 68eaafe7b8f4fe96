//! DDS files to an [`ImageData`]: the header read field by field (every error at its byte
//! offset), BC1–5 and BC7 kept as blocks with the file's mips (DXT1/3/5, ATI1/BC4U, ATI2/BC5U
//! FourCCs or a DX10 header), uncompressed RGB(A) and luminance with bit masks expanded to
//! RGBA8. X-Plane is lenient and so is this reader: a file with fewer mips than it declares
//! keeps those it holds (a warning), and header fields that no level needs are not checked.
//!
//! The header is parsed here rather than with the `ddsfile` crate: `ddsfile` reports no byte
//! offsets, refuses files X-Plane loads (a pixel-format size other than 32, an unknown DX10
//! alpha mode) and copies the whole file. The tests write DDS files with `ddsfile` in every
//! format this reader takes, with and without mips and a DX10 header, and check that both
//! read the same sizes, formats and levels.

use std::path::Path;

use super::mips::{full_chain, mip_chain};
use super::{decode_bc, BcFormat, ImageData, ImagePixels, MAX_SIDE};
use crate::diag::Diagnostic;

fn u32_at(b: &[u8], off: usize) -> u32 {
    b.get(off..off + 4)
        .map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

/// Bytes of a `w × h` level of a BC format.
fn bc_level_size(f: BcFormat, w: u32, h: u32) -> usize {
    w.div_ceil(4).max(1) as usize * h.div_ceil(4).max(1) as usize * f.block_bytes()
}

/// Reads a DDS file: BC1-5 and BC7 (DXT1/3/5, ATI1/BC4U, ATI2/BC5U FourCCs or a DX10
/// header) kept compressed, or uncompressed RGB(A) with bit masks expanded to RGBA8.
pub(super) fn decode_dds(
    path: &Path,
    b: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<ImageData, Diagnostic> {
    let err = |off: u64, m: String| Diagnostic::error_offset(path, off, m);
    if b.len() < 128 {
        return Err(err(
            b.len() as u64,
            format!("DDS header truncated: {} of 128 bytes", b.len()),
        ));
    }
    if u32_at(b, 4) != 124 {
        return Err(err(
            4,
            format!("DDS header size is {}, expected 124", u32_at(b, 4)),
        ));
    }
    let flags = u32_at(b, 8);
    let height = u32_at(b, 12);
    let width = u32_at(b, 16);
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(err(
            12,
            format!("DDS is {width} × {height}; sides must be 1..={MAX_SIDE}"),
        ));
    }
    let declared_mips = if flags & 0x2_0000 != 0 {
        u32_at(b, 28).max(1)
    } else {
        1
    };
    let mips = declared_mips.min(full_chain(width, height));
    let pf_flags = u32_at(b, 80);
    let fourcc = b.get(84..88).unwrap_or(&[]);
    let name = path.display().to_string();

    if pf_flags & 0x4 != 0 {
        let (format, data_at) = match fourcc {
            b"DXT1" => (BcFormat::Bc1, 128),
            b"DXT2" | b"DXT3" => (BcFormat::Bc2, 128),
            b"DXT4" | b"DXT5" => (BcFormat::Bc3, 128),
            b"ATI1" | b"BC4U" => (BcFormat::Bc4, 128),
            b"ATI2" | b"BC5U" => (BcFormat::Bc5, 128),
            b"DX10" => {
                let dxgi = u32_at(b, 128);
                // Typeless, UNORM and UNORM_SRGB; the signed BC4/BC5 (81, 84) are not.
                let f = match dxgi {
                    70..=72 => BcFormat::Bc1,
                    73..=75 => BcFormat::Bc2,
                    76..=78 => BcFormat::Bc3,
                    79 | 80 => BcFormat::Bc4,
                    82 | 83 => BcFormat::Bc5,
                    97..=99 => BcFormat::Bc7,
                    _ => {
                        return Err(err(
                            128,
                            format!("DDS DXGI format {dxgi} is not supported (only BC1-5 and BC7, unsigned)"),
                        ))
                    }
                };
                (f, 148)
            }
            other => {
                return Err(err(
                    84,
                    format!(
                        "DDS FourCC `{}` is not supported (only DXT1, DXT3, DXT5, ATI1, ATI2, BC4U, BC5U and DX10)",
                        String::from_utf8_lossy(other)
                    ),
                ))
            }
        };
        let levels = split_levels(b, data_at, mips, width, height, |w, h| {
            bc_level_size(format, w, h)
        });
        if levels.is_empty() {
            return Err(err(
                b.len() as u64,
                "DDS data truncated inside the first mip level".into(),
            ));
        }
        if (levels.len() as u32) < mips {
            warnings.push(Diagnostic::warning_offset(
                path,
                b.len() as u64,
                format!(
                    "DDS declares {mips} mip levels but holds {}; the rest are left out",
                    levels.len()
                ),
            ));
        }
        // A GPU needs BC textures in whole blocks; expand the rare odd-sized file instead.
        if !width.is_multiple_of(4) || !height.is_multiple_of(4) {
            let rgba = decode_bc(format, width, height, &levels[0]);
            return Ok(ImageData {
                name,
                width,
                height,
                pixels: ImagePixels::Rgba8(mip_chain(rgba, width, height)),
                missing: false,
            });
        }
        return Ok(ImageData {
            name,
            width,
            height,
            pixels: ImagePixels::Bc(format, levels),
            missing: false,
        });
    }

    if pf_flags & 0x40 != 0 || pf_flags & 0x2_0000 != 0 || pf_flags & 0x2 != 0 {
        let bits = u32_at(b, 88);
        if !matches!(bits, 8 | 16 | 24 | 32) {
            return Err(err(
                88,
                format!("DDS with {bits} bits per pixel is not supported"),
            ));
        }
        let bpp = (bits / 8) as usize;
        let masks = [u32_at(b, 92), u32_at(b, 96), u32_at(b, 100), u32_at(b, 104)];
        let has_alpha = pf_flags & 0x3 != 0 && masks[3] != 0;
        let luminance = pf_flags & 0x2_0000 != 0;
        let levels = split_levels(b, 128, mips, width, height, |w, h| {
            w as usize * h as usize * bpp
        });
        if levels.is_empty() {
            return Err(err(
                b.len() as u64,
                "DDS data truncated inside the first mip level".into(),
            ));
        }
        let expand = |level: &[u8]| -> Vec<u8> {
            let mut out = Vec::with_capacity(level.len() / bpp * 4);
            for px in level.chunks_exact(bpp) {
                let mut v = 0u32;
                for (k, &byte) in px.iter().enumerate() {
                    v |= (byte as u32) << (8 * k);
                }
                let r = channel(v, masks[0]);
                let (g, bl) = if luminance {
                    (r, r)
                } else {
                    (channel(v, masks[1]), channel(v, masks[2]))
                };
                let a = if has_alpha { channel(v, masks[3]) } else { 255 };
                out.extend_from_slice(&[r, g, bl, a]);
            }
            out
        };
        let pixels = if levels.len() as u32 == full_chain(width, height) {
            levels.iter().map(|l| expand(l)).collect()
        } else {
            mip_chain(expand(&levels[0]), width, height)
        };
        return Ok(ImageData {
            name,
            width,
            height,
            pixels: ImagePixels::Rgba8(pixels),
            missing: false,
        });
    }
    Err(err(
        80,
        format!("DDS pixel format (flags 0x{pf_flags:X}) is not supported"),
    ))
}

/// One channel of a packed pixel, scaled to 0..=255.
fn channel(v: u32, mask: u32) -> u8 {
    if mask == 0 {
        return 0;
    }
    let shift = mask.trailing_zeros();
    let bits = (mask >> shift).count_ones().min(16);
    let max = (1u64 << bits) - 1;
    let x = ((v & mask) >> shift) as u64;
    ((x * 255 + max / 2) / max) as u8
}

/// Cuts `mips` consecutive levels starting at `at`; stops at the first that does not fit.
fn split_levels(
    b: &[u8],
    mut at: usize,
    mips: u32,
    width: u32,
    height: u32,
    size: impl Fn(u32, u32) -> usize,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let (mut w, mut h) = (width, height);
    for _ in 0..mips {
        let n = size(w, h);
        let Some(level) = at.checked_add(n).and_then(|end| b.get(at..end)) else {
            break;
        };
        out.push(level.to_vec());
        at += n;
        w = (w / 2).max(1);
        h = (h / 2).max(1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{bc1_block, bc7_solid, dds_header};
    use super::super::{decode_image, rgba8_mips};
    use super::*;

    #[test]
    fn dds_keeps_blocks_and_mips() {
        let mut b = dds_header(b"DXT1", 8, 8, 4);
        for n in [4, 1, 1, 1] {
            for _ in 0..n {
                b.extend_from_slice(&bc1_block(0xF800, 0x001F, 0));
            }
        }
        let mut w = Vec::new();
        let img = decode_image(Path::new("t.dds"), &b, &mut w).unwrap();
        assert!(w.is_empty());
        let ImagePixels::Bc(BcFormat::Bc1, levels) = &img.pixels else {
            panic!("{:?}", img.pixels)
        };
        assert_eq!(
            levels.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![32, 8, 8, 8]
        );
        assert_eq!(rgba8_mips(&img)[3], vec![255, 0, 0, 255]);
        // Cut inside the third level: two levels and a warning.
        let img = decode_image(Path::new("t.dds"), &b[..128 + 32 + 8 + 3], &mut w).unwrap();
        let ImagePixels::Bc(_, levels) = &img.pixels else {
            panic!()
        };
        assert_eq!(levels.len(), 2);
        assert!(
            w[0].to_string()
                .contains("DDS declares 4 mip levels but holds 2"),
            "{}",
            w[0]
        );
        // Cut inside the first level: an error at the end of the file.
        let e = decode_image(Path::new("t.dds"), &b[..140], &mut w).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.dds: offset 140: error: DDS data truncated inside the first mip level"
        );
    }

    #[test]
    fn dds_bad_headers_are_errors() {
        let e = |b: &[u8]| {
            decode_image(Path::new("x.dds"), b, &mut Vec::new())
                .unwrap_err()
                .to_string()
        };
        assert!(e(b"DDS 12").contains("header truncated"));
        let mut h = dds_header(b"BC6H", 4, 4, 1);
        assert!(e(&h).contains("FourCC `BC6H` is not supported"));
        // A DX10 header naming signed BC5 (84).
        h = dds_header(b"DX10", 4, 4, 1);
        h.extend_from_slice(&84u32.to_le_bytes());
        h.extend_from_slice(&[0; 16]);
        assert!(
            e(&h).contains("DXGI format 84 is not supported"),
            "{}",
            e(&h)
        );
        h = dds_header(b"DXT5", 0, 4, 1);
        assert!(e(&h).contains("sides must be"));
        h = dds_header(b"DXT5", 4, 4, 1);
        h[4] = 0;
        assert!(e(&h).contains("header size is 0"));
        assert!(e(b"GIF89a").contains("not a DDS, PNG, BMP, JPEG or TIFF"));
    }

    #[test]
    fn bc4_bc5_and_bc7_dds_load() {
        // BC4 (ATI1): one channel, drawn grey; endpoints 200 and 50, every index 0.
        let mut b = dds_header(b"ATI1", 4, 4, 1);
        b.extend_from_slice(&[200, 50, 0, 0, 0, 0, 0, 0]);
        let img = decode_image(Path::new("r.dds"), &b, &mut Vec::new()).unwrap();
        let ImagePixels::Bc(BcFormat::Bc4, levels) = &img.pixels else {
            panic!("{:?}", img.pixels)
        };
        assert_eq!(
            &rgba8_mips(&img)[0][..8],
            &[200, 200, 200, 255, 200, 200, 200, 255]
        );
        assert_eq!(levels[0].len(), 8);
        // BC5 (DX10, BC5_UNORM): x and y of a normal at the middle give z ≈ 1.
        let mut b = dds_header(b"DX10", 4, 4, 1);
        b.extend_from_slice(&83u32.to_le_bytes());
        b.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
        b.extend_from_slice(&[128, 128, 0, 0, 0, 0, 0, 0, 128, 128, 0, 0, 0, 0, 0, 0]);
        let img = decode_image(Path::new("n.dds"), &b, &mut Vec::new()).unwrap();
        assert!(matches!(img.pixels, ImagePixels::Bc(BcFormat::Bc5, _)));
        assert_eq!(&rgba8_mips(&img)[0][..4], &[128, 128, 255, 255]);
        // BC7 (DX10, BC7_UNORM_SRGB) with its mips kept: 8 × 8, two levels.
        let mut b = dds_header(b"DX10", 8, 8, 2);
        b.extend_from_slice(&99u32.to_le_bytes());
        b.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]);
        for _ in 0..4 {
            b.extend_from_slice(&bc7_solid([100, 50, 25, 127]));
        }
        b.extend_from_slice(&bc7_solid([10, 20, 30, 40]));
        let mut w = Vec::new();
        let img = decode_image(Path::new("c.dds"), &b, &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        let ImagePixels::Bc(BcFormat::Bc7, levels) = &img.pixels else {
            panic!("{:?}", img.pixels)
        };
        assert_eq!(levels.len(), 2);
        let mips = rgba8_mips(&img);
        assert_eq!(&mips[0][..4], &[201, 101, 51, 255]);
        assert_eq!(mips[0].len(), 8 * 8 * 4);
        assert_eq!(&mips[1][..4], &[21, 41, 61, 81]);
        // A truncated block decodes to transparent black, never a panic.
        assert_eq!(decode_bc(BcFormat::Bc7, 4, 4, &[0x40; 15]), vec![0u8; 64]);
    }

    #[test]
    fn odd_sized_and_uncompressed_dds_become_rgba() {
        let mut b = dds_header(b"DXT1", 3, 2, 1);
        b.extend_from_slice(&bc1_block(0x07E0, 0, 0));
        let img = decode_image(Path::new("o.dds"), &b, &mut Vec::new()).unwrap();
        let ImagePixels::Rgba8(m) = &img.pixels else {
            panic!()
        };
        assert_eq!(m.len(), 2);
        assert_eq!(&m[0][..4], &[0, 255, 0, 255]);
        // 32-bit BGRA with masks, 2 × 1, no mips: a chain is generated.
        let mut b = dds_header(b"\0\0\0\0", 2, 1, 1);
        b[80..84].copy_from_slice(&0x41u32.to_le_bytes());
        b[88..92].copy_from_slice(&32u32.to_le_bytes());
        for (off, m) in [
            (92, 0x00FF_0000u32),
            (96, 0xFF00),
            (100, 0xFF),
            (104, 0xFF00_0000),
        ] {
            b[off..off + 4].copy_from_slice(&m.to_le_bytes());
        }
        b.extend_from_slice(&[10, 20, 30, 40, 50, 60, 70, 80]);
        let img = decode_image(Path::new("u.dds"), &b, &mut Vec::new()).unwrap();
        let ImagePixels::Rgba8(m) = &img.pixels else {
            panic!()
        };
        assert_eq!(m[0], vec![30, 20, 10, 40, 70, 60, 50, 80]);
        assert_eq!(m.len(), 2);
    }

    // ------------------------------------------------ against an independent writer

    /// A `ddsfile` image of a legacy (FourCC or bit-mask) format, its data zero.
    fn d3d_image(format: ddsfile::D3DFormat, w: u32, h: u32, mips: u32) -> ddsfile::Dds {
        ddsfile::Dds::new_d3d(ddsfile::NewD3dParams {
            height: h,
            width: w,
            depth: None,
            format,
            mipmap_levels: Some(mips),
            caps2: None,
        })
        .unwrap()
    }

    /// The bytes of `dds` as `ddsfile` writes them, its data filled with a pattern.
    fn written(mut dds: ddsfile::Dds) -> Vec<u8> {
        for (i, v) in dds.data.iter_mut().enumerate() {
            *v = (i * 7 % 251) as u8;
        }
        let mut bytes = Vec::new();
        dds.write(&mut bytes).unwrap();
        bytes
    }

    /// Reads `bytes` with this reader and with `ddsfile`, and checks both see the same size,
    /// format and mip levels, byte for byte.
    fn same_as_ddsfile(bytes: &[u8], want: BcFormat, what: &str) {
        let theirs = ddsfile::Dds::read(bytes).unwrap();
        let mut warnings = Vec::new();
        let ours = decode_dds(Path::new("t.dds"), bytes, &mut warnings)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(warnings.is_empty(), "{what}: {warnings:?}");
        assert_eq!(
            (ours.width, ours.height),
            (theirs.get_width(), theirs.get_height()),
            "{what}"
        );
        let ImagePixels::Bc(format, levels) = &ours.pixels else {
            panic!("{what}: expanded, expected blocks")
        };
        assert_eq!(*format, want, "{what}");
        assert_eq!(
            levels.len() as u32,
            theirs.get_num_mipmap_levels(),
            "{what}"
        );
        assert_eq!(levels.concat(), theirs.get_data(0).unwrap(), "{what}");
    }

    #[test]
    fn reads_every_bc_format_as_ddsfile_writes_it() {
        use ddsfile::{
            AlphaMode, D3D10ResourceDimension, D3DFormat, Dds, DxgiFormat, FourCC, NewDxgiParams,
        };
        let (w, h) = (16, 8);
        // No mips, and the whole chain down to 1 × 1 (16 × 8: 5 levels).
        for mips in [1, 5] {
            // Legacy FourCC headers. ddsfile has no D3D name for ATI1/ATI2: their headers
            // are DXT1's and DXT5's (same block sizes) with the FourCC replaced.
            let legacy = [
                (D3DFormat::DXT1, None, BcFormat::Bc1),
                (D3DFormat::DXT3, None, BcFormat::Bc2),
                (D3DFormat::DXT5, None, BcFormat::Bc3),
                (D3DFormat::DXT1, Some(*b"ATI1"), BcFormat::Bc4),
                (D3DFormat::DXT5, Some(*b"ATI2"), BcFormat::Bc5),
            ];
            for (format, fourcc, want) in legacy {
                let mut dds = d3d_image(format, w, h, mips);
                if let Some(cc) = fourcc {
                    dds.header.spf.fourcc = Some(FourCC(u32::from_le_bytes(cc)));
                }
                let what = format!("{format:?} {fourcc:?}, {mips} mip(s)");
                same_as_ddsfile(&written(dds), want, &what);
            }
            // DX10 headers: every BC format with a UNORM, sRGB or typeless DXGI name.
            let dx10 = [
                (DxgiFormat::BC1_UNorm, BcFormat::Bc1),
                (DxgiFormat::BC1_UNorm_sRGB, BcFormat::Bc1),
                (DxgiFormat::BC2_UNorm, BcFormat::Bc2),
                (DxgiFormat::BC3_UNorm_sRGB, BcFormat::Bc3),
                (DxgiFormat::BC4_UNorm, BcFormat::Bc4),
                (DxgiFormat::BC5_Typeless, BcFormat::Bc5),
                (DxgiFormat::BC7_UNorm, BcFormat::Bc7),
                (DxgiFormat::BC7_UNorm_sRGB, BcFormat::Bc7),
            ];
            for (format, want) in dx10 {
                let dds = Dds::new_dxgi(NewDxgiParams {
                    height: h,
                    width: w,
                    depth: None,
                    format,
                    mipmap_levels: Some(mips),
                    array_layers: None,
                    caps2: None,
                    is_cubemap: false,
                    resource_dimension: D3D10ResourceDimension::Texture2D,
                    alpha_mode: AlphaMode::Unknown,
                })
                .unwrap();
                let what = format!("DX10 {format:?}, {mips} mip(s)");
                same_as_ddsfile(&written(dds), want, &what);
            }
        }
    }

    #[test]
    fn reads_uncompressed_formats_as_ddsfile_writes_them() {
        use ddsfile::{D3DFormat, Dds};
        let (w, h) = (8, 4);
        // A format, one pixel's bytes as the file stores them, and the RGBA8 it is. ddsfile
        // writes L8 as RGB with a red mask alone (a red-only image); the same header with
        // DDPF_LUMINANCE instead (as NVIDIA's tools write L8) is grey.
        let cases: [(D3DFormat, &[u8], [u8; 4]); 7] = [
            (D3DFormat::A8R8G8B8, &[10, 20, 30, 40], [30, 20, 10, 40]),
            (D3DFormat::X8R8G8B8, &[10, 20, 30, 99], [30, 20, 10, 255]),
            (D3DFormat::A8B8G8R8, &[10, 20, 30, 40], [10, 20, 30, 40]),
            (D3DFormat::R8G8B8, &[10, 20, 30], [30, 20, 10, 255]),
            (D3DFormat::R5G6B5, &[0x00, 0xF8], [255, 0, 0, 255]),
            (D3DFormat::L8, &[77], [77, 0, 0, 255]),
            (D3DFormat::L8, &[77], [77, 77, 77, 255]),
        ];
        for mips in [1, 4] {
            for (k, (format, pixel, want)) in cases.into_iter().enumerate() {
                let mut dds = d3d_image(format, w, h, mips);
                if k == 6 {
                    dds.header.spf.flags = ddsfile::PixelFormatFlags::LUMINANCE;
                }
                for px in dds.data.chunks_exact_mut(pixel.len()) {
                    px.copy_from_slice(pixel);
                }
                let mut bytes = Vec::new();
                dds.write(&mut bytes).unwrap();
                let theirs = Dds::read(&bytes[..]).unwrap();
                let what = format!("case {k}, {format:?}, {mips} mip(s)");
                let mut warnings = Vec::new();
                let ours = decode_dds(Path::new("t.dds"), &bytes, &mut warnings)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert!(warnings.is_empty(), "{what}: {warnings:?}");
                assert_eq!(
                    (ours.width, ours.height),
                    (theirs.get_width(), theirs.get_height()),
                    "{what}"
                );
                let ImagePixels::Rgba8(levels) = &ours.pixels else {
                    panic!("{what}: kept as blocks")
                };
                // Expanded to RGBA8 with a full chain (the file's own levels when it has
                // them all, else averaged); every texel the one colour.
                assert_eq!(levels.len() as u32, full_chain(w, h), "{what}");
                assert_eq!(levels[0].len(), (w * h * 4) as usize, "{what}");
                assert!(levels[0].chunks_exact(4).all(|t| t == want), "{what}");
            }
        }
    }
}
