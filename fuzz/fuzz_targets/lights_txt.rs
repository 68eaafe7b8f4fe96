//! Any text given to the lights.txt reader: a diagnostic or a model, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = agview_format::format::lights_txt::parse(std::path::Path::new("fuzz"), &text, &mut Vec::new());
});
