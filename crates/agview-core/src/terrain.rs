//! The ground a scene stands on: a square height field in the scene's local frame.
//!
//! CPU-side data only. The renderer uploads [`Terrain::heights`] once as an `R32Float`
//! texture and evaluates the same two functions as here in its shaders, so the CPU and the
//! GPU agree on every height:
//!
//! - [`Terrain::height_at`]: bilinear interpolation of the four samples around a point. Objects
//!   and trees are placed with it (draped at their origin, graded at their ground point).
//!   The renderer evaluates it once per object at upload (unexaggerated,
//!   [`Terrain::raw_height_at`]) and per vertex for trees and facades.
//! - [`Terrain::surface_at`]: the triangulated surface the terrain is *drawn* as (each grid
//!   cell split along its south-west → north-east diagonal). Tiles are cut along the same
//!   triangles and lifted with this function, so they lie exactly on the drawn ground: no
//!   floating and no sinking. Both functions agree at the grid samples.
//!
//! Heights are multiplied by [`Terrain::exaggeration`]; in the renderer that factor is a
//! uniform, so changing it re-uploads nothing.

use thiserror::Error;

/// A square height field of `resolution × resolution` samples spanning `size_m` meters,
/// centred on `center` (meters, x east, y north).
#[derive(Debug, Clone, PartialEq)]
pub struct Terrain {
    /// Side of the square in meters.
    pub size_m: f32,
    /// Samples per side (at least 2).
    pub resolution: u32,
    /// Heights in meters, row-major: row 0 is the south edge, column 0 the west edge.
    pub heights: Vec<f32>,
    /// Vertical exaggeration applied to every height (1 = true scale).
    pub exaggeration: f32,
    /// Centre of the square in the scene's frame.
    pub center: [f32; 2],
}

/// Why a height map could not become a terrain.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TerrainError {
    #[error("height map is {width}x{height}: it needs at least 2x2 samples")]
    TooSmall { width: u32, height: u32 },
    #[error("height map is {width}x{height} but has {len} samples")]
    WrongLength { width: u32, height: u32, len: usize },
    #[error("height map is {width}x{height}: at most {max} samples a side are supported")]
    TooLarge { width: u32, height: u32, max: u32 },
}

/// The largest resolution accepted from a height map (the GPU texture side).
pub(crate) const MAX_RESOLUTION: u32 = 4097;

impl Terrain {
    /// A flat terrain of side `size_m` centred on the origin (65×65 samples, all zero:
    /// small triangles keep depth interpolation precise near the camera).
    pub fn flat(size_m: f32) -> Self {
        Terrain {
            size_m: sane_size(size_m),
            resolution: 65,
            heights: vec![0.0; 65 * 65],
            exaggeration: 1.0,
            center: [0.0, 0.0],
        }
    }

    /// Smooth rolling hills: a few Gaussian bumps and hollows of up to `amplitude` meters,
    /// placed from `seed` (the same seed always gives the same ground). 129×129 samples.
    pub fn hills(size_m: f32, amplitude: f32, seed: u64) -> Self {
        let size_m = sane_size(size_m);
        let n = 129u32;
        let mut rng = SplitMix(seed ^ 0x9e37_79b9_7f4a_7c15);
        let half = size_m * 0.5;
        let bumps: Vec<([f32; 2], f32, f32)> = (0..7)
            .map(|i| {
                let c = [rng.range(-half, half), rng.range(-half, half)];
                let radius = rng.range(0.12, 0.3) * size_m;
                // Mostly hills, one or two hollows.
                let sign = if i % 3 == 2 { -0.6 } else { 1.0 };
                let h = sign * rng.range(0.5, 1.0);
                (c, radius, h)
            })
            .collect();
        let step = size_m / (n - 1) as f32;
        let mut heights = Vec::with_capacity((n * n) as usize);
        let mut raw_max = f32::MIN;
        let mut raw_min = f32::MAX;
        for j in 0..n {
            for i in 0..n {
                let p = [i as f32 * step - half, j as f32 * step - half];
                let mut h = 0.0;
                for (c, r, a) in &bumps {
                    let d2 = (p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2);
                    h += a * (-d2 / (r * r)).exp();
                }
                raw_max = raw_max.max(h);
                raw_min = raw_min.min(h);
                heights.push(h);
            }
        }
        let span = (raw_max - raw_min).max(1e-6);
        for h in &mut heights {
            *h = (*h - raw_min) / span * amplitude;
        }
        Terrain {
            size_m,
            resolution: n,
            heights,
            exaggeration: 1.0,
            center: [0.0, 0.0],
        }
    }

