//! Whether an OBJ8 object's triangles face out of it, as X-Plane needs them to: its back
//! faces are culled unless `ATTR_no_cull`, so a mesh exported with the wrong winding shows
//! only from inside.
//!
//! The test (see `docs/spec-decisions.md`): the culled, non-draped triangles are split into
//! parts (triangles joined by corners at the same position), and each triangle's front
//! normal (OBJ8 triangles are clockwise seen from the front) is compared with the direction
//! from the centre of its part's bounding box to the triangle's centre. A triangle whose
//! normal points toward the centre faces inward. Parts keep a thin pole beside a wide lamp
//! head from counting the pole's near side as inward. Triangles whose normal is nearly across
//! that direction (|cos| < [`DECISIVE_COS`], such as a flat ground plate through the
//! centre) say nothing and are left out. When more than [`INWARD_SHARE`] of the rest, by
//! area, face inward, the object is reported. Unlike a signed volume, this works on the
//! open meshes most scenery objects are (walls without a floor, single-sided signs).

use std::collections::HashMap;
use std::path::Path;

use crate::diag::Diagnostic;
use crate::format::obj8::Obj8;

/// Below this |cosine| between a triangle's normal and the direction from the centre, the
/// triangle is neither inward nor outward.
const DECISIVE_COS: f64 = 0.1;
/// The share of the decisive area facing inward above which an object is reported.
const INWARD_SHARE: f64 = 0.5;

/// Areas of decisive triangles facing out of and into the mesh.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Facing {
    pub outward: f64,
    pub inward: f64,
}

