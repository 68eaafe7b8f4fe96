//! Checks made once the whole autogen file is read, so that rules may come before the tiles
//! they name: the directives each kind requires, and that every reference (object and facade
//! indices, `USE_GRID`, spelling columns and rows, tile ids of string rules, groups) names
//! something the file defines. A broken reference is an error at the line and column that
//! holds it; what can still be drawn (trees without a forest, unknown groups, a string
//! without spellings) is a warning.

use std::path::Path;

use super::{AnnotationKind, Autogen, AutogenKind, StringRules};
use crate::diag::Diagnostic;
use crate::format::text::TextFile;

/// Checks `ag`, read from `path`, as a whole. The first broken rule is the error; warnings go
/// to `warnings`. `tf` is the file as read, for diagnostics at its end.
pub(super) fn check(
    ag: &Autogen,
    path: &Path,
    index_refs: &[(bool, usize, u32, u32)],
    tf: &TextFile<'_>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), Diagnostic> {
    required(ag, tf)?;
    art_indices(ag, path, index_refs)?;
    trees_without_vegetation(ag, path, warnings);
    spelling_sets(ag, path)?;
    if let Some(s) = &ag.string {
        string_rules(ag, s, path, tf, warnings)?;
    }
    Ok(())
}

/// The directives every file of its kind must have: `TEXTURE_SCALE`, `TEXTURE_WIDTH`, and
/// at least one tile (AGP, AGS) or one grid and one spelling set (AGB).
fn required(ag: &Autogen, tf: &TextFile<'_>) -> Result<(), Diagnostic> {
    if ag.texture_scale.is_none() {
        return Err(tf.error_at_end(
            "TEXTURE_SCALE is required (the texture size in pixels that tile coordinates use)",
        ));
    }
    if ag.texture_width.is_none() {
        return Err(
            tf.error_at_end("TEXTURE_WIDTH is required (the meters the texture width maps to)")
        );
    }
    match ag.kind {
        AutogenKind::Agp | AutogenKind::Ags if ag.tiles.is_empty() => {
            return Err(tf.error_at_end(format!(
                "an {} must define at least one TILE",
                ag.kind.header_name()
            )));
        }
        AutogenKind::Agb if ag.grids.is_empty() => {
            return Err(tf.error_at_end(
                "an AG_BLOCK must define at least one grid (CUT_H/CUT_V … END_CUTS)",
            ));
        }
        AutogenKind::Agb if ag.spelling_sets.is_empty() => {
            return Err(tf.error_at_end("an AG_BLOCK must define at least one SPELLING_SET"));
        }
        _ => {}
    }
    Ok(())
}

/// Object and facade indices name loaded art. `index_refs` holds (object?, index, line,
/// column) of each annotation whose index was past the declarations when it was read.
fn art_indices(
    ag: &Autogen,
    path: &Path,
    index_refs: &[(bool, usize, u32, u32)],
) -> Result<(), Diagnostic> {
    for &(is_obj, index, line, col) in index_refs {
        let (n, what) = if is_obj {
            (ag.objects.len(), "OBJECT")
        } else {
            (ag.facades.len(), "FACADE")
        };
        if index >= n {
            return Err(Diagnostic::error_at(
                path,
                line,
                col,
                format!("index {index} names no {what}: the file loads {n} {what} file(s) (indices from 0)"),
            ));
        }
    }
    Ok(())
}

/// Trees without a `VEGETATION` to draw them with are a warning, once, at the first tree.
fn trees_without_vegetation(ag: &Autogen, path: &Path, warnings: &mut Vec<Diagnostic>) {
    if ag.vegetation.is_none() {
        let tree_line = ag
            .tiles
            .iter()
            .flat_map(|t| &t.annotations)
            .chain(ag.grids.iter().flat_map(|g| &g.annotations))
            .find(|a| {
                matches!(
                    a.kind,
                    AnnotationKind::Tree { .. } | AnnotationKind::TreeLine { .. }
                )
            })
            .map(|a| a.line);
        if let Some(line) = tree_line {
            warnings.push(Diagnostic::warning_at(
                path,
                line,
                1,
                "trees are placed but no VEGETATION (.for) is loaded; they show as placeholders",
            ));
        }
    }
}

