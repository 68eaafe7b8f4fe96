//! Any bytes given to the agn reader: a diagnostic or a model, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = agview_format::format::agn::parse(std::path::Path::new("fuzz"), data, &mut Vec::new());
});