    /// A terrain from a 16-bit height map of `width × height` samples, first row north (as
    /// images are stored); 0 is 0 m and 65535 is `height_m` meters. A non-square map is
    /// resampled (bilinear) to a square grid of `max(width, height)` samples a side.
    pub fn from_heightmap_u16(
        width: u32,
        height: u32,
        data: &[u16],
        size_m: f32,
        height_m: f32,
    ) -> Result<Self, TerrainError> {
        if width < 2 || height < 2 {
            return Err(TerrainError::TooSmall { width, height });
        }
        if width > MAX_RESOLUTION || height > MAX_RESOLUTION {
            return Err(TerrainError::TooLarge {
                width,
                height,
                max: MAX_RESOLUTION,
            });
        }
        if data.len() != width as usize * height as usize {
            return Err(TerrainError::WrongLength {
                width,
                height,
                len: data.len(),
            });
        }
        let n = width.max(height);
        let scale = height_m / 65535.0;
        let sample = |x: usize, y: usize| f32::from(data[y * width as usize + x]) * scale;
        let mut heights = Vec::with_capacity((n * n) as usize);
        for j in 0..n {
            // Row j counts from the south; the map's row 0 is north.
            let fy = (n - 1 - j) as f32 / (n - 1) as f32 * (height - 1) as f32;
            for i in 0..n {
                let fx = i as f32 / (n - 1) as f32 * (width - 1) as f32;
                let x0 = (fx.floor() as usize).min(width as usize - 2);
                let y0 = (fy.floor() as usize).min(height as usize - 2);
                let tx = fx - x0 as f32;
                let ty = fy - y0 as f32;
                let a = sample(x0, y0) * (1.0 - tx) + sample(x0 + 1, y0) * tx;
                let b = sample(x0, y0 + 1) * (1.0 - tx) + sample(x0 + 1, y0 + 1) * tx;
                heights.push(a * (1.0 - ty) + b * ty);
            }
        }
        Ok(Terrain {
            size_m: sane_size(size_m),
            resolution: n,
            heights,
            exaggeration: 1.0,
            center: [0.0, 0.0],
        })
    }

    /// The same terrain moved so its centre is at `center`.
    pub fn with_center(mut self, center: [f32; 2]) -> Self {
        self.center = center;
        self
    }

    /// The south-west corner of the square.
    pub fn origin(&self) -> [f32; 2] {
        let half = self.size_m * 0.5;
        [self.center[0] - half, self.center[1] - half]
    }

    /// Meters between neighbouring samples.
    pub fn cell_size(&self) -> f32 {
        self.size_m / (self.resolution.max(2) - 1) as f32
    }

    /// Whether the grid is consistent (resolution ≥ 2 and `resolution²` heights); the
    /// height functions return 0 for an inconsistent grid.
    pub fn is_valid(&self) -> bool {
        self.resolution >= 2
            && self.heights.len() == self.resolution as usize * self.resolution as usize
    }

    /// Raw height of sample `(i, j)`, clamped to the grid.
    fn sample(&self, i: i64, j: i64) -> f32 {
        let n = i64::from(self.resolution);
        let i = i.clamp(0, n - 1) as usize;
        let j = j.clamp(0, n - 1) as usize;
        self.heights[j * n as usize + i]
    }

