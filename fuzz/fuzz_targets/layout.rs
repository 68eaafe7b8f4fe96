//! An autogen file that parses, laid out on a rectangle and a seed taken from the input:
//! the layout never panics or loops, whatever the file says.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 10 {
        return;
    }
    let (head, text) = data.split_at(10);
    let path = std::path::Path::new("fuzz.ag");
    let Ok(ag) = agview_format::format::autogen::parse(path, text, &mut Vec::new()) else {
        return;
    };
    let w = 1.0 + f32::from(u16::from_le_bytes([head[0], head[1]])) / 64.0;
    let d = 1.0 + f32::from(u16::from_le_bytes([head[2], head[3]])) / 64.0;
    let input = agview_layout::layout::LayoutInput {
        polygon: Some(vec![vec![[0.0, 0.0], [w, 0.0], [w, d], [0.0, d]]]),
        param: Some(u32::from(u16::from_le_bytes([head[4], head[5]]))),
        seed: u64::from(u32::from_le_bytes([head[6], head[7], head[8], head[9]])),
        ..Default::default()
    };
    let _ = agview_layout::layout::layout(&ag, path, &input);
});
