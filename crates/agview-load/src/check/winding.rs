//! Whether an OBJ8 object's triangles agree with their own normals, as X-Plane needs: its
//! back faces are culled unless `ATTR_no_cull`, so a triangle wound the wrong way shows only
//! from the side its normals point away from.
//!
//! The test (see `docs/spec-decisions.md`): for each culled, non-draped triangle, its front
//! normal (OBJ8 triangles are clockwise seen from the front) is compared with the normals
//! its three vertices store. It disagrees when its front points away from all three (every
//! dot product below zero): the modeller's normals say the other side is the outside.
//! Triangles with a zero-length normal (face or vertex) are not judged. One warning per
//! mesh gives how many disagree and the `TRIS` line of the first. Hangars and towers with
//! modelled interiors pass, since every triangle agrees with its own normals, whichever
//! way it faces the object's centre.

use std::path::Path;

use crate::diag::Diagnostic;
use crate::format::obj8::Obj8;

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

/// A triangle's corners: positions and stored normals.
type Corner = ([f64; 3], [f64; 3]);

/// Whether a triangle (clockwise seen from its front) faces away from all three of its
/// vertex normals; `None` when its face or a vertex normal has no length.
pub(crate) fn disagrees(tri: [Corner; 3]) -> Option<bool> {
    let [(a, na), (b, nb), (c, nc)] = tri;
    // Clockwise from the front: the right-hand normal of a, b, c points backward.
    let front = cross(sub(c, a), sub(b, a));
    let judged = |n: [f64; 3]| {
        let l = dot(n, n);
        l > 0.0 && l.is_finite()
    };
    if !(judged(front) && judged(na) && judged(nb) && judged(nc)) {
        return None;
    }
    Some([na, nb, nc].iter().all(|n| dot(front, *n) < 0.0))
}