    /// Grid coordinates of a point, clamped to the grid: `(i, j, fx, fy)` with the cell's
    /// south-west sample `(i, j)` and the fractions inside it.
    fn locate(&self, x: f32, y: f32) -> (i64, i64, f32, f32) {
        let n = self.resolution as f32;
        let o = self.origin();
        let cell = self.cell_size();
        let gx = ((x - o[0]) / cell).clamp(0.0, n - 1.0);
        let gy = ((y - o[1]) / cell).clamp(0.0, n - 1.0);
        let i = (gx.floor()).min(n - 2.0);
        let j = (gy.floor()).min(n - 2.0);
        (i as i64, j as i64, gx - i, gy - j)
    }

    /// Height in meters (exaggerated) at `(x, y)`, bilinear between the four samples
    /// around it; points outside the square take the height of the nearest edge.
    pub fn height_at(&self, x: f32, y: f32) -> f32 {
        self.raw_height_at(x, y) * self.exaggeration
    }

    /// [`Terrain::height_at`] without the exaggeration: meters as stored.
    pub fn raw_height_at(&self, x: f32, y: f32) -> f32 {
        if !self.is_valid() || !x.is_finite() || !y.is_finite() {
            return 0.0;
        }
        let (i, j, fx, fy) = self.locate(x, y);
        let h00 = self.sample(i, j);
        let h10 = self.sample(i + 1, j);
        let h01 = self.sample(i, j + 1);
        let h11 = self.sample(i + 1, j + 1);
        let a = h00 + (h10 - h00) * fx;
        let b = h01 + (h11 - h01) * fx;
        a + (b - a) * fy
    }

    /// Height (exaggerated) of the drawn, triangulated surface at `(x, y)`: each cell is
    /// split along its south-west → north-east diagonal.
    pub fn surface_at(&self, x: f32, y: f32) -> f32 {
        self.raw_surface_at(x, y) * self.exaggeration
    }

    /// [`Terrain::surface_at`] without the exaggeration.
    pub(crate) fn raw_surface_at(&self, x: f32, y: f32) -> f32 {
        if !self.is_valid() || !x.is_finite() || !y.is_finite() {
            return 0.0;
        }
        let (i, j, fx, fy) = self.locate(x, y);
        let h00 = self.sample(i, j);
        let h11 = self.sample(i + 1, j + 1);
        if fx >= fy {
            let h10 = self.sample(i + 1, j);
            h00 + (h10 - h00) * fx + (h11 - h10) * fy
        } else {
            let h01 = self.sample(i, j + 1);
            h00 + (h01 - h00) * fy + (h11 - h01) * fx
        }
    }

    /// Lowest and highest raw (unexaggerated) heights.
    pub fn height_range(&self) -> (f32, f32) {
        let mut lo = f32::INFINITY;
        let mut hi = f32::NEG_INFINITY;
        for h in &self.heights {
            lo = lo.min(*h);
            hi = hi.max(*h);
        }
        if lo > hi {
            (0.0, 0.0)
        } else {
            (lo, hi)
        }
    }
}

fn sane_size(size_m: f32) -> f32 {
    if size_m.is_finite() && size_m > 1.0 {
        size_m
    } else {
        1.0
    }
}

/// A tiny seeded generator (SplitMix64) so `hills` does not depend on a RNG crate.
struct SplitMix(u64);

impl SplitMix {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_is_zero_everywhere() {
        let t = Terrain::flat(1000.0);
        assert_eq!(t.height_at(10.0, -300.0), 0.0);
        assert_eq!(t.surface_at(499.0, 499.0), 0.0);
        assert_eq!(t.origin(), [-500.0, -500.0]);
    }

