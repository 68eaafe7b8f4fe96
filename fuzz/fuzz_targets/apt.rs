//! Any bytes given to the apt.dat reader: a diagnostic or a model, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = agview_format::format::apt::parse(std::path::Path::new("apt.dat"), data, &mut Vec::new());
});
