//! The wgpu renderer (being written).
