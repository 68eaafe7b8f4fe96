//! Library objects: `A2GE` (in `AGN2`).

use super::read::*;
use super::*;

pub(super) fn read_a2ge(
    r: &Reader,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Option<LibraryObject>, Diagnostic> {
    let three = match c.size() {
        32 => false,
        40 => true,
        other => {
            warnings.push(r.warning(
                c.offset,
                format!(
                    "A2GE chunk at offset {} has size {other}; only 32 (GUID + 2 points) and 40 (GUID + 3 points) are known: skipped",
                    c.offset
                ),
            ));
            return Ok(None);
        }
    };
    let mut f = Fields::new(r, c);
    Ok(Some(LibraryObject {
        offset: c.offset as u64,
        guid: f.guid("library object GUID")?,
        start: f.point("first point")?,
        to_second: f.point("direction to the second point")?,
        to_third: if three {
            Some(f.point("offset to the third point")?)
        } else {
            None
        },
    }))
}
