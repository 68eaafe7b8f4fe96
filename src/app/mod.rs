//! The user-facing commands beyond the CLI's argument handling: render options shared by the
//! headless render and the window, the interactive viewer, the size sweep and the tile bench.

pub mod bench_edit;
pub mod bench_tile;
pub mod camera_control;
pub mod compare;
pub mod drag_preview;
pub mod export;
pub mod features;
pub mod font;
pub mod layout_args;
pub mod options;
pub mod panel;
pub mod progress;
pub mod reload;
pub mod report;
pub mod screenshot;
pub mod settings;
pub mod sweep;
pub mod viewer;
