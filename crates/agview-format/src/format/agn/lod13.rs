//! LOD13 squares: the file name code and the frames in meters.

use super::*;

/// Degrees of longitude one LOD13 square spans (360 / 24576).
pub const LOD13_LON_STEP: f64 = 0.0146484375;
/// Degrees of latitude one LOD13 square spans (180 / 16384).
pub const LOD13_LAT_STEP: f64 = 0.010986328125;
/// The largest LOD13 U (column, counted east from 180° W).
pub const LOD13_U_MAX: u32 = 24575;
/// The largest LOD13 V (row, counted south from 90° N).
pub const LOD13_V_MAX: u32 = 16383;
/// Meters per degree of latitude (and of longitude at the equator) on a sphere of the WGS84
/// equatorial radius; gives the spec's ≈1223 m per y unit and ≈1630·cos φ m per x unit.
pub const METERS_PER_DEGREE: f64 = 6_378_137.0 * std::f64::consts::PI / 180.0;

/// The length of an `.agn` file name: 15 digits, then `an.agn`.
const LOD13_DIGITS: usize = 15;
const AGN_SUFFIX: &str = "an.agn";

/// A LOD13 square, the area one `.agn` file covers: QMID level 15 column `u` and row `v`.
/// The file name encodes it: digit i (most significant first) = bit i of U + 2 · bit i of V.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Lod13 {
    pub u: u32,
    pub v: u32,
}

/// A latitude/longitude box in degrees.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GeoBounds {
    pub north: f64,
    pub south: f64,
    pub east: f64,
    pub west: f64,
}

impl GeoBounds {
    /// `(lat, lon)` of the middle of the box.
    pub fn center(&self) -> (f64, f64) {
        (
            (self.north + self.south) / 2.0,
            (self.east + self.west) / 2.0,
        )
    }

    /// True when the point lies in the box (north and west edges included, south and east
    /// edges excluded, so that neighbouring squares do not overlap).
    pub fn contains(&self, lat: f64, lon: f64) -> bool {
        lat <= self.north && lat > self.south && lon >= self.west && lon < self.east
    }
}

impl Lod13 {
    /// A square from its U and V, rejecting values past [`LOD13_U_MAX`] / [`LOD13_V_MAX`].
    pub fn new(u: u32, v: u32) -> Result<Lod13, String> {
        if u > LOD13_U_MAX {
            return Err(format!("LOD13 U {u} is larger than {LOD13_U_MAX}"));
        }
        if v > LOD13_V_MAX {
            return Err(format!("LOD13 V {v} is larger than {LOD13_V_MAX}"));
        }
        Ok(Lod13 { u, v })
    }

    /// Reads a file name such as `001332223121112an.agn` (any directory part, `/` or `\`,
    /// is stripped; the `an.agn` suffix may be in any case).
    pub fn from_file_name(name: &str) -> Result<Lod13, String> {
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        let n = base.len();
        if n < AGN_SUFFIX.len()
            || !base.as_bytes()[n - AGN_SUFFIX.len()..].eq_ignore_ascii_case(AGN_SUFFIX.as_bytes())
        {
            return Err(format!(
                "'{base}' is not a LOD13 .agn name: it does not end in '{AGN_SUFFIX}'"
            ));
        }
        // The suffix is ASCII, so this cut is on a character boundary.
        let digits = &base[..n - AGN_SUFFIX.len()];
        let count = digits.chars().count();
        if count != LOD13_DIGITS {
            return Err(format!(
                "'{base}' is not a LOD13 .agn name: it has {count} characters before '{AGN_SUFFIX}', a LOD13 name has {LOD13_DIGITS} digits"
            ));
        }
        let (mut u, mut v) = (0u32, 0u32);
        for (i, ch) in digits.chars().enumerate() {
            let d = match ch {
                '0'..='3' => ch as u32 - '0' as u32,
                _ => {
                    return Err(format!(
                        "'{base}' is not a LOD13 .agn name: character {} is '{ch}', LOD13 digits are 0 to 3",
                        i + 1
                    ))
                }
            };
            u = (u << 1) | (d & 1);
            v = (v << 1) | (d >> 1);
        }
        Lod13::new(u, v).map_err(|e| format!("'{base}' is not a LOD13 .agn name: {e}"))
    }

