//! The user-facing commands beyond the CLI's argument handling: render options shared by the
//! headless render and the window.

pub mod options;
