//! Network decoding: a binary DSF whose 32-bit pool and command stream come from the bytes
//! (two bytes give the pool atom's length, then the pool, then the commands), with a
//! network definition, a scale atom of 8 planes (lon and lat scaled, z scaled about -1,
//! junction ids raw) and a 16-bit pool to select. A diagnostic or segments, never a panic;
//! every segment has its junction at both ends.
#![no_main]
use agview_format::format::dsf_bin::write::{atom, finish, scale_atom, string_table};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let n = usize::from(u16::from_le_bytes([data[0], data[1]])).min(data.len() - 2);
    let (pool, cmds) = data[2..].split_at(n);
    let mut defn = atom(b"TERT", &string_table::<&str>(&[]));
    defn.extend(atom(b"OBJT", &string_table(&["a.obj"])));
    defn.extend(atom(b"POLY", &string_table::<&str>(&[])));
    defn.extend(atom(b"NETW", &string_table(&["lib/g10/roads.net"])));
    let scales = [
        (1.0, 8.0),
        (1.0, 47.0),
        (6.0, -1.0),
        (0.0, 0.0),
        (1.0, 8.0),
        (1.0, 47.0),
        (6.0, -1.0),
        (0.0, 0.0),
    ];
    let mut geod = atom(b"PO32", pool);
    geod.extend(scale_atom(b"SC32", &scales));
    let bytes = finish(&[
        atom(b"HEAD", &atom(b"PROP", &string_table(&["sim/west", "8"]))),
        atom(b"DEFN", &defn),
        atom(b"GEOD", &geod),
        atom(b"CMDS", cmds),
    ]);
    let path = std::path::Path::new("fuzz");
    if let Ok(d) = agview_format::format::dsf_bin::parse(path, &bytes, &mut Vec::new()) {
        for s in &d.segments {
            assert!(s.points.len() >= 2);
            assert!(s.nodes[0] != 0 && s.nodes[1] != 0);
            assert!(s.def < d.network_defs.len());
            if let Some(c) = &s.ctrl {
                assert_eq!(c.len(), s.points.len());
            }
        }
    }
});