impl Facing {
    /// The inward share of the decisive area; `None` when no triangle is decisive.
    pub fn inward_share(&self) -> Option<f64> {
        let total = self.outward + self.inward;
        (total > 0.0).then(|| self.inward / total)
    }
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// How triangles (clockwise seen from their front) face relative to `centre`.
pub fn facing(centre: [f64; 3], triangles: impl IntoIterator<Item = [[f64; 3]; 3]>) -> Facing {
    let mut f = Facing::default();
    for [a, b, c] in triangles {
        // Clockwise from the front: the right-hand normal of a, b, c points backward.
        let n = cross(sub(c, a), sub(b, a));
        let twice_area = dot(n, n).sqrt();
        let mid = [
            (a[0] + b[0] + c[0]) / 3.0,
            (a[1] + b[1] + c[1]) / 3.0,
            (a[2] + b[2] + c[2]) / 3.0,
        ];
        let d = sub(mid, centre);
        let len = dot(d, d).sqrt();
        if !(twice_area > 0.0 && len > 0.0 && twice_area.is_finite() && len.is_finite()) {
            continue;
        }
        let cos = dot(n, d) / (twice_area * len);
        if cos >= DECISIVE_COS {
            f.outward += twice_area * 0.5;
        } else if cos <= -DECISIVE_COS {
            f.inward += twice_area * 0.5;
        }
    }
    f
}

/// The triangles grouped into parts: two triangles are in one part when they share a
/// corner position (to a tenth of a millimetre), whatever their vertex indices.
fn parts(tris: &[[[f64; 3]; 3]]) -> Vec<Vec<usize>> {
    fn find(up: &mut [usize], mut i: usize) -> usize {
        while up[i] != i {
            up[i] = up[up[i]];
            i = up[i];
        }
        i
    }
    let mut up: Vec<usize> = (0..tris.len()).collect();
    let mut first_at: HashMap<[i64; 3], usize> = HashMap::new();
    for (t, tri) in tris.iter().enumerate() {
        for p in tri {
            let key = p.map(|v| (v * 1e4).round() as i64);
            let other = *first_at.entry(key).or_insert(t);
            let (a, b) = (find(&mut up, t), find(&mut up, other));
            up[a] = b;
        }
    }
    let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
    for t in 0..tris.len() {
        let root = find(&mut up, t);
        groups.entry(root).or_default().push(t);
    }
    let mut out: Vec<Vec<usize>> = groups.into_values().collect();
    out.sort();
    out
}

/// A warning at the first culled `TRIS` of an object whose culled triangles mostly face
/// inward; `None` when they do not (or there are none).
pub fn check_obj8(path: &Path, o: &Obj8) -> Option<Diagnostic> {
    let draws: Vec<_> = o
        .lods
        .iter()
        .flat_map(|l| &l.draws)
        .filter(|d| d.state.cull && !d.draped)
        .collect();
    let first = draws.first()?;
    let pos = |i: u32| -> Option<[f64; 3]> {
        let v = o.vertices.get(i as usize)?;
        Some(v.pos.map(f64::from))
    };
    let triangles = || {
        draws.iter().flat_map(move |d| {
            let start = d.offset as usize;
            let end = start + (d.count as usize - d.count as usize % 3);
            o.indices
                .get(start..end)
                .unwrap_or(&[])
                .chunks_exact(3)
                .filter_map(move |t| Some([pos(t[0])?, pos(t[1])?, pos(t[2])?]))
        })
    };
    let tris: Vec<[[f64; 3]; 3]> = triangles().collect();
    let mut total = Facing::default();
    for part in parts(&tris) {
        let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
        for &t in &part {
            for p in tris[t] {
                for k in 0..3 {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                }
            }
        }
        let centre = [0, 1, 2].map(|k| (lo[k] + hi[k]) * 0.5);
        let f = facing(centre, part.iter().map(|&t| tris[t]));
        total.outward += f.outward;
        total.inward += f.inward;
    }
    let share = total.inward_share()?;
    (share > INWARD_SHARE).then(|| {
        Diagnostic::warning_at(
            path,
            first.line,
            1,
            format!(
                "most of this object's triangles ({:.0}% by area) face in toward its centre; \
                 X-Plane culls back faces, so they show only from inside: reverse their \
                 winding (flip the normals in the modeller) or use ATTR_no_cull",
                share * 100.0
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An OBJ8 box (four walls and a roof, no floor), clockwise from outside when
    /// `outward`, else reversed; `attr` goes before the `TRIS`.
    fn box_obj(outward: bool, attr: &str) -> String {
        let (x, z, h) = (2.0, 3.0, 4.0);
        let faces = [
            [[-x, 0.0, z], [x, 0.0, z], [x, h, z], [-x, h, z]],
            [[x, 0.0, -z], [-x, 0.0, -z], [-x, h, -z], [x, h, -z]],
            [[x, 0.0, z], [x, 0.0, -z], [x, h, -z], [x, h, z]],
            [[-x, 0.0, -z], [-x, 0.0, z], [-x, h, z], [-x, h, -z]],
            [[-x, h, z], [x, h, z], [x, h, -z], [-x, h, -z]],
        ];
        let mut s = String::from("A\n800\nOBJ\nPOINT_COUNTS 20 0 0 30\n");
        for f in faces {
            for p in f {
                s += &format!("VT {} {} {} 0 1 0 0 0\n", p[0], p[1], p[2]);
            }
        }
        for k in 0..5u32 {
            let b = 4 * k;
            // These corners run counter-clockwise seen from outside.
            let tri = if outward {
                [b, b + 2, b + 1, b, b + 3, b + 2]
            } else {
                [b, b + 1, b + 2, b, b + 2, b + 3]
            };
            for i in tri {
                s += &format!("IDX {i}\n");
            }
        }
        s + attr + "\nTRIS 0 30\n"
    }

    fn check(src: &str) -> Option<String> {
        let path = Path::new("box.obj");
        let o = crate::format::obj8::parse(path, src.as_bytes(), &mut Vec::new()).unwrap();
        check_obj8(path, &o).map(|d| d.to_string())
    }

    #[test]
    fn an_inside_out_box_is_reported_at_its_tris() {
        assert_eq!(check(&box_obj(true, "")), None);
        let w = check(&box_obj(false, "")).expect("a warning");
        assert!(
            w.starts_with("box.obj:56:1: warning: most of this object's triangles (100% by area)"),
            "{w}"
        );
        // Two-sided geometry shows either way.
        assert_eq!(check(&box_obj(false, "ATTR_no_cull")), None);
    }

    #[test]
    fn parts_join_triangles_by_corner_position_not_index() {
        // A box whose faces have vertices of their own is one part; a second box apart from
        // it is another (a pole beside a lamp head is judged by its own centre: the sample
        // street lamp).
        let src = box_obj(true, "");
        let o = crate::format::obj8::parse(Path::new("b.obj"), src.as_bytes(), &mut Vec::new())
            .unwrap();
        let pos = |i: u32| o.vertices[i as usize].pos.map(f64::from);
        let mut tris: Vec<[[f64; 3]; 3]> = o
            .indices
            .chunks_exact(3)
            .map(|t| [pos(t[0]), pos(t[1]), pos(t[2])])
            .collect();
        assert_eq!(parts(&tris).len(), 1);
        let moved: Vec<_> = tris
            .iter()
            .map(|t| t.map(|p| [p[0] + 10.0, p[1], p[2]]))
            .collect();
        tris.extend(moved);
        assert_eq!(parts(&tris).len(), 2);
    }

    #[test]
    fn flat_and_mixed_meshes_are_judged_by_area() {
        let tri = |a: [f64; 3], b: [f64; 3], c: [f64; 3]| [a, b, c];
        // A ground plate through the centre says nothing.
        let plate = [tri([0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0])];
        assert_eq!(facing([0.5, 0.0, 0.5], plate).inward_share(), None);
        // A roof above the centre, clockwise from above: outward; reversed: inward.
        let up = tri([0.0, 1.0, 0.0], [0.0, 1.0, -1.0], [1.0, 1.0, 0.0]);
        let f = facing([0.0; 3], [up]);
        assert!(f.outward > 0.0 && f.inward == 0.0, "{f:?}");
        let down = tri(up[0], up[2], up[1]);
        // One big inward triangle outweighs a small outward one.
        let small = tri([0.0, 1.0, 0.0], [0.0, 1.0, -0.1], [0.1, 1.0, 0.0]);
        let big = down.map(|p| p.map(|v| v * 3.0));
        let share = facing([0.0; 3], [small, big]).inward_share().unwrap();
        assert!(share > 0.95, "{share}");
    }
}