    /// The file name of this square's `.agn` file, e.g. `001332223121112an.agn`.
    pub fn file_name(&self) -> String {
        let mut s = String::with_capacity(LOD13_DIGITS + AGN_SUFFIX.len());
        for i in (0..LOD13_DIGITS).rev() {
            let d = ((self.u >> i) & 1) + 2 * ((self.v >> i) & 1);
            s.push(char::from(b'0' + d as u8));
        }
        s.push_str(AGN_SUFFIX);
        s
    }

    /// The square holding a point: `U = floor((lon + 180)·24576/360)`,
    /// `V = floor((90 − lat)·16384/180)`. Longitude 180 is the same meridian as −180; the
    /// south pole belongs to the last row.
    pub fn from_lat_lon(lat: f64, lon: f64) -> Result<Lod13, String> {
        if !(-90.0..=90.0).contains(&lat) {
            return Err(format!("latitude {lat} is outside -90..90"));
        }
        if !(-180.0..=180.0).contains(&lon) {
            return Err(format!("longitude {lon} is outside -180..180"));
        }
        let u = ((lon + 180.0) / LOD13_LON_STEP).floor() as u32 % (LOD13_U_MAX + 1);
        let v = (((90.0 - lat) / LOD13_LAT_STEP).floor() as u32).min(LOD13_V_MAX);
        Ok(Lod13 { u, v })
    }

    /// The square's edges: north-west corner `(90 − V·step, U·step − 180)`.
    pub fn bounds(&self) -> GeoBounds {
        let north = 90.0 - self.v as f64 * LOD13_LAT_STEP;
        let west = self.u as f64 * LOD13_LON_STEP - 180.0;
        GeoBounds {
            north,
            south: north - LOD13_LAT_STEP,
            east: west + LOD13_LON_STEP,
            west,
        }
    }

    /// Meters per square unit `[x, y]`, x taken at the square's middle latitude (one scale
    /// for the whole square, so straight lines stay straight).
    pub fn meters_per_unit(&self) -> [f64; 2] {
        let (lat, _) = self.bounds().center();
        [
            LOD13_LON_STEP * METERS_PER_DEGREE * lat.to_radians().cos(),
            LOD13_LAT_STEP * METERS_PER_DEGREE,
        ]
    }

    /// A centred-frame point (−0.5..0.5, y south) in local meters: origin at the square's
    /// centre, x east, y north.
    pub fn centred_to_local(&self, p: Point) -> [f64; 2] {
        let [mx, my] = self.meters_per_unit();
        [p[0] as f64 * mx, -(p[1] as f64) * my]
    }

    /// A top-left-frame point (0..1 from the north-west corner, y south) in the same local
    /// meters as [`Lod13::centred_to_local`].
    pub fn top_left_to_local(&self, p: Point) -> [f64; 2] {
        let [mx, my] = self.meters_per_unit();
        [(p[0] as f64 - 0.5) * mx, -(p[1] as f64 - 0.5) * my]
    }

    /// Local meters back to the centred frame (the inverse of [`Lod13::centred_to_local`]).
    pub fn local_to_centred(&self, m: [f64; 2]) -> Point {
        let [mx, my] = self.meters_per_unit();
        [(m[0] / mx) as f32, (-m[1] / my) as f32]
    }

    /// `(lat, lon)` of a centred-frame point.
    pub fn centred_to_lat_lon(&self, p: Point) -> (f64, f64) {
        let (lat, lon) = self.bounds().center();
        (
            lat - p[1] as f64 * LOD13_LAT_STEP,
            lon + p[0] as f64 * LOD13_LON_STEP,
        )
    }

    /// `(lat, lon)` of a top-left-frame point.
    pub fn top_left_to_lat_lon(&self, p: Point) -> (f64, f64) {
        let b = self.bounds();
        (
            b.north - p[1] as f64 * LOD13_LAT_STEP,
            b.west + p[0] as f64 * LOD13_LON_STEP,
        )
    }
}

impl fmt::Display for Lod13 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LOD13 U={} V={}", self.u, self.v)
    }
}
