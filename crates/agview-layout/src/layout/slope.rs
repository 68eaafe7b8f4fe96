//! `SLOPE_LIMIT`: the terrain's pitch and roll at an autogen point, and which variants of a
//! library path admit them.
//!
//! The AGP spec: "If you imagine the AGP as an airplane placed at the location and heading
//! specified on the DSF, the limits represent the maximum the plane could pitch up and down
//! and roll to the right (negative numbers would be nose down and roll left)." The limits
//! count only for a point placed by library path; the document loader decides that, opens
//! the variants and hands their limits here. This module is pure: the terrain comes in as a
//! height function.

use super::geom::{rotate_cw, P2};

/// `SLOPE_LIMIT <min pitch> <max pitch> <min roll> <max roll>`, degrees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlopeLimit {
    pub min_pitch: f32,
    pub max_pitch: f32,
    pub min_roll: f32,
    pub max_roll: f32,
}

impl SlopeLimit {
    /// From the reader's `[min pitch, max pitch, min roll, max roll]`.
    pub fn from_array([min_pitch, max_pitch, min_roll, max_roll]: [f32; 4]) -> Self {
        SlopeLimit {
            min_pitch,
            max_pitch,
            min_roll,
            max_roll,
        }
    }

    /// Whether a point on ground of this pitch and roll may use the variant. The bounds
    /// count as inside.
    pub fn admits(&self, s: Slope) -> bool {
        (self.min_pitch..=self.max_pitch).contains(&s.pitch)
            && (self.min_roll..=self.max_roll).contains(&s.roll)
    }
}

impl std::fmt::Display for SlopeLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "pitch {}..{}°, roll {}..{}°",
            self.min_pitch, self.max_pitch, self.min_roll, self.max_roll
        )
    }
}

/// The terrain's attitude under a point, as the airplane of the spec would sit on it:
/// degrees, pitch positive nose up (the ground rises ahead), roll positive to the right
/// (the ground falls away to the right).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Slope {
    pub pitch: f32,
    pub roll: f32,
}

impl std::fmt::Display for Slope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pitch {:.1}°, roll {:.1}°", self.pitch, self.roll)
    }
}

/// The slope at `pos` along `heading` (degrees clockwise from north), by central differences
/// `step` meters either side of the point along the heading (pitch) and across it (roll).
/// A step that is not a positive number is taken as 1 m; a height that is not finite
/// counts as 0.
pub fn slope_at(height: impl Fn(f32, f32) -> f32, pos: P2, heading: f32, step: f32) -> Slope {
    let d = if step.is_finite() && step > 0.0 {
        step
    } else {
        1.0
    };
    let h = |p: P2| {
        let v = height(p[0], p[1]);
        if v.is_finite() {
            v
        } else {
            0.0
        }
    };
    let at = |dir: P2, k: f32| h([pos[0] + dir[0] * k, pos[1] + dir[1] * k]);
    let ahead = rotate_cw([0.0, 1.0], heading);
    let right = rotate_cw([1.0, 0.0], heading);
    let deg = |rise: f32| rise.atan2(2.0 * d).to_degrees();
    Slope {
        pitch: deg(at(ahead, d) - at(ahead, -d)),
        roll: deg(at(right, -d) - at(right, d)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plane rising 20% to the north.
    fn north_ramp(_x: f32, y: f32) -> f32 {
        0.2 * y
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-3
    }

    #[test]
    fn pitch_and_roll_follow_the_heading() {
        let grade = 0.2f32.atan().to_degrees(); // 11.31°
        let s = slope_at(north_ramp, [5.0, 7.0], 0.0, 2.0);
        assert!(close(s.pitch, grade) && close(s.roll, 0.0), "{s:?}");
        // Facing south: nose down.
        let s = slope_at(north_ramp, [5.0, 7.0], 180.0, 2.0);
        assert!(close(s.pitch, -grade) && close(s.roll, 0.0), "{s:?}");
        // Facing east: the ground rises on the left, so the airplane rolls right.
        let s = slope_at(north_ramp, [5.0, 7.0], 90.0, 2.0);
        assert!(close(s.pitch, 0.0) && close(s.roll, grade), "{s:?}");
        // Facing west: it rises on the right, a roll to the left.
        let s = slope_at(north_ramp, [5.0, 7.0], 270.0, 2.0);
        assert!(close(s.pitch, 0.0) && close(s.roll, -grade), "{s:?}");
    }

    #[test]
    fn flat_ground_is_level_and_bad_input_does_not_panic() {
        let s = slope_at(|_, _| 3.0, [0.0, 0.0], 45.0, 5.0);
        assert_eq!(s, Slope::default());
        let s = slope_at(|_, _| f32::NAN, [0.0, 0.0], f32::NAN, f32::NAN);
        assert!(s.pitch.is_finite() && s.roll.is_finite(), "{s:?}");
        let s = slope_at(north_ramp, [0.0, 0.0], 0.0, -1.0);
        assert!(s.pitch.is_finite());
    }

    #[test]
    fn limits_bound_pitch_and_roll_inclusively() {
        let l = SlopeLimit::from_array([-5.0, 5.0, -2.0, 10.0]);
        assert!(l.admits(Slope {
            pitch: 5.0,
            roll: -2.0
        }));
        assert!(!l.admits(Slope {
            pitch: 5.1,
            roll: 0.0
        }));
        assert!(!l.admits(Slope {
            pitch: 0.0,
            roll: -3.0
        }));
        assert!(!l.admits(Slope {
            pitch: f32::NAN,
            roll: 0.0
        }));
        assert_eq!(l.to_string(), "pitch -5..5°, roll -2..10°");
    }
}
