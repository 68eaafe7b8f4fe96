//! Vegetation sections: `PRDE` (in `PREG`), `VGRE` (in `VGRG`), `VGRD` and `VGRO`.

use super::read::*;
use super::*;

pub(super) fn read_fs2004_vegetation(
    r: &Reader,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
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
    f.finish(warnings);
    if !(0..=100).contains(&v.percent_class1) {
        warnings.push(r.warning(
            c.offset,
            format!(
                "VGRD percentage of class 1 is {}, outside 0..=100",
                v.percent_class1
            ),
        ));
    }
    Ok(v)
}

pub(super) fn read_prde(
    r: &Reader,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
) -> Result<VegetationPolygons, Diagnostic> {
    let mut f = Fields::new(r, c);
    let vegetation = f.guid("vegetation GUID")?;
    let mut polygons = Vec::new();
    while f.remaining() > 0 {
        let offset = f.pos;
        let vertices = f.vertices()?;
        if vertices.len() < 4 {
            warnings.push(r.warning(
                offset,
                format!(
                    "{}: polygon at offset {offset} has {} vertices; a closed ring needs at least 4",
                    f.at(),
                    vertices.len()
                ),
            ));
        } else if vertices.first() != vertices.last() {
            warnings.push(r.warning(
                offset,
                format!(
                    "{}: polygon at offset {offset} is not closed (its first and last vertex differ); treated as closed",
                    f.at()
                ),
            ));
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

pub(super) fn read_vgre(r: &Reader, c: Chunk) -> Result<VegetationRects, Diagnostic> {
    let mut f = Fields::new(r, c);
    let vegetation = f.guid("vegetation GUID")?;
    f.expect_records(16, "the vegetation GUID, then rectangles of 4 floats")?;
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
