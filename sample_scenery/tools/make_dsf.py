#!/usr/bin/env python3
"""Writes polygons/town.txt (DSFTool text) as binary DSF, python3 standard library only.

Outputs:
  polygons/town.dsf                       the plain DSF (XPLNEDSF ... MD5 footer)
  Earth nav data/+40+000/+47+008.dsf      the same DSF inside a 7-Zip archive (LZMA), as
                                          X-Plane ships its global scenery

The DSF layout is what xptools' DSFLib reads: HEAD/PROP, DEFN (TERT OBJT POLY NETW),
GEOD with one 16-bit point pool for the objects (lon, lat, heading) and one per polygon
coordinate depth, each with its SCAL (scale, offset) per plane fitted to the points it
holds (the town spans a few hundred meters, so 16 bits keep points to about a centimeter),
then CMDS: SET_DEFINITION_8, POOL_SELECT, OBJECT, POLYGON_RANGE / NESTED_POLYGON_RANGE.
Planes are stored differenced (encoding 1).

Python has no 7-Zip module, so the archive is written by hand: the signature header, one
packed stream (a raw LZMA1 stream from the lzma module), and a plain header with one folder
of one coder (LZMA, id 03 01 01), one file, and CRC32s from zlib.
"""

import hashlib
import lzma
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def read_text(path):
    props, defs, objects, polygons = [], {k: [] for k in ("TERRAIN", "OBJECT", "POLYGON", "NETWORK", "RASTER")}, [], []
    poly = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            kw, _, rest = line.partition(" ")
            args = rest.split()
            if kw == "PROPERTY":
                name, _, value = rest.strip().partition(" ")
                props.append((name, value.strip()))
            elif kw.endswith("_DEF"):
                defs[kw[:-4]].append(rest.strip())
            elif kw == "OBJECT":
                objects.append((int(args[0]), float(args[1]), float(args[2]), float(args[3])))
            elif kw == "BEGIN_POLYGON":
                depth = int(args[2]) if len(args) > 2 else 2
                poly = {"def": int(args[0]), "param": int(args[1]), "depth": depth, "windings": []}
            elif kw == "BEGIN_WINDING":
                poly["windings"].append([])
            elif kw == "POLYGON_POINT":
                poly["windings"][-1].append([float(a) for a in args[: poly["depth"]]])
            elif kw == "END_POLYGON":
                polygons.append(poly)
                poly = None
    return props, defs, objects, polygons


def atom(name, body):
    return name[::-1].encode() + struct.pack("<I", 8 + len(body)) + body


def string_table(strings):
    return b"".join(s.encode() + b"\0" for s in strings)


def fit_scale(lo, hi):
    """float32 (scale, offset) with offset <= lo and offset + scale >= hi."""
    f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
    off = f32(lo)
    while off > lo:
        off = f32(off - abs(off) * 2**-23 - 1e-30)
    sc = f32(max(hi - off, 1e-6))
    while off + sc < hi:
        sc = f32(sc * (1 + 2**-23))
    return sc, off


def pool_atoms(points, depth):
    """POOL and SCAL atoms for a list of points (each `depth` numbers)."""
    planes = [[p[k] for p in points] for k in range(depth)]
    body = struct.pack("<IB", len(points), depth)
    scal = b""
    for vals in planes:
        sc, off = fit_scale(min(vals), max(vals))
        raw = [max(0, min(65535, round((v - off) * 65535.0 / sc))) for v in vals]
        body += b"\x01"  # differenced
        last = 0
        for r in raw:
            body += struct.pack("<H", (r - last) & 0xFFFF)
            last = r
        scal += struct.pack("<ff", sc, off)
    return atom("POOL", body), atom("SCAL", scal)


