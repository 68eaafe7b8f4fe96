//! Building sections: `VERS`, `GBDD`, `GBTE` / `RHTE`, `GBLR` (in `GBLD`), `ROWH`, `PBDE`
//! (in `PBLD`).

use super::read::*;
use super::*;

pub(super) fn read_version(r: &Reader, c: Chunk, sink: &mut Sink) -> Result<Version, Diagnostic> {
    let mut f = Fields::new(r, c);
    let value = f.i32("version")?;
    f.finish(sink);
    if value != FSX_VERSION {
        sink.warn("unusual VERS", c.offset, || {
            format!("VERS is {value}, FSX files have {FSX_VERSION}; reading on")
        });
    }
    Ok(Version {
        offset: c.offset as u64,
        value,
    })
}

pub(super) fn read_weights(
    r: &Reader,
    c: Chunk,
    sink: &mut Sink,
) -> Result<BuildingWeights, Diagnostic> {
    let mut f = Fields::new(r, c);
    let mut weights = [0; 4];
    for (w, (lo, hi)) in weights.iter_mut().zip(BuildingWeights::FLOORS) {
        let pos = f.pos;
        *w = f.i32(format_args!("weight of {lo}-{hi} floor buildings"))?;
        if !(0..=WEIGHT_FULL).contains(w) {
            let w = *w;
            sink.warn("GBDD weight outside 0..=20", pos, || {
                format!("GBDD weight of {lo}-{hi} floor buildings is {w}, outside 0..=20; clamped")
            });
        }
    }
    f.finish(sink);
    Ok(BuildingWeights {
        offset: c.offset as u64,
        weights,
    })
}

pub(super) fn read_texture(r: &Reader, c: Chunk, sink: &mut Sink) -> TextureName {
    let raw = &r.bytes[c.start..c.end];
    let len = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    let text = &raw[..len];
    if !text.is_ascii() {
        sink.warn("texture name not ASCII", c.start, || {
            format!("{} texture name is not ASCII", c.name())
        });
    }
    if text.is_empty() {
        sink.warn("texture chunk without a name", c.offset, || {
            format!("{} chunk at offset {} names no texture", c.name(), c.offset)
        });
    }
    TextureName {
        offset: c.offset as u64,
        name: String::from_utf8_lossy(text).into_owned(),
    }
}

pub(super) fn read_gblr(
    r: &Reader,
    c: Chunk,
    sink: &mut Sink,
) -> Result<GenericBuildings, Diagnostic> {
    let mut f = Fields::new(r, c);
    let roof = f.guid("roof GUID")?;
    f.expect_records(24, "the roof GUID, then buildings of 6 floats")?;
    if f.remaining() == 0 {
        sink.warn("GBLR without buildings", c.offset, || {
            format!("{}: a roof GUID and no buildings", f.at())
        });
    }
    let mut buildings = Vec::with_capacity(f.remaining() / 24);
    while f.remaining() > 0 {
        buildings.push(f.footprint("building")?);
    }
    Ok(GenericBuildings {
        offset: c.offset as u64,
        roof,
        buildings,
    })
}

/// `ROWH`: a whole number of 24-byte row houses, or the chunk is skipped.
pub(super) fn read_rowh(r: &Reader, c: Chunk) -> Result<Vec<Footprint>, Diagnostic> {
    let mut f = Fields::new(r, c);
    f.expect_records(24, "row houses of 6 floats")?;
    let mut rows = Vec::with_capacity(f.remaining() / 24);
    while f.remaining() > 0 {
        rows.push(f.footprint("row house")?);
    }
    Ok(rows)
}

/// `PBDE`: buildings until the chunk ends. One without vertices is left out (counted in a
/// warning), so that a chunk of millions of empty records costs no memory.
pub(super) fn read_pbde(
    r: &Reader,
    c: Chunk,
    sink: &mut Sink,
) -> Result<PolygonBuildings, Diagnostic> {
    let mut f = Fields::new(r, c);
    let building = f.guid("building GUID")?;
    let mut buildings = Vec::new();
    while f.remaining() > 0 {
        let offset = f.pos;
        let kind = f.i32("building flag")?;
        if kind != 1 {
            sink.warn("PBDE building flag not 1", offset, || {
                format!("{}: building flag is {kind}, files have 1", f.at())
            });
        }
        let width = f.f32("extrusion width")?;
        let vertices = f.vertices()?;
        if vertices.len() < 2 {
            sink.warn("PBDE building with fewer than 2 vertices", offset, || {
                format!(
                    "{}: building at offset {offset} has {} vertices, fewer than 2; skipped",
                    f.at(),
                    vertices.len()
                )
            });
            continue;
        }
        let closed = vertices.len() > 3 && vertices.first() == vertices.last();
        if width <= 0.0 && !closed {
            sink.warn("PBDE width not positive", offset + 4, || {
                format!("{}: extrusion width {width} is not positive", f.at())
            });
        }
        buildings.push(PolygonBuilding {
            offset: offset as u64,
            kind,
            width,
            vertices,
        });
    }
    Ok(PolygonBuildings {
        offset: c.offset as u64,
        building,
        buildings,
    })
}
