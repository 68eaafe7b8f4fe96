//! X-Plane object strings (`.str`; `850`, then `OBJECT_STRING`): objects set along a chain
//! at the spacing the DSF parameter gives.
//!
//! Directives (GROUND.md §3): `OFFSET <meters>` (how far to the right of the chain, as one
//! travels along it, the objects stand; negative is left) and `OBJECT <random 1> <random 2>
//! <object>` (the objects alternate along the chain, each heading along the chain plus a
//! clockwise turn between the two numbers). There is no spacing directive: the spacing is
//! the DSF parameter. An unknown directive is a warning (once per keyword), a malformed
//! known one an error at its argument.

use std::collections::HashSet;
use std::path::Path;

use serde::Serialize;

use crate::diag::Diagnostic;
use crate::format::text::{read_header, TextFile};

/// One `OBJECT` of a string.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StringObject {
    /// The turn range, degrees clockwise from the chain's direction.
    pub turn: [f32; 2],
    /// The object as written: a library path or a path relative to the `.str`.
    pub path: String,
    pub line: u32,
}

/// A parsed `.str` file.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct ObjString {
    pub version: u32,
    /// `OFFSET`: meters to the right of the chain (0 when the file gives none).
    pub offset: f32,
    pub objects: Vec<StringObject>,
}

/// Reads a `.str` file.
pub fn parse(
    path: &Path,
    src: &[u8],
    warnings: &mut Vec<Diagnostic>,
) -> Result<ObjString, Diagnostic> {
    let src = crate::format::text::readable(src);
    let mut tf = TextFile::new(path, &src);
    let header = read_header(&mut tf, &[(&[850], "OBJECT_STRING")])?;
    let mut s = ObjString {
        version: header.version,
        ..ObjString::default()
    };
    let mut warned = HashSet::new();
    while let Some(line) = tf.next() {
        let mut line = line?;
        match line.keyword {
            "OFFSET" => {
                s.offset = line.f32("offset")?;
                line.expect_end(warnings);
            }
            "OBJECT" => {
                let turn = [line.f32("random 1")?, line.f32("random 2")?];
                let path = line.rest("object")?.to_string();
                s.objects.push(StringObject {
                    turn,
                    path,
                    line: line.number,
                });
            }
            kw => {
                if warned.insert(kw.to_string()) {
                    warnings.push(line.unknown_directive("object string"));
                }
            }
        }
    }
    if s.objects.is_empty() {
        warnings.push(Diagnostic::warning_at(
            path,
            tf.line_number().max(1),
            1,
            "the object string names no OBJECT; nothing is drawn where it is placed",
        ));
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(src: &str) -> (Result<ObjString, Diagnostic>, Vec<Diagnostic>) {
        let mut w = Vec::new();
        let r = parse(Path::new("fence.str"), src.as_bytes(), &mut w);
        (r, w)
    }

    #[test]
    fn reads_offset_and_objects() {
        let (r, w) = p(
            "A\n850\nOBJECT_STRING\n\nOFFSET -1.5\nOBJECT 0 0 posts/a.obj\n\
                        OBJECT 10 20 lib/b post.obj\nSPACING 4\n",
        );
        let s = r.unwrap();
        assert_eq!(s.offset, -1.5);
        assert_eq!(s.objects.len(), 2);
        assert_eq!(s.objects[1].turn, [10.0, 20.0]);
        assert_eq!(s.objects[1].path, "lib/b post.obj");
        assert_eq!(s.objects[1].line, 7);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0]
            .to_string()
            .contains("fence.str:8:1: warning: unknown object string directive `SPACING`"));
    }

    #[test]
    fn errors_are_located() {
        let (r, _) = p("A\n850\nOBJECT_STRING\nOBJECT 0 x a.obj\n");
        assert!(r.unwrap_err().to_string().contains("fence.str:4:10: error"));
        let (r, _) = p("A\n850\nOBJECT_STRING\nOBJECT 0 0\n");
        assert!(r.unwrap_err().to_string().contains("fence.str:4"));
        let (r, w) = p("A\n850\nOBJECT_STRING\n");
        assert!(r.unwrap().objects.is_empty());
        assert!(w[0].message.contains("names no OBJECT"));
    }
}