def build_dsf(props, defs, objects, polygons):
    pools = []  # (points, depth)
    obj_pool = None
    if objects:
        pools.append(([[o[1], o[2], o[3]] for o in objects], 3))
        obj_pool = 0
    poly_pool = {}
    placed = []  # (polygon, pool, first, ends)
    for poly in polygons:
        d = poly["depth"]
        if d not in poly_pool:
            poly_pool[d] = len(pools)
            pools.append(([], d))
        p = poly_pool[d]
        pts = pools[p][0]
        first = len(pts)
        ends = []
        for w in poly["windings"]:
            pts.extend(w)
            ends.append(len(pts))
        assert len(pts) <= 65535 and len(ends) <= 255
        placed.append((poly, p, first, ends))

    cmds = b""
    cur_def = cur_pool = None

    def state(d, p):
        nonlocal cmds, cur_def, cur_pool
        if d != cur_def:
            cmds += struct.pack("<BB", 3, d)  # SET_DEFINITION_8
            cur_def = d
        if p != cur_pool:
            cmds += struct.pack("<BH", 1, p)  # POOL_SELECT
            cur_pool = p

    for i, o in enumerate(objects):
        state(o[0], obj_pool)
        cmds += struct.pack("<BH", 7, i)  # OBJECT
    for poly, p, first, ends in placed:
        state(poly["def"], p)
        if len(ends) == 1:
            cmds += struct.pack("<BHHH", 13, poly["param"], first, ends[0])  # POLYGON_RANGE
        else:  # NESTED_POLYGON_RANGE
            cmds += struct.pack("<BHBH", 15, poly["param"], len(ends), first)
            cmds += b"".join(struct.pack("<H", e) for e in ends)

    geod_pools, geod_scales = b"", b""
    for pts, depth in pools:
        a, s = pool_atoms(pts, depth)
        geod_pools += a
        geod_scales += s
    defn = b"".join(
        atom(name, string_table(defs[key]))
        for name, key in (("TERT", "TERRAIN"), ("OBJT", "OBJECT"), ("POLY", "POLYGON"), ("NETW", "NETWORK"))
    )
    if defs["RASTER"]:
        defn += atom("DEMN", string_table(defs["RASTER"]))
    body = b"XPLNEDSF" + struct.pack("<i", 1)
    body += atom("HEAD", atom("PROP", string_table([s for p in props for s in p])))
    body += atom("DEFN", defn)
    body += atom("GEOD", geod_pools + geod_scales)
    body += atom("CMDS", cmds)
    return body + hashlib.md5(body).digest()


def number(n):
    """A 7z NUMBER: the count of leading 1 bits of the first byte is the count of extra bytes."""
    for extra in range(9):
        if extra == 8 or n < (1 << (7 * (extra + 1))):
            break
    if extra == 8:
        return b"\xff" + struct.pack("<Q", n)
    first = (0xFF << (8 - extra)) & 0xFF
    high = n >> (8 * extra)
    return bytes([first | high]) + n.to_bytes(8, "little")[:extra]


def seven_zip(name, data):
    """A 7z archive holding `data` as the file `name`, LZMA compressed."""
    dict_size = 1 << 20
    packed = lzma.compress(
        data,
        format=lzma.FORMAT_RAW,
        filters=[{"id": lzma.FILTER_LZMA1, "dict_size": dict_size, "lc": 3, "lp": 0, "pb": 2}],
    )
    props = bytes([(2 * 5 + 0) * 9 + 3]) + struct.pack("<I", dict_size)
    header = b"\x01"  # Header
    header += b"\x04"  # MainStreamsInfo
    header += b"\x06" + number(0) + number(1)  # PackInfo: pack pos 0, one stream
    header += b"\x09" + number(len(packed)) + b"\x00"  # its size; end
    header += b"\x07"  # UnpackInfo
    header += b"\x0b" + number(1) + b"\x00"  # Folder: one, not external
    header += number(1)  # one coder
    header += bytes([0x20 | 3]) + b"\x03\x01\x01"  # id size 3, has properties; LZMA
    header += number(len(props)) + props
    header += b"\x0c" + number(len(data))  # CodersUnpackSize
    header += b"\x0a\x01" + struct.pack("<I", zlib.crc32(data))  # CRC, all defined
    header += b"\x00"  # end UnpackInfo
    header += b"\x08\x00"  # SubStreamsInfo: one stream per folder (the default), no more
    header += b"\x00"  # end MainStreamsInfo
    header += b"\x05" + number(1)  # FilesInfo: one file
    names = b"\x00" + (name + "\0").encode("utf-16-le")  # not external, then the name
    header += b"\x11" + number(len(names)) + names
    header += b"\x00"  # end FilesInfo
    header += b"\x00"  # end Header
    start = struct.pack("<QQI", len(packed), len(header), zlib.crc32(header))
    sig = b"7z\xbc\xaf\x27\x1c\x00\x04" + struct.pack("<I", zlib.crc32(start)) + start
    return sig + packed + header


def main():
    props, defs, objects, polygons = read_text(os.path.join(ROOT, "polygons", "town.txt"))
    dsf = build_dsf(props, defs, objects, polygons)
    with open(os.path.join(ROOT, "polygons", "town.dsf"), "wb") as f:
        f.write(dsf)
    out_dir = os.path.join(ROOT, "Earth nav data", "+40+000")
    os.makedirs(out_dir, exist_ok=True)
    archive = seven_zip("+47+008.dsf", dsf)
    with open(os.path.join(out_dir, "+47+008.dsf"), "wb") as f:
        f.write(archive)
    print(f"town.dsf: {len(dsf)} bytes, {len(objects)} objects, {len(polygons)} polygons; "
          f"+47+008.dsf: {len(archive)} bytes (7-Zip, LZMA)")


if __name__ == "__main__":
    main()
