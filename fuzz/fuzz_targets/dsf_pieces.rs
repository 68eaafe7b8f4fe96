//! Any bytes given to the dsf reader in pieces (`parse_parallel` on a large file): never a
//! panic, and the same model, error and warnings as one pass gives.
#![no_main]
use libfuzzer_sys::fuzz_target;
use agview_format::format::dsf;

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("fuzz");
    let (mut one, mut pieces) = (Vec::new(), Vec::new());
    let a = dsf::parse(path, data, &mut one);
    for threads in [2, 3] {
        pieces.clear();
        let b = dsf::parse_in_pieces(path, data, &mut pieces, threads);
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
        assert_eq!(format!("{one:?}"), format!("{pieces:?}"));
    }
});
