//! glTF's axes: metres, Y up, X east and Z south (as OBJ8), the origin at the framing
//! centre ([`agview_mesh::Framing::center`]: the middle of the framed rectangle, on the
//! ground there). The scene's frame is metres east (x) and north (y) of its own origin,
//! heights up (z), as drawn (terrain exaggeration included).

/// The scene frame seen from the framing centre.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Axes {
    /// The framing centre in the scene frame: metres east, north and up.
    pub centre: [f32; 3],
}

impl Axes {
    pub fn at(centre: [f32; 3]) -> Self {
        let sane = |v: f32| if v.is_finite() { v } else { 0.0 };
        Axes {
            centre: centre.map(sane),
        }
    }

    /// A point of the scene frame (east, north, up) in glTF's axes.
    pub fn point(&self, east: f32, north: f32, up: f32) -> [f32; 3] {
        let [x, y, z] = self.centre;
        [east - x, up - z, -(north - y)]
    }
}

/// A direction of the scene frame (east, north, up) in glTF's axes.
pub fn direction(v: [f32; 3]) -> [f32; 3] {
    [v[0], v[2], -v[1]]
}

/// The rotation (quaternion x, y, z, w) of a heading in radians clockwise from north:
/// OBJ8's and a tree's local axes are glTF's, turned about Y (up) by minus the heading
/// (`object.wgsl`'s turn).
pub fn heading_rotation(heading: f32) -> [f32; 4] {
    let h = if heading.is_finite() { heading } else { 0.0 };
    let (s, c) = (-h * 0.5).sin_cos();
    [0.0, s, 0.0, c]
}
