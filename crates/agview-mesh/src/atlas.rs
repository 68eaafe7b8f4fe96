//! Atlas sub-rectangles: the part of a texture one tile or one tree samples.
//!
//! Autogen tiles and forest trees each show a rectangle of a shared texture (an atlas). At
//! coarse mip levels bilinear filtering, and the mip pyramid itself, mix in the texels
//! around that rectangle: a distant tile takes the colour of its atlas neighbours. So each
//! tile piece and each tree carries its rectangle, and the fragment shader keeps its
//! samples inside it (`atlas_sample` in `common.wgsl`): the sampled point is clamped into
//! the rectangle shrunk by half a texel of the level sampled (plus, with anisotropic
//! filtering, half the probes' spread), and the level is capped where the rectangle would
//! be less than two texels across.
//!
//! Only a true sub-rectangle is clamped: one that lies inside the texture (`0..=1` on both
//! axes), and only along an axis it does not span whole. Across the whole width (or
//! height) there is no neighbour, only the texture's other edge, which a texture made to
//! repeat continues: that axis wraps as it always did. A rectangle reaching outside the
//! texture wraps (the material sampler repeats) and is drawn as it always was, as are
//! draped object parts, whose texture coordinates may repeat: both carry the whole texture
//! ([`NO_CLAMP`]).

/// A rectangle `[s1, t1, s2, t2]` (normalised, t up, `s1 ≤ s2`, `t1 ≤ t2`) as a tile vertex
/// carries it: four `Unorm16` values.
pub(crate) type PackedRect = [u16; 4];

/// The whole texture: nothing to keep out, so nothing is clamped or capped (draped object
/// parts, and tiles whose rectangle is not inside the texture).
pub(crate) const NO_CLAMP: PackedRect = [0, 0, u16::MAX, u16::MAX];

/// The rectangle a piece showing texture rectangle `st` (`[s1, t1, s2, t2]`, normalised, t
/// up, either corner first) is clamped to: its corners in order, or `None` when it is not
/// a sub-rectangle of the texture (a part outside `0..=1`, or a coordinate that is not a
/// number) and must not be clamped.
pub(crate) fn clamp_rect(st: [f32; 4]) -> Option<[f32; 4]> {
    let [s1, t1, s2, t2] = st;
    let inside = |v: f32| (0.0..=1.0).contains(&v);
    st.iter()
        .all(|&v| inside(v))
        .then(|| [s1.min(s2), t1.min(t2), s1.max(s2), t1.max(t2)])
}

/// [`clamp_rect`] packed for a tile vertex (`Unorm16x4`): the corners are rounded inward,
/// so the clamp never lets a sample out by a rounding step (1/65535 of the texture: a
/// sixteenth of a texel of a 4096-texel image). A rectangle narrower than a step keeps its
/// middle.
pub(crate) fn pack(st: [f32; 4]) -> PackedRect {
    let Some([s1, t1, s2, t2]) = clamp_rect(st) else {
        return NO_CLAMP;
    };
    let m = f32::from(u16::MAX);
    let axis = |lo: f32, hi: f32| -> (u16, u16) {
        let (a, b) = ((lo * m).ceil(), (hi * m).floor());
        if a <= b {
            (a as u16, b as u16)
        } else {
            let mid = ((lo + hi) * 0.5 * m).round() as u16;
            (mid, mid)
        }
    };
    let (s_lo, s_hi) = axis(s1, s2);
    let (t_lo, t_hi) = axis(t1, t2);
    [s_lo, t_lo, s_hi, t_hi]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sub_rectangle_is_clamped_and_ordered() {
        assert_eq!(
            clamp_rect([0.25, 0.5, 0.5, 0.75]),
            Some([0.25, 0.5, 0.5, 0.75])
        );
        // A mirrored rectangle: the same corners, ordered.
        assert_eq!(
            clamp_rect([0.5, 0.75, 0.25, 0.5]),
            Some([0.25, 0.5, 0.5, 0.75])
        );
        // The whole texture is a rectangle inside it.
        assert_eq!(clamp_rect([0.0, 0.0, 1.0, 1.0]), Some([0.0, 0.0, 1.0, 1.0]));
    }

    #[test]
    fn a_rectangle_past_the_texture_wraps_and_is_not_clamped() {
        assert_eq!(clamp_rect([0.5, 0.0, 1.5, 1.0]), None);
        assert_eq!(clamp_rect([-0.25, 0.0, 0.25, 1.0]), None);
        assert_eq!(clamp_rect([0.0, f32::NAN, 1.0, 1.0]), None);
        assert_eq!(pack([0.5, 0.0, 1.5, 1.0]), NO_CLAMP);
    }

    #[test]
    fn packing_rounds_inward_and_keeps_the_order() {
        let m = f32::from(u16::MAX);
        // 16 px cells of a 1024 px atlas: 1/64 is not a multiple of 1/65535.
        let st = [16.0 / 1024.0, 32.0 / 1024.0, 32.0 / 1024.0, 48.0 / 1024.0];
        let p = pack(st);
        for k in 0..2 {
            let (lo, hi) = (f32::from(p[k]) / m, f32::from(p[k + 2]) / m);
            assert!(lo >= st[k] && lo - st[k] < 1.0 / m, "{lo} {}", st[k]);
            assert!(
                hi <= st[k + 2] && st[k + 2] - hi < 1.0 / m,
                "{hi} {}",
                st[k + 2]
            );
        }
        // Exact corners stay exact.
        assert_eq!(pack([0.0, 0.0, 1.0, 1.0]), [0, 0, u16::MAX, u16::MAX]);
        // A rectangle narrower than a step (or with no width) stays a rectangle, its
        // corners in order.
        let thin = pack([0.30001, 0.2, 0.30002, 0.2]);
        assert!(thin[0] <= thin[2] && thin[1] <= thin[3], "{thin:?}");
        assert_eq!(thin[0], thin[2]);
    }
}
