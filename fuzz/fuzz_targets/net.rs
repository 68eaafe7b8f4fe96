//! Any bytes given to the road network reader, and what the layout and `check` then ask of
//! the model (`choose` at several heights, `validate`, the summary): a diagnostic or a
//! model, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

use agview_format::format::net;

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("fuzz.net");
    let Ok(n) = net::parse(path, data, &mut Vec::new()) else {
        return;
    };
    for &subtype in n.vroads.keys().chain(n.road_types.keys()).take(64) {
        for h in [0.0, 3.0, 10.0, 15.0, 1e6, -1.0, f32::NAN] {
            let _ = n.choose(subtype, h);
        }
        let _ = net::plain_road(subtype);
    }
    let _ = net::validate(path, &n);
    let _ = net::summary(&n);
});
