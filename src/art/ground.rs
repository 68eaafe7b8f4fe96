//! Ground art: the place for what X-Plane drapes on the terrain from a DSF or a WED project:
//! draped polygons and orthophotos (`.pol`), painted lines (`.lin`), object strings (`.str`)
//! and airport pavement. Nothing is loaded here yet; each kind arrives as the other kinds of
//! this stage did (see `docs/architecture.md`, "Where a new format goes"):
//! - its reader in `src/format/` gives a typed asset with spans;
//! - a `load_*` function here turns it into plain CPU-side art, resolving its textures
//!   through the same [`super::ImagePool`] (so a texture shared with objects is decoded
//!   once), and becomes a placeholder and a warning when the file is missing or broken;
//! - its list in [`super::ArtSet`] is parallel to a reference list of the
//!   [`crate::scene::Scene`], and [`super::load_art_set`] fills it;
//! - the renderer draws it in the ground order of `src/render/draped.rs`, where autogen tiles
//!   and OBJ8 draped parts already share one order by layer group.
