//! Building sections: `VERS`, `GBDD`, `GBTE` / `RHTE`, `GBLR` (in `GBLD`), `ROWH`, `PBDE`
//! (in `PBLD`).

use super::read::*;
use super::*;

pub(super) fn read_version(
    r: &Reader,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Version, Diagnostic> {
    let mut f = Fields::new(r, c);
    let value = f.i32("version")?;
    f.finish(warnings);
    if value != FSX_VERSION {
        warnings.push(r.warning(
            c.offset,
            format!("VERS is {value}, FSX files have {FSX_VERSION}; reading on"),
        ));
    }
    Ok(Version {
        offset: c.offset as u64,
        value,
    })
}

pub(super) fn read_weights(
    r: &Reader,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
) -> Result<BuildingWeights, Diagnostic> {
    let mut f = Fields::new(r, c);
    let mut weights = [0; 4];
    for (w, (lo, hi)) in weights.iter_mut().zip(BuildingWeights::FLOORS) {
        let pos = f.pos;
        *w = f.i32(&format!("weight of {lo}-{hi} floor buildings"))?;
        if !(0..=WEIGHT_FULL).contains(w) {
            warnings.push(r.warning(
                pos,
                format!("GBDD weight of {lo}-{hi} floor buildings is {w}, outside 0..=20; clamped"),
            ));
        }
    }
    f.finish(warnings);
    Ok(BuildingWeights {
        offset: c.offset as u64,
        weights,
    })
}

pub(super) fn read_texture(r: &Reader, c: Chunk, warnings: &mut Vec<Diagnostic>) -> TextureName {
    let raw = &r.bytes[c.start..c.end];
    let len = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    let text = &raw[..len];
    if !text.is_ascii() {
        warnings.push(r.warning(c.start, format!("{} texture name is not ASCII", c.name())));
    }
    if text.is_empty() {
        warnings.push(r.warning(
            c.offset,
            format!("{} chunk at offset {} names no texture", c.name(), c.offset),
        ));
    }
    TextureName {
        offset: c.offset as u64,
        name: String::from_utf8_lossy(text).into_owned(),
    }
}

pub(super) fn read_gblr(r: &Reader, c: Chunk) -> Result<GenericBuildings, Diagnostic> {
    let mut f = Fields::new(r, c);
    let roof = f.guid("roof GUID")?;
    f.expect_records(24, "the roof GUID, then buildings of 6 floats")?;
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

pub(super) fn read_pbde(
    r: &Reader,
    c: Chunk,
    warnings: &mut Vec<Diagnostic>,
) -> Result<PolygonBuildings, Diagnostic> {
    let mut f = Fields::new(r, c);
    let building = f.guid("building GUID")?;
    let mut buildings = Vec::new();
    while f.remaining() > 0 {
        let offset = f.pos;
        let kind = f.i32("building flag")?;
        if kind != 1 {
            warnings.push(r.warning(
                offset,
                format!("{}: building flag is {kind}, files have 1", f.at()),
            ));
        }
        let width = f.f32("extrusion width")?;
        if width <= 0.0 {
            warnings.push(r.warning(
                offset + 4,
                format!("{}: extrusion width {width} is not positive", f.at()),
            ));
        }
        let vertices = f.vertices()?;
        if vertices.len() < 2 {
            warnings.push(r.warning(
                offset,
                format!(
                    "{}: building at offset {offset} has {} vertices, fewer than 2",
                    f.at(),
                    vertices.len()
                ),
            ));
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