/// Spelling sets: the grid exists, spellings exist in both directions and name real
/// columns and rows.
fn spelling_sets(ag: &Autogen, path: &Path) -> Result<(), Diagnostic> {
    for set in &ag.spelling_sets {
        let Some(grid) = ag.grids.get(set.grid) else {
            let (line, col) = set.grid_at.unwrap_or((set.line, 1));
            return Err(Diagnostic::error_at(
                path,
                line,
                col,
                format!(
                    "USE_GRID {} is past the last grid: the file defines {} grid(s) (indices from 0)",
                    set.grid,
                    ag.grids.len()
                ),
            ));
        };
        if set.spellings_s.is_empty() || set.spellings_t.is_empty() {
            let missing = if set.spellings_s.is_empty() {
                "SPELLING_S"
            } else {
                "SPELLING_T"
            };
            return Err(Diagnostic::error_at(
                path,
                set.line,
                1,
                format!("SPELLING_SET {} has no {missing}: a set needs at least one spelling in each direction", set.param),
            ));
        }
        for (list, n, what) in [
            (&set.spellings_s, grid.columns.len(), "column"),
            (&set.spellings_t, grid.rows.len(), "row"),
        ] {
            for sp in list {
                for (k, &i) in sp.indices.iter().enumerate() {
                    if i >= n {
                        return Err(Diagnostic::error_at(
                            path,
                            sp.line,
                            sp.cols.get(k).copied().unwrap_or(1),
                            format!(
                                "spelling names {what} {i}, but grid {} has {n} {what}s (indices from 0)",
                                set.grid
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// String rules name real tiles; a group a rule needs is defined by a `GROUP` line; a string
/// without any `SPELLING` is a warning.
fn string_rules(
    ag: &Autogen,
    s: &StringRules,
    path: &Path,
    tf: &TextFile<'_>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(), Diagnostic> {
    let ids: Vec<i64> = ag.tiles.iter().map(|t| t.id).collect();
    let names_tiles = |tiles: &[i64], cols: &[u32], line: u32, what: &str| {
        for (k, id) in tiles.iter().enumerate() {
            if !ids.contains(id) {
                return Err(Diagnostic::error_at(
                    path,
                    line,
                    cols.get(k).copied().unwrap_or(1),
                    format!("{what} names tile {id}, but no tile has that id (TILE_ID, or the tile's index in file order)"),
                ));
            }
        }
        Ok(())
    };
    for g in &s.groups {
        names_tiles(&g.tiles, &g.tile_cols, g.line, "GROUP")?;
    }
    for c in &s.corners {
        names_tiles(&c.tiles, &c.tile_cols, c.line, "corner rule")?;
    }
    for sp in &s.spellings {
        names_tiles(&sp.tiles, &sp.tile_cols, sp.line, "spelling")?;
    }
    for (id, &(line, col)) in s.caps.iter().zip(&s.caps_at) {
        names_tiles(&[*id], &[col], line, "CAPS")?;
    }
    let groups: Vec<u32> = s.groups.iter().map(|g| g.id).collect();
    let used = s.corners.iter().map(|c| (c.group, c.line)).chain(
        s.spellings
            .iter()
            .filter_map(|sp| sp.atomic.map(|a| (a.group, sp.line))),
    );
    let mut unknown = Vec::new();
    for (g, line) in used {
        if g != 0 && !groups.contains(&g) {
            unknown.push(Diagnostic::warning_at(
                path,
                line,
                1,
                format!(
                    "group {g} is not defined by any GROUP line; the rule can only start a side"
                ),
            ));
        }
    }
    warnings.extend(unknown);
    if s.spellings.is_empty() {
        warnings.push(Diagnostic::warning_at(
            path,
            tf.line_number().max(1),
            1,
            "the string defines no SPELLING: sides will have corners and caps only",
        ));
    }
    Ok(())
}
