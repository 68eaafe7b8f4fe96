//! A tiny built-in 5×7 pixel font for labels drawn into images (contact-sheet cells): the
//! digits and the few signs a size label needs, so no font crate is needed.

/// Glyphs as seven rows of five bits, the most significant of the five on the left.
fn glyph(c: char) -> Option<[u8; 7]> {
    Some(match c {
        '0' => [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        '1' => [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        '2' => [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        '3' => [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        '4' => [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        '5' => [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        '6' => [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        '7' => [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        '8' => [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        '9' => [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        'x' => [0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11],
        '.' => [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
        '-' => [0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00],
        'm' => [0x00, 0x00, 0x1A, 0x15, 0x15, 0x11, 0x11],
        ' ' => [0; 7],
        _ => return None,
    })
}

/// Glyph cell width (5 pixels and a space) at scale 1.
pub const ADVANCE: u32 = 6;
pub const HEIGHT: u32 = 7;

/// Width in pixels of `text` drawn at `scale`.
pub fn text_width(text: &str, scale: u32) -> u32 {
    (text.chars().count() as u32 * ADVANCE).saturating_sub(1) * scale
}

/// Draws `text` with its top-left corner at `(x, y)`, each font pixel a `scale × scale`
/// square; characters the font lacks draw as a box; pixels off the image are skipped.
pub fn draw_text(
    img: &mut image::RgbaImage,
    x: i64,
    y: i64,
    text: &str,
    scale: u32,
    color: [u8; 4],
) {
    let s = i64::from(scale.max(1));
    for (i, c) in text.chars().enumerate() {
        let rows = glyph(c).unwrap_or([0x1F, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1F]);
        let gx = x + i as i64 * i64::from(ADVANCE) * s;
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..5 {
                if bits & (0x10 >> col) == 0 {
                    continue;
                }
                for dy in 0..s {
                    for dx in 0..s {
                        let px = gx + col * s + dx;
                        let py = y + row as i64 * s + dy;
                        if px >= 0
                            && py >= 0
                            && px < i64::from(img.width())
                            && py < i64::from(img.height())
                        {
                            img.put_pixel(px as u32, py as u32, image::Rgba(color));
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_digit_has_a_distinct_glyph() {
        let digits: Vec<[u8; 7]> = ('0'..='9').map(|c| glyph(c).unwrap()).collect();
        for (i, a) in digits.iter().enumerate() {
            assert!(a.iter().all(|r| *r < 0x20), "five columns only");
            for b in &digits[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    #[test]
    fn draws_pixels_where_the_glyph_has_them_and_clips() {
        let mut img = image::RgbaImage::new(20, 10);
        draw_text(&mut img, 0, 0, "1", 1, [255, 255, 255, 255]);
        // '1': the top row has only its middle pixel, the bottom row three.
        assert_eq!(img.get_pixel(2, 0).0, [255, 255, 255, 255]);
        assert_eq!(img.get_pixel(0, 0).0, [0, 0, 0, 0]);
        assert_eq!(
            (1..4).filter(|x| img.get_pixel(*x, 6).0[0] == 255).count(),
            3
        );
        // Off the image: no panic.
        draw_text(&mut img, -3, 8, "88x8", 3, [1, 2, 3, 255]);
        assert_eq!(text_width("100x80", 2), (6 * 6 - 1) * 2);
    }
}
