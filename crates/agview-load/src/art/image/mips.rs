//! Mip chains: an RGBA8 image averaged 2 × 2 down to 1 × 1, colour in linear light (as
//! X-Plane's DDSTool does), alpha as is.

/// Number of levels in a full mip chain down to 1 × 1.
pub(crate) fn full_chain(w: u32, h: u32) -> u32 {
    32 - w.max(h).max(1).leading_zeros()
}

/// sRGB byte → linear light, 0..=65535.
fn srgb_to_linear() -> &'static [u16; 256] {
    static T: std::sync::OnceLock<[u16; 256]> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut t = [0u16; 256];
        for (i, v) in t.iter_mut().enumerate() {
            let c = i as f64 / 255.0;
            let l = if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            };
            *v = (l * 65535.0).round() as u16;
        }
        t
    })
}

/// Linear light 0..=65535 → sRGB byte.
fn linear_to_srgb() -> &'static [u8] {
    static T: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        (0..=65535u32)
            .map(|i| {
                let l = i as f64 / 65535.0;
                let c = if l <= 0.003_130_8 {
                    l * 12.92
                } else {
                    1.055 * l.powf(1.0 / 2.4) - 0.055
                };
                (c * 255.0).round().clamp(0.0, 255.0) as u8
            })
            .collect()
    })
}

/// The mip chain of an RGBA8 image, mip 0 first, down to 1 × 1: each level averages 2 × 2
/// texels of the one above (colour in linear light, alpha as is; an odd last row or column
/// is reused).
pub(crate) fn mip_chain(rgba: Vec<u8>, width: u32, height: u32) -> Vec<Vec<u8>> {
    let to_lin = srgb_to_linear();
    let to_srgb = linear_to_srgb();
    let levels = full_chain(width, height);
    let mut out = Vec::with_capacity(levels as usize);
    out.push(rgba);
    let (mut w, mut h) = (width as usize, height as usize);
    for _ in 1..levels {
        let prev = &out[out.len() - 1];
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let mut next = vec![0u8; nw * nh * 4];
        // Row slices and a plain loop: no bounds check per texel (this runs over every
        // texel of every texture a render loads).
        for (y, dst) in next.chunks_exact_mut(nw * 4).enumerate() {
            let row = |r: usize| &prev[r.min(h - 1) * w * 4..][..w * 4];
            let (r0, r1) = (row(2 * y), row(2 * y + 1));
            for (x, d) in dst.chunks_exact_mut(4).enumerate() {
                let (a, b) = (2 * x * 4, (2 * x + 1).min(w - 1) * 4);
                for c in 0..3 {
                    let sum = u32::from(to_lin[usize::from(r0[a + c])])
                        + u32::from(to_lin[usize::from(r0[b + c])])
                        + u32::from(to_lin[usize::from(r1[a + c])])
                        + u32::from(to_lin[usize::from(r1[b + c])]);
                    d[c] = to_srgb[((sum + 2) / 4).min(65535) as usize];
                }
                let alpha = u32::from(r0[a + 3])
                    + u32::from(r0[b + 3])
                    + u32::from(r1[a + 3])
                    + u32::from(r1[b + 3]);
                d[3] = ((alpha + 2) / 4) as u8;
            }
        }
        out.push(next);
        w = nw;
        h = nh;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::super::testing::{tmp, write_png};
    use super::super::load_image;
    use super::*;
    use crate::art::ImagePixels;

    #[test]
    fn png_gets_a_linear_light_mip_chain() {
        let d = tmp("png");
        let p = d.join("t.png");
        // Black and white columns: the 50% mix in linear light is sRGB 188, not 128.
        write_png(&p, 2, 2, |x, _| {
            if x == 0 {
                [0, 0, 0, 255]
            } else {
                [255, 255, 255, 0]
            }
        });
        let mut w = Vec::new();
        let img = load_image(&p, &mut w);
        assert!(w.is_empty(), "{w:?}");
        assert!(!img.missing);
        let ImagePixels::Rgba8(m) = &img.pixels else {
            panic!()
        };
        assert_eq!(m.len(), 2);
        assert_eq!(m[0][..4], [0, 0, 0, 255]);
        assert_eq!(m[1], vec![188, 188, 188, 128]);
        // 5 × 3 → 2 × 1 → 1 × 1.
        let chain = mip_chain(vec![0; 5 * 3 * 4], 5, 3);
        assert_eq!(
            chain.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![60, 8, 4]
        );
    }
}
