//! Vegetation sections: `PRDE` (in `PREG`), `VGRE` (in `VGRG`), `VGRD` and `VGRO`.

use super::read::*;
use super::*;

pub(super) fn read_fs2004_vegetation(
    r: &Reader,
    c: Chunk,
    sink: &mut Sink,
) -> Result<Fs2004Vegetation, Diagnostic> {
    let mut f = Fields::new(r, c);
    let v = Fs2004Vegetation {
        offset: c.offset as u64,
        class1: f.i32("vegetation class 1")?,
        class2: f.i32("vegetation class 2")?,
        percent_class1: f.i32("percentage of class 1")?,
        max_density: f.i32("maximum density")?,
        height_class1: [
            f.f32("minimum height of class 1")?,
            f.f32("maximum height of class 1")?,
        ],
        height_class2: [
            f.f32("minimum height of class 2")?,
            f.f32("maximum height of class 2")?,
        ],
    };
    f.finish(sink);
    if !(0..=100).contains(&v.percent_class1) {
        sink.warn("VGRD percentage outside 0..=100", c.offset, || {
            format!(
                "VGRD percentage of class 1 is {}, outside 0..=100; clamped",
                v.percent_class1
            )
        });
    }
    if v.max_density < 0 {
        sink.warn("VGRD negative density", c.offset, || {
            format!("VGRD maximum density is {}; no trees", v.max_density)
        });
    }
    for (k, [lo, hi]) in [(1, v.height_class1), (2, v.height_class2)] {
        if !(lo >= 0.0 && lo <= hi) {
            sink.warn("VGRD height range not ordered", c.offset, || {
                format!(
                    "VGRD heights of class {k} are {lo} to {hi}; a minimum above the maximum, or negative, is read as {} to {}",
                    lo.min(hi).max(0.0),
                    lo.max(hi).max(0.0)
                )
            });
        }
    }
    Ok(v)
}

/// `VGRO`: a whole number of 16-byte rectangles, or the chunk is skipped.
pub(super) fn read_vgro(r: &Reader, c: Chunk) -> Result<Vec<Rect>, Diagnostic> {
    let mut f = Fields::new(r, c);
    f.expect_records(16, "rectangles of 4 floats")?;
    let mut rects = Vec::with_capacity(f.remaining() / 16);
    while f.remaining() > 0 {
        rects.push(f.rect()?);
    }
    Ok(rects)
}

/// `PRDE`: polygons until the chunk ends. A polygon without vertices is left out (counted
/// in a warning): a chunk of millions of empty polygons costs no memory.
pub(super) fn read_prde(
    r: &Reader,
    c: Chunk,
    sink: &mut Sink,
) -> Result<VegetationPolygons, Diagnostic> {
    let mut f = Fields::new(r, c);
    let vegetation = f.guid("vegetation GUID")?;
    let mut polygons = Vec::new();
    while f.remaining() > 0 {
        let offset = f.pos;
        let vertices = f.vertices()?;
        if vertices.len() < 4 {
            sink.warn("PRDE polygon with fewer than 4 vertices", offset, || {
                format!(
                    "{}: polygon at offset {offset} has {} vertices; a closed ring needs at least 4{}",
                    f.at(),
                    vertices.len(),
                    if vertices.len() < 3 { "; skipped" } else { "" }
                )
            });
            if vertices.len() < 3 {
                continue;
            }
        } else if vertices.first() != vertices.last() {
            sink.warn("PRDE polygon not closed", offset, || {
                format!(
                    "{}: polygon at offset {offset} is not closed (its first and last vertex differ); treated as closed",
                    f.at()
                )
            });
        }
        polygons.push(Polygon {
            offset: offset as u64,
            vertices,
        });
    }
    Ok(VegetationPolygons {
        offset: c.offset as u64,
        vegetation,
        polygons,
    })
}

pub(super) fn read_vgre(
    r: &Reader,
    c: Chunk,
    sink: &mut Sink,
) -> Result<VegetationRects, Diagnostic> {
    let mut f = Fields::new(r, c);
    let vegetation = f.guid("vegetation GUID")?;
    f.expect_records(16, "the vegetation GUID, then rectangles of 4 floats")?;
    if f.remaining() == 0 {
        sink.warn("VGRE without rectangles", c.offset, || {
            format!("{}: a vegetation GUID and no rectangles", f.at())
        });
    }
    let mut rects = Vec::with_capacity(f.remaining() / 16);
    while f.remaining() > 0 {
        rects.push(f.rect()?);
    }
    Ok(VegetationRects {
        offset: c.offset as u64,
        vegetation,
        rects,
    })
}