    #[test]
    fn hills_are_deterministic_and_bounded() {
        let a = Terrain::hills(2000.0, 40.0, 7);
        let b = Terrain::hills(2000.0, 40.0, 7);
        let c = Terrain::hills(2000.0, 40.0, 8);
        assert_eq!(a, b);
        assert_ne!(a.heights, c.heights);
        let (lo, hi) = a.height_range();
        assert!(lo.abs() < 1e-3 && (hi - 40.0).abs() < 1e-3, "{lo} {hi}");
        // Smooth: neighbouring samples never differ by more than a few meters.
        let n = a.resolution as usize;
        for j in 0..n {
            for i in 1..n {
                let d = (a.heights[j * n + i] - a.heights[j * n + i - 1]).abs();
                assert!(d < 5.0, "step {d} at {i},{j}");
            }
        }
    }

    #[test]
    fn height_functions_agree_on_samples_and_interpolate() {
        let mut t = Terrain::hills(1280.0, 30.0, 3);
        t.exaggeration = 2.0;
        let o = t.origin();
        let cell = t.cell_size();
        let n = t.resolution as usize;
        for (i, j) in [(0usize, 0usize), (5, 9), (64, 64), (128, 128)] {
            let (x, y) = (o[0] + i as f32 * cell, o[1] + j as f32 * cell);
            let want = t.heights[j * n + i] * 2.0;
            assert!((t.height_at(x, y) - want).abs() < 1e-3);
            assert!((t.surface_at(x, y) - want).abs() < 1e-3);
        }
        // The cell centre: bilinear is the mean of the four corners; the surface is the
        // mean of the diagonal's two ends.
        let (i, j) = (10usize, 20usize);
        let h = |a: usize, b: usize| t.heights[b * n + a] * 2.0;
        let (x, y) = (
            o[0] + (i as f32 + 0.5) * cell,
            o[1] + (j as f32 + 0.5) * cell,
        );
        let bil = (h(i, j) + h(i + 1, j) + h(i, j + 1) + h(i + 1, j + 1)) / 4.0;
        let tri = (h(i, j) + h(i + 1, j + 1)) / 2.0;
        assert!((t.height_at(x, y) - bil).abs() < 1e-3);
        assert!((t.surface_at(x, y) - tri).abs() < 1e-3);
        // Outside the square: the nearest edge.
        assert!((t.height_at(o[0] - 100.0, o[1] - 100.0) - h(0, 0)).abs() < 1e-4);
    }

    #[test]
    fn heightmap_rows_start_north_and_scale() {
        // 2x3 map: north row 0, south row 65535.
        let data = [0u16, 0, 32768, 32768, 65535, 65535];
        let t = Terrain::from_heightmap_u16(2, 3, &data, 100.0, 10.0).unwrap();
        assert_eq!(t.resolution, 3);
        assert!((t.height_at(0.0, -50.0) - 10.0).abs() < 1e-3);
        assert!(t.height_at(0.0, 50.0).abs() < 1e-3);
        assert!((t.height_at(0.0, 0.0) - 5.0).abs() < 0.01);
    }

    #[test]
    fn bad_heightmaps_are_errors() {
        assert!(matches!(
            Terrain::from_heightmap_u16(1, 5, &[0; 5], 10.0, 1.0),
            Err(TerrainError::TooSmall { .. })
        ));
        assert!(matches!(
            Terrain::from_heightmap_u16(3, 3, &[0; 8], 10.0, 1.0),
            Err(TerrainError::WrongLength { len: 8, .. })
        ));
        let e = Terrain::from_heightmap_u16(5000, 2, &[], 10.0, 1.0).unwrap_err();
        assert!(e.to_string().contains("at most"));
    }

    #[test]
    fn inconsistent_grid_does_not_panic() {
        let t = Terrain {
            size_m: 10.0,
            resolution: 4,
            heights: vec![1.0; 3],
            exaggeration: 1.0,
            center: [0.0, 0.0],
        };
        assert_eq!(t.height_at(0.0, 0.0), 0.0);
        assert_eq!(t.surface_at(f32::NAN, 0.0), 0.0);
    }
}
