//! Any bytes given to the dsf_bin reader: a diagnostic or a model, never a panic. Also read
//! as a stream (as a 7-Zip archive is read) whose declared size, taken from the first two
//! bytes, may be shorter or longer than what the stream holds.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("fuzz");
    let _ = agview_format::format::dsf_bin::parse(path, data, &mut Vec::new());
    if data.len() >= 2 {
        let declared = u64::from(u16::from_le_bytes([data[0], data[1]]));
        let mut stream = &data[2..];
        let _ = agview_format::format::dsf_bin::parse_stream(path, &mut stream, declared, &mut Vec::new());
    }
});
