//! Wavefront `.obj` meshes, read through the `tobj` crate. They share the `.obj` extension
//! with X-Plane objects; [`super::obj8::is_obj8`] tells the two apart by the X-Plane header.
//! Texture names resolve as in the X-Plane assets ([`super::obj8::join_name`]).

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::format::obj8::join_name;
use crate::format::text::{parse_f32, TextFile};

/// One mesh of a Wavefront file, triangulated, with one index for all attributes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WavefrontMesh {
    pub name: String,
    pub positions: Vec<[f32; 3]>,
    /// Empty when the file has no normals for this mesh.
    pub normals: Vec<[f32; 3]>,
    /// Empty when the file has no texture coordinates for this mesh.
    pub texcoords: Vec<[f32; 2]>,
    /// Counter-clockwise triangles, as Wavefront writes them.
    pub indices: Vec<u32>,
    /// `map_Kd` of the mesh's material, relative to the `.mtl` file's directory.
    pub diffuse_texture: Option<PathBuf>,
}

/// A Wavefront `.obj` file read through `tobj`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Wavefront {
    pub meshes: Vec<WavefrontMesh>,
}

/// Reads a Wavefront `.obj` through `tobj` (triangulated, single index). Materials come from
/// the `mtllib` files beside it; only their names and `map_Kd` are read. A missing `.mtl` is
/// a warning.
///
/// Before `tobj` sees the text, every `v`/`vt`/`vn` number is checked to be finite and every
/// face index to be in range, so that errors carry a line and column (and so that no index
/// can overflow `tobj`'s arithmetic).
pub fn parse_wavefront(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<Wavefront, Diagnostic> {
    check_wavefront(path, src)?;
    let dir = path.parent().unwrap_or_else(|| Path::new("")).to_path_buf();
    let missing_mtl: RefCell<Vec<PathBuf>> = RefCell::new(Vec::new());
    let loader = |p: &Path| -> tobj::MTLLoadResult {
        let full = join_name(&dir, &p.to_string_lossy());
        match std::fs::read(&full) {
            Ok(bytes) => read_mtl(&bytes),
            Err(_) => {
                missing_mtl.borrow_mut().push(full);
                Err(tobj::LoadError::OpenFileFailed)
            }
        }
    };
    let opts = tobj::LoadOptions {
        single_index: true,
        triangulate: true,
        ignore_points: true,
        ignore_lines: true,
    };
    // `check_wavefront` rules out the inputs known to panic inside `tobj`; the guard is for
    // any that remain, so that no file can take the program down.
    // `tobj` ends lines at `\n` (and strips the `\r` of a `\r\n`): a bare `\r` is made a `\n`
    // for it, so that a classic Mac file reads as its `check_wavefront` lines.
    let src = crate::lines::bare_cr_as_lf(src);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tobj::load_obj_buf(&mut std::io::Cursor::new(&*src), &opts, loader)
    }));
    let (models, materials) = match result {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            return Err(Diagnostic::error_file(
                path,
                format!("Wavefront OBJ could not be read: {e}"),
            ))
        }
        Err(_) => {
            return Err(Diagnostic::error_file(
                path,
                "Wavefront OBJ could not be read (the reader failed on this file)",
            ))
        }
    };
    for m in missing_mtl.take() {
        warnings.push(Diagnostic::warning_file(
            path,
            format!(
                "material library {} not found; meshes are untextured",
                m.display()
            ),
        ));
    }
    let materials = materials.unwrap_or_default();
    let mut meshes = Vec::with_capacity(models.len());
    for m in models {
        let mesh = m.mesh;
        let nverts = mesh.positions.len() / 3;
        let positions: Vec<[f32; 3]> = mesh
            .positions
            .chunks_exact(3)
            .map(|c| [c[0], c[1], c[2]])
            .collect();
        let normals: Vec<[f32; 3]> = if mesh.normals.len() == nverts * 3 {
            mesh.normals
                .chunks_exact(3)
                .map(|c| [c[0], c[1], c[2]])
                .collect()
        } else {
            Vec::new()
        };
        let texcoords: Vec<[f32; 2]> = if mesh.texcoords.len() == nverts * 2 {
            mesh.texcoords
                .chunks_exact(2)
                .map(|c| [c[0], c[1]])
                .collect()
        } else {
            Vec::new()
        };
        if let Some(&bad) = mesh.indices.iter().find(|&&i| i as usize >= nverts) {
            return Err(Diagnostic::error_file(
                path,
                format!(
                    "Wavefront mesh `{}`: index {bad} past its {nverts} vertices",
                    m.name
                ),
            ));
        }
        let diffuse_texture = mesh
            .material_id
            .and_then(|id| materials.get(id))
            .and_then(|mat| mat.diffuse_texture.as_deref())
            .map(|t| join_name(&dir, t));
        meshes.push(WavefrontMesh {
            name: m.name,
            positions,
            normals,
            texcoords,
            indices: mesh.indices,
            diffuse_texture,
        });
    }
    Ok(Wavefront { meshes })
}

/// Reads the names and `map_Kd` of a `.mtl` file; everything else is ignored. The texture
/// is the last word of `map_Kd`, after any options. The two kinds of lines are rewritten in
/// a plain form and handed to `tobj` (which builds its own material type), so that none of
/// the other lines can trip its parser.
fn read_mtl(bytes: &[u8]) -> tobj::MTLLoadResult {
    let text = String::from_utf8_lossy(bytes);
    let mut clean = String::new();
    for line in crate::lines::lines(&text) {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("newmtl") => {
                let name = words.collect::<Vec<_>>().join(" ");
                let name = if name.is_empty() {
                    "(unnamed)".to_string()
                } else {
                    name
                };
                clean.push_str(&format!("newmtl {name}\n"));
            }
            Some("map_Kd") => {
                if let Some(tex) = words.last() {
                    clean.push_str(&format!("map_Kd {tex}\n"));
                }
            }
            _ => {}
        }
    }
    tobj::load_mtl_buf(&mut clean.as_bytes())
}