/// A warning at the `TRIS` of the first culled triangle that faces away from its own
/// vertex normals, counting all that do; `None` when none does.
pub(crate) fn check_obj8(path: &Path, o: &Obj8) -> Option<Diagnostic> {
    let corner = |i: u32| -> Option<Corner> {
        let v = o.vertices.get(i as usize)?;
        Some((v.pos.map(f64::from), v.normal.map(f64::from)))
    };
    let mut count = 0usize;
    let mut first_line = None;
    for d in o
        .lods
        .iter()
        .flat_map(|l| &l.draws)
        .filter(|d| d.state.cull && !d.draped)
    {
        let start = d.offset as usize;
        let end = start + (d.count as usize - d.count as usize % 3);
        for t in o.indices.get(start..end).unwrap_or(&[]).chunks_exact(3) {
            let (Some(a), Some(b), Some(c)) = (corner(t[0]), corner(t[1]), corner(t[2])) else {
                continue;
            };
            if disagrees([a, b, c]) == Some(true) {
                count += 1;
                first_line.get_or_insert(d.line);
            }
        }
    }
    let line = first_line?;
    Some(Diagnostic::warning_at(
        path,
        line,
        1,
        format!(
            "{count} triangle(s) face away from their own vertex normals, the first in this TRIS; \
             X-Plane culls back faces, so they show only from the other side: reverse their \
             winding (or recompute the normals) in the modeller, or use ATTR_no_cull"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An OBJ8 box (four walls and a roof, no floor) with normals pointing out of it and
    /// an inner room (its walls facing in, as a hangar's interior is modelled), each face a
    /// `TRIS` of its own; the face at `reversed` (if any) has its winding reversed and its
    /// normals kept. `attr` goes before the first `TRIS`.
    fn box_obj(reversed: Option<usize>, attr: &str) -> String {
        let (x, z, h) = (2.0, 3.0, 4.0);
        // Corners counter-clockwise seen from the side the normal points to.
        let outside: [([[f64; 3]; 4], [f64; 3]); 5] = [
            (
                [[-x, 0.0, z], [x, 0.0, z], [x, h, z], [-x, h, z]],
                [0.0, 0.0, 1.0],
            ),
            (
                [[x, 0.0, -z], [-x, 0.0, -z], [-x, h, -z], [x, h, -z]],
                [0.0, 0.0, -1.0],
            ),
            (
                [[x, 0.0, z], [x, 0.0, -z], [x, h, -z], [x, h, z]],
                [1.0, 0.0, 0.0],
            ),
            (
                [[-x, 0.0, -z], [-x, 0.0, z], [-x, h, z], [-x, h, -z]],
                [-1.0, 0.0, 0.0],
            ),
            (
                [[-x, h, z], [x, h, z], [x, h, -z], [-x, h, -z]],
                [0.0, 1.0, 0.0],
            ),
        ];
        // The inner room: the same walls shrunk, facing in (corners reversed, normals
        // turned).
        let inside = outside[..4].iter().map(|(q, n)| {
            let q = q.map(|p| [p[0] * 0.8, p[1] * 0.8, p[2] * 0.8]);
            ([q[3], q[2], q[1], q[0]], n.map(|v| -v))
        });
        let faces: Vec<([[f64; 3]; 4], [f64; 3])> = outside.into_iter().chain(inside).collect();
        let mut s = format!(
            "A\n800\nOBJ\nPOINT_COUNTS {} 0 0 {}\n",
            faces.len() * 4,
            faces.len() * 6
        );
        for (q, n) in &faces {
            for p in q {
                s += &format!(
                    "VT {} {} {} {} {} {} 0 0\n",
                    p[0], p[1], p[2], n[0], n[1], n[2]
                );
            }
        }
        for k in 0..faces.len() as u32 {
            let b = 4 * k;
            // Counter-clockwise seen from the normal's side, so b, b+2, b+1 is clockwise:
            // the front faces the normal.
            let tri = if reversed == Some(k as usize) {
                [b, b + 1, b + 2, b, b + 2, b + 3]
            } else {
                [b, b + 2, b + 1, b, b + 3, b + 2]
            };
            for i in tri {
                s += &format!("IDX {i}\n");
            }
        }
        s += attr;
        s += "\n";
        for k in 0..faces.len() {
            s += &format!("TRIS {} 6\n", k * 6);
        }
        s
    }

    fn check(src: &str) -> Option<String> {
        let path = Path::new("box.obj");
        let o = crate::format::obj8::parse(path, src.as_bytes(), &mut Vec::new()).unwrap();
        check_obj8(path, &o).map(|d| d.to_string())
    }

    /// The line of the `TRIS` of face `k` in [`box_obj`]'s text.
    fn tris_line(src: &str, k: usize) -> usize {
        src.lines()
            .position(|l| l == format!("TRIS {} 6", k * 6))
            .unwrap()
            + 1
    }

    #[test]
    fn a_box_with_an_interior_whose_normals_agree_passes() {
        assert_eq!(check(&box_obj(None, "")), None);
    }

    #[test]
    fn a_face_wound_against_its_normals_is_named() {
        for face in [1, 6] {
            let src = box_obj(Some(face), "");
            let w = check(&src).expect("a warning");
            let line = tris_line(&src, face);
            assert!(
                w.starts_with(&format!(
                    "box.obj:{line}:1: warning: 2 triangle(s) face away from their own vertex normals"
                )),
                "{w}"
            );
        }
        // Two-sided geometry shows either way.
        assert_eq!(check(&box_obj(Some(1), "ATTR_no_cull")), None);
    }

    #[test]
    fn triangles_without_a_normal_are_not_judged() {
        let p = |x: f64, y: f64| [x, y, 0.0];
        let up = [0.0, 0.0, 1.0];
        // Counter-clockwise seen from +z: its front (the side it is clockwise from) faces
        // -z, away from the stored +z normals.
        let against = [(p(0.0, 0.0), up), (p(1.0, 0.0), up), (p(0.0, 1.0), up)];
        assert_eq!(disagrees(against), Some(true));
        let along = [against[0], against[2], against[1]];
        assert_eq!(disagrees(along), Some(false));
        let mut zero = against;
        zero[1].1 = [0.0; 3];
        assert_eq!(disagrees(zero), None);
        let flat = [(p(0.0, 0.0), up), (p(1.0, 0.0), up), (p(2.0, 0.0), up)];
        assert_eq!(disagrees(flat), None);
    }
}
