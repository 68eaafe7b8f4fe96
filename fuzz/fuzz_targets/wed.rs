//! Any bytes given to the WED reader, and what it read given to the exporter and the
//! airport reader: a diagnostic or a model, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("fuzz");
    let mut w = Vec::new();
    if let Ok(project) = agview_format::format::wed::parse(path, data, &mut w) {
        let _ = agview_format::format::wed::export(&project, path, &mut w);
        let _ = agview_format::format::wed::airports(&project, path, &mut w);
    }
});