/// Checks what `tobj` would accept silently or stumble on: non-finite numbers and face
/// indices that are 0 or point outside the lists read so far.
fn check_wavefront(path: &Path, src: &[u8]) -> Result<(), Diagnostic> {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(path, &src);
    let mut counts = [0i64; 3]; // v, vt, vn
    while let Some(line) = tf.next() {
        let mut line = line?;
        let kw = line.keyword;
        match kw {
            "v" | "vt" | "vn" => {
                let slot = match kw {
                    "v" => 0,
                    "vt" => 1,
                    _ => 2,
                };
                counts[slot] += 1;
                let need = if kw == "vt" { 1 } else { 3 };
                let mut n = 0;
                while let Some((tok, col)) = line.next_token() {
                    if parse_f32(tok).is_none() {
                        return Err(line.error(
                            col,
                            format!("{kw}: expected a finite number, found `{tok}`"),
                        ));
                    }
                    n += 1;
                }
                if n < need {
                    return Err(
                        line.error_kw(format!("{kw}: expected at least {need} numbers, found {n}"))
                    );
                }
            }
            "f" | "l" | "p" => {
                while let Some((tok, col)) = line.next_token() {
                    for (k, part) in tok.split('/').enumerate() {
                        if part.is_empty() {
                            continue;
                        }
                        let what = ["vertex", "texture coordinate", "normal"];
                        let (Some(name), Some(&n)) = (what.get(k), counts.get(k)) else {
                            return Err(line.error(col, format!("{kw}: too many `/` in `{tok}`")));
                        };
                        let i: i64 = part
                            .parse()
                            .map_err(|_| line.error(col, format!("{kw}: bad index `{tok}`")))?;
                        let ok = if i > 0 {
                            i <= n.max(0) + (1 << 31)
                        } else {
                            i < 0 && -i <= n
                        };
                        if !ok || i == 0 {
                            return Err(line.error(
                                col,
                                format!(
                                    "{kw}: {name} index {i} out of range ({n} defined so far; Wavefront counts from 1)"
                                ),
                            ));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAVEFRONT: &str = "# cube side\nmtllib side.mtl\no Side\nv -1 0 0\nv 1 0 0\nv 1 2 0\nv -1 2 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\nusemtl brick\nf 1/1/1 2/2/1 3/3/1 4/4/1\n";

    #[test]
    fn reads_wavefront_with_a_material() {
        let dir = std::env::temp_dir().join(format!("agview-obj8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("side.mtl"),
            "newmtl brick\nKd 1 1 1\nmap_Kd -bm 1 tex/brick.png\n",
        )
        .unwrap();
        let mut w = Vec::new();
        let obj = parse_wavefront(&dir.join("side.obj"), WAVEFRONT.as_bytes(), &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(obj.meshes.len(), 1);
        let m = &obj.meshes[0];
        assert_eq!(m.positions.len(), 4);
        assert_eq!(m.indices.len(), 6);
        assert_eq!(m.normals.len(), 4);
        assert_eq!(m.texcoords[2], [1.0, 1.0]);
        assert_eq!(
            m.diffuse_texture.as_deref(),
            Some(dir.join("tex/brick.png").as_path())
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn wavefront_missing_mtl_is_a_warning() {
        let mut w = Vec::new();
        let obj = parse_wavefront(
            Path::new("/nonexistent/side.obj"),
            WAVEFRONT.as_bytes(),
            &mut w,
        )
        .unwrap();
        assert_eq!(obj.meshes[0].diffuse_texture, None);
        assert_eq!(w.len(), 1);
        assert!(w[0].message.contains("side.mtl not found"), "{}", w[0]);
    }

    #[test]
    fn wavefront_bad_inputs_are_located() {
        let e = |s: &str| {
            parse_wavefront(Path::new("w.obj"), s.as_bytes(), &mut Vec::new())
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            e("v 0 nan 0\n"),
            "w.obj:1:5: error: v: expected a finite number, found `nan`"
        );
        assert!(e("v 0 0\n").contains("1:1: error: v: expected at least 3 numbers"));
        assert!(e("v 0 0 0\nf 1 0 1\n").contains("2:5: error: f: vertex index 0 out of range"));
        assert!(e("v 0 0 0\nvt 0 0\nf 1/0 1/1 1/1\n").contains("texture coordinate index 0"));
        assert!(e("v 0 0 0\nf -2 1 1\n").contains("vertex index -2 out of range"));
        assert!(e("v 0 0 0\nf 1/1/1/1 1 1\n").contains("too many `/`"));
        assert!(e("v 0 0 0\nf 1 1 99999999999999999999\n").contains("bad index"));
        assert!(e("v 0 0 0\nf 1 1 5\n").contains("could not be read"));
    }

    #[test]
    fn wavefront_never_panics_on_any_prefix() {
        let mut w = Vec::new();
        for end in 0..=WAVEFRONT.len() {
            let _ = parse_wavefront(
                Path::new("/nonexistent/w.obj"),
                &WAVEFRONT.as_bytes()[..end],
                &mut w,
            );
        }
    }
}
