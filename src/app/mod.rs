//! The user-facing commands beyond the CLI's argument handling: render options shared by the
//! headless render and the window, the interactive viewer and the size sweep.

pub mod camera_control;
pub mod font;
pub mod options;
pub mod panel;
pub mod reload;
pub mod screenshot;
pub mod sweep;
pub mod viewer;
