//! Helpers the art stage's tests share: a scratch folder, and PNG, DDS and block writers.

use std::path::{Path, PathBuf};

/// A fresh directory for one test, removed when the test ends.
pub struct Tmp(PathBuf);

impl std::ops::Deref for Tmp {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn tmp(name: &str) -> Tmp {
    let d = std::env::temp_dir().join(format!("agview-art-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Tmp(d)
}

pub fn write_png(path: &Path, w: u32, h: u32, px: impl Fn(u32, u32) -> [u8; 4]) {
    let mut img = image::RgbaImage::new(w, h);
    for y in 0..h {
        for x in 0..w {
            img.put_pixel(x, y, image::Rgba(px(x, y)));
        }
    }
    img.save(path).unwrap();
}

/// A DDS header for a FourCC format with `mips` levels.
pub(crate) fn dds_header(fourcc: &[u8; 4], w: u32, h: u32, mips: u32) -> Vec<u8> {
    let mut b = vec![0u8; 128];
    b[..4].copy_from_slice(b"DDS ");
    let put =
        |b: &mut Vec<u8>, off: usize, v: u32| b[off..off + 4].copy_from_slice(&v.to_le_bytes());
    put(&mut b, 4, 124);
    put(&mut b, 8, 0x1 | 0x2 | 0x4 | 0x1000 | 0x2_0000);
    put(&mut b, 12, h);
    put(&mut b, 16, w);
    put(&mut b, 28, mips);
    put(&mut b, 76, 32);
    put(&mut b, 80, 0x4);
    b[84..88].copy_from_slice(fourcc);
    b
}

/// A BC1 block of one colour index everywhere.
pub(crate) fn bc1_block(c0: u16, c1: u16, index: u32) -> [u8; 8] {
    let mut bits = 0u32;
    for i in 0..16 {
        bits |= index << (2 * i);
    }
    let mut b = [0u8; 8];
    b[..2].copy_from_slice(&c0.to_le_bytes());
    b[2..4].copy_from_slice(&c1.to_le_bytes());
    b[4..].copy_from_slice(&bits.to_le_bytes());
    b
}

/// A BC7 mode 6 block of one colour: 7-bit endpoints `rgba` (both the same), p-bits 1,
/// every index 0.
pub(crate) fn bc7_solid(rgba: [u8; 4]) -> [u8; 16] {
    let mut bits = 0u128;
    let mut at = 0;
    let mut put = |v: u128, n: u32| {
        bits |= v << at;
        at += n;
    };
    put(1 << 6, 7); // mode 6
    for c in rgba {
        put(u128::from(c & 0x7F), 7);
        put(u128::from(c & 0x7F), 7);
    }
    put(1, 1);
    put(1, 1);
    bits.to_le_bytes()
}
