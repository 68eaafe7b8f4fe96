#!/usr/bin/env python3
"""Checks the sample scenery against the rules its README promises, independently
of agview's own readers. Exit status 0 when everything holds.

  python3 sample_scenery/tools/check_scenery.py

Checks: headers; every path resolves (relative to the file, or through
library.txt) except the one deliberately missing in broken/; annotations lie
inside their tile (AGP, AGS) or grid (AGB); object and facade indices are in
range; CROP_POLY is convex and clockwise; FAC rings are clockwise; show levels
are 1..6; AGB cuts increase and spellings index real columns and rows; AGS
spellings and corners name real tile ids; OBJ8 counts, index ranges and
clockwise winding against the stored normals; forest rectangles inside the
texture; GeoJSON and DSF winding orders and parameters; textures' sizes; the
folder stays under 6 MB.
"""

import json
import math
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
errors = []


def err(path, line, msg):
    errors.append("%s:%s: %s" % (os.path.relpath(path, ROOT), line, msg))


def lines(path):
    """(line number, tokens) of non-blank, non-comment lines."""
    out = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            tok = raw.split("#")[0].split() if not raw.lstrip().startswith("#") else []
            if tok:
                out.append((n, tok))
    return out


def header(path, versions, kind, first=("A", "I")):
    ls = lines(path)
    if len(ls) < 3 or ls[0][1][0] not in first or ls[1][1][0] not in versions or ls[2][1][0] != kind:
        err(path, 1, "bad header, expected %s / %s / %s" % ("|".join(first), "|".join(versions), kind))
    return ls[3:]


# --------------------------------------------------------------------- library
LIBRARY = {}


def load_library():
    path = os.path.join(ROOT, "library.txt")
    for n, t in header(path, ("800",), "LIBRARY"):
        if t[0] == "EXPORT":
            LIBRARY.setdefault(t[1], []).append(t[2])
            if not os.path.exists(os.path.join(ROOT, t[2])):
                err(path, n, "EXPORT target %s does not exist" % t[2])


def resolve(from_file, ref, base=None):
    """A path as X-Plane resolves it: a file relative to `base` (the referring
    file's folder unless given), else a library path."""
    base = base or os.path.dirname(from_file)
    p = os.path.normpath(os.path.join(base, ref))
    if os.path.exists(p):
        return p
    if ref in LIBRARY:
        return os.path.join(ROOT, LIBRARY[ref][0])
    return None


# --------------------------------------------------------------------- geometry
def signed_area(pts):
    s = 0.0
    for i, (x0, y0) in enumerate(pts):
        x1, y1 = pts[(i + 1) % len(pts)]
        s += x0 * y1 - x1 * y0
    return s / 2


def convex(pts):
    sign = 0
    for i in range(len(pts)):
        a, b, c = pts[i], pts[(i + 1) % len(pts)], pts[(i + 2) % len(pts)]
        z = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0])
        if z:
            if sign and (z > 0) != (sign > 0):
                return False
            sign = z
    return True


def inside(rect, s, t):
    s0, t0, s1, t1 = rect
    return s0 <= s <= s1 and t0 <= t <= t1


def pairs(vals):
    return list(zip(vals[0::2], vals[1::2]))


# --------------------------------------------------------------------- autogen
def check_autogen(path, allow_missing=()):
    kind = {".agp": "AG_POINT", ".agb": "AG_BLOCK", ".ags": "AG_STRING"}[os.path.splitext(path)[1]]
    body = header(path, ("1000",), kind)
    objects, facades, scale, width = [], [], None, None
    tile = None  # current tile rect (AGP/AGS) or grid rect (AGB)
    tile_ids, next_id, pending_id = [], 0, None
    grids, cuts_h, cuts_v, in_cuts = [], [], [], False
    named, sets = {}, []
    last_corner_tiles = 0
    has_tile = False
    edges = {}
    for n, t in body:
        k, a = t[0], t[1:]
        try:
            v = [float(x) for x in a]
        except ValueError:
            v = []
        if k == "TEXTURE_SCALE":
            scale = (v[0], v[1])
        elif k == "TEXTURE_WIDTH":
            width = v[0]
        elif k in ("TEXTURE", "VEGETATION", "OBJECT", "FACADE"):
            r = resolve(path, a[0])
            if r is None and a[0] not in allow_missing:
                err(path, n, "%s %s does not resolve" % (k, a[0]))
            if k == "OBJECT":
                objects.append(a[0])
            if k == "FACADE":
                facades.append(a[0])
        elif k == "TILE_ID":
            pending_id = int(a[0])
        elif k == "TILE":
            tile = tuple(v[:4])
            has_tile = True
            if not (0 <= tile[0] < tile[2] <= scale[0] and 0 <= tile[1] < tile[3] <= scale[1]):
                err(path, n, "TILE outside TEXTURE_SCALE or empty")
            tid = pending_id if pending_id is not None else next_id
            if tid in tile_ids:
                err(path, n, "duplicate tile id %d" % tid)
            tile_ids.append(tid)
            next_id, pending_id = tid + 1, None
        elif k == "SUB_GRID":
            cuts_h, cuts_v, in_cuts = [], [], True
        elif k in ("CUT_H", "CUT_V"):
            lst = cuts_h if k == "CUT_H" else cuts_v
            if lst and v[0] <= lst[-1]:
                err(path, n, "%s not increasing" % k)
            lst.append(v[0])
        elif k == "END_CUTS":
            if len(cuts_h) < 2 or len(cuts_v) < 2:
                err(path, n, "a grid needs at least two cuts each way")
            tile = (cuts_h[0], cuts_v[0], cuts_h[-1], cuts_v[-1])
            grids.append((len(cuts_h) - 1, len(cuts_v) - 1))
            has_tile = True
            in_cuts = False
        elif k in ("EDGE_MIN", "EDGE_BEST", "EDGE_MAX"):
            # pixel positions whose insets from the grid's outer cuts matter (docs/spec-decisions.md)
            edges[k] = v[:4]
            if not (tile[0] <= v[0] < v[2] <= tile[2] and tile[1] <= v[1] < v[3] <= tile[3]):
                err(path, n, "%s is not a rectangle inside the grid" % k)
            if len(edges) == 3:
                mn, bs, mx = edges["EDGE_MIN"], edges["EDGE_BEST"], edges["EDGE_MAX"]
                if not (mx[0] <= bs[0] <= mn[0] and mx[1] <= bs[1] <= mn[1]
                        and mn[2] <= bs[2] <= mx[2] and mn[3] <= bs[3] <= mx[3]):
                    err(path, n, "EDGE_MAX must contain EDGE_BEST, which must contain EDGE_MIN")
                edges = {}
        elif k in ("OBJ_DRAPED", "OBJ_GRADED", "OBJ_DELTA", "OBJ_SCRAPER"):
            fixed = {"OBJ_DRAPED": 4, "OBJ_GRADED": 4, "OBJ_DELTA": 5, "OBJ_SCRAPER": 7}[k]
            idx = int(v[4] if k == "OBJ_DELTA" else v[3])
            if not 0 <= idx < len(objects):
                err(path, n, "object index %d out of range (%d objects)" % (idx, len(objects)))
            if not inside(tile, v[0], v[1]):
                err(path, n, "annotation at %g,%g outside its tile %s" % (v[0], v[1], tile))
            rest = v[fixed:]
            if rest:
                if len(rest) != 2 or not (1 <= rest[0] <= rest[1] <= 6):
                    err(path, n, "show levels must be lo hi in 1..6")
        elif k == "FAC":
            idx = int(v[0])
            if not 0 <= idx < len(facades):
                err(path, n, "facade index %d out of range" % idx)
            ring = pairs(v[2:])
            if signed_area(ring) >= 0:
                err(path, n, "FAC points must be clockwise")
            for s, tt in ring:
                if not inside(tile, s, tt):
                    err(path, n, "FAC point %g,%g outside its tile" % (s, tt))
        elif k == "CROP_POLY":
            ring = pairs(v)
            if len(ring) < 3 or signed_area(ring) >= 0 or not convex(ring):
                err(path, n, "CROP_POLY must be a clockwise convex polygon")
            for s, tt in ring:
                if not inside(tile, s, tt):
                    err(path, n, "CROP_POLY point outside the tile")
        elif k in ("TREE", "ANCHOR_PT", "GROUND_PT", "STOP_PT", "PIVOT_LEAD_PT", "PIVOT_TRAIL_PT"):
            if not inside(tile, v[0], v[1]):
                err(path, n, "%s %g,%g outside its tile" % (k, v[0], v[1]))
        elif k == "TREE_LINE":
            for s, tt in pairs(v[:4]):
                if not inside(tile, s, tt):
                    err(path, n, "TREE_LINE end outside its tile")
        elif k == "DEFINE_SPELLING_S":
            named[a[0]] = [int(x) for x in a[1:]]
        elif k == "SPELLING_SET":
            sets.append({"grid": 0, "s": [], "t": [], "line": n})
        elif k == "USE_GRID":
            sets[-1]["grid"] = int(v[0])
        elif k == "SPELLING_S":
            sets[-1]["s"].append([int(x) for x in v])
        elif k == "USE_SPELLING_S":
            if a[0] not in named:
                err(path, n, "spelling %s used before it is defined" % a[0])
            else:
                sets[-1]["s"].append(named[a[0]])
        elif k == "SPELLING_T":
            sets[-1]["t"].append([int(x) for x in v])
        elif k in ("SPELLING", "CAPS"):
            for x in v:
                if int(x) not in tile_ids:
                    err(path, n, "tile id %d is not defined" % int(x))
        elif k == "ATOMIC_SPELLING":
            for x in v[3:]:
                if int(x) not in tile_ids:
                    err(path, n, "tile id %d is not defined" % int(x))
        elif k == "GROUP":
            if v[0] <= 0:
                err(path, n, "group ids must be positive")
            for x in v[1:]:
                if int(x) not in tile_ids:
                    err(path, n, "tile id %d is not defined" % int(x))
        elif k in ("CORNER", "CORNER_LEN", "ATOMIC_SPELLING_CORNER", "CORNER_PAIR"):
            first = {"CORNER": 2, "CORNER_LEN": 7, "ATOMIC_SPELLING_CORNER": 7, "CORNER_PAIR": 7}[k]
            ids = [int(x) for x in v[first:]]
            if len(ids) not in (1, 3):
                err(path, n, "a corner has one or three tiles")
            for x in ids:
                if x not in tile_ids:
                    err(path, n, "tile id %d is not defined" % x)
            last_corner_tiles = len(ids)
        elif k == "CORNER_ORDER":
            if last_corner_tiles != 3 or sorted(int(x) for x in v) != [0, 1, 2]:
                err(path, n, "CORNER_ORDER must follow a three-tile corner and permute 0 1 2")
    if scale is None or width is None:
        err(path, 1, "TEXTURE_SCALE and TEXTURE_WIDTH are both required")
    if not has_tile:
        err(path, 1, "no TILE or grid")
    for s in sets:
        if not 0 <= s["grid"] < len(grids):
            err(path, s["line"], "USE_GRID %d out of range" % s["grid"])
            continue
        cols, rows = grids[s["grid"]]
        for sp in s["s"]:
            if any(not 0 <= x < cols for x in sp):
                err(path, s["line"], "SPELLING_S %s has a column outside grid %d" % (sp, s["grid"]))
        for sp in s["t"]:
            if any(not 0 <= x < rows for x in sp):
                err(path, s["line"], "SPELLING_T %s has a row outside grid %d" % (sp, s["grid"]))
        if not s["s"] or not s["t"]:
            err(path, s["line"], "spelling set without S or T spellings")


# --------------------------------------------------------------------- OBJ8
def check_obj(path):
    body = header(path, ("800",), "OBJ")
    verts, idx, counts, tris, tex = [], [], None, [], None
    for n, t in body:
        k = t[0]
        if k == "TEXTURE":
            tex = t[1]
            if resolve(path, t[1]) is None:
                err(path, n, "texture %s missing" % t[1])
        elif k == "POINT_COUNTS":
            counts = [int(x) for x in t[1:5]]
        elif k == "VT":
            verts.append([float(x) for x in t[1:9]])
        elif k in ("IDX10", "IDX"):
            idx += [int(x) for x in t[1:]]
        elif k == "TRIS":
            tris.append((int(t[1]), int(t[2]), n))
    if counts is None or counts[0] != len(verts) or counts[3] != len(idx):
        err(path, 1, "POINT_COUNTS does not match the data")
    if any(not 0 <= i < len(verts) for i in idx):
        err(path, 1, "index out of range")
    for first, count, n in tris:
        if first < 0 or count % 3 or first + count > len(idx):
            err(path, n, "TRIS range outside the index list")
    bad = 0
    for k in range(0, len(idx) - 2, 3):
        a, b, c = (verts[i] for i in idx[k:k + 3])
        # clockwise seen from the front: the right-handed normal of (a, c, b) points out
        u = [c[j] - a[j] for j in range(3)]
        w = [b[j] - a[j] for j in range(3)]
        nrm = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
        if sum(nrm[j] * a[3 + j] for j in range(3)) <= 0:
            bad += 1
    if bad:
        err(path, 1, "%d triangles are not clockwise against their normals" % bad)
    for v in verts:
        if abs(math.sqrt(v[3] ** 2 + v[4] ** 2 + v[5] ** 2) - 1) > 1e-3 or not (0 <= v[6] <= 1 and 0 <= v[7] <= 1):
            err(path, 1, "normal not unit length or UV outside 0..1")
            break
    return tex, len(idx) // 3


# --------------------------------------------------------------------- FOR, FAC
def check_forest(path):
    body = header(path, ("800", "1000", "1200"), "FOREST")
    sx = sy = None
    for n, t in body:
        if t[0] == "TEXTURE" and resolve(path, t[1]) is None:
            err(path, n, "texture missing")
        elif t[0] == "SCALE_X":
            sx = float(t[1])
        elif t[0] == "SCALE_Y":
            sy = float(t[1])
        elif t[0] == "TREE":
            s, tt, w, h, off = (float(x) for x in t[1:6])
            if s < 0 or tt < 0 or s + w > sx or tt + h > sy or not 0 <= off <= w:
                err(path, n, "tree rectangle outside the texture")


def check_facade(path):
    for n, t in header(path, ("800", "1000"), "FACADE"):
        if t[0] == "TEXTURE" and resolve(path, t[1]) is None:
            err(path, n, "texture missing")


# --------------------------------------------------------------------- polygons
def check_geojson(path, want_vertices=None):
    data = json.load(open(path))
    for f in data["features"]:
        rings = f["geometry"]["coordinates"]
        for i, r in enumerate(rings):
            if r[0] != r[-1]:
                err(path, f["properties"]["name"], "ring %d not closed" % i)
            a = signed_area(r[:-1])
            if (i == 0) != (a > 0):
                err(path, f["properties"]["name"], "ring %d has the wrong winding" % i)
        p = f["properties"]
        if p["param"] >> 8 != round(p["height"] / 4):
            err(path, p["name"], "param high byte is not height/4")
        if want_vertices and not want_vertices[0] <= len(rings[0]) - 1 <= want_vertices[1]:
            err(path, p["name"], "outer ring has %d vertices" % (len(rings[0]) - 1))
        if resolve(path, p["asset"]) is None:
            err(path, p["name"], "asset does not resolve")


def check_dsf(path):
    body = header(path, ("800",), "DSF2TEXT")
    obj_defs, pol_defs = [], []
    windings, cur, poly = [], None, None
    for n, t in body:
        k = t[0]
        if k in ("OBJECT_DEF", "POLYGON_DEF"):
            if resolve(path, t[1], base=ROOT) is None:
                err(path, n, "%s %s does not resolve from the package root" % (k, t[1]))
            (obj_defs if k == "OBJECT_DEF" else pol_defs).append(t[1])
        elif k == "OBJECT":
            if not 0 <= int(t[1]) < len(obj_defs):
                err(path, n, "object definition index out of range")
        elif k == "BEGIN_POLYGON":
            poly = (int(t[1]), int(t[2]), n)
            windings = []
            if not 0 <= poly[0] < len(pol_defs):
                err(path, n, "polygon definition index out of range")
        elif k == "BEGIN_WINDING":
            cur = []
        elif k == "POLYGON_POINT":
            cur.append((float(t[1]), float(t[2])))
        elif k == "END_WINDING":
            windings.append(cur)
        elif k == "END_POLYGON":
            asset = pol_defs[poly[0]]
            if asset.endswith(".agb"):
                if len(windings) != 1 or len(windings[0]) != 4 or signed_area(windings[0]) <= 0:
                    err(path, poly[2], "an AGB polygon is one counter-clockwise four-point winding")
            else:
                low = poly[1] & 255
                if low > len(windings):
                    err(path, poly[2], "low byte counts more tile-spawning windings than there are")
                for i, w in enumerate(windings):
                    if w[0] != w[-1]:
                        err(path, poly[2], "AGS winding %d is not closed" % i)
                    if (i == 0) != (signed_area(w[:-1]) > 0):
                        err(path, poly[2], "AGS winding %d has the wrong winding order" % i)


# --------------------------------------------------------------------- textures
def check_textures():
    from PIL import Image

    tex = os.path.join(ROOT, "textures")
    want = {"buildings.png": (1024, 512), "ground_block.png": (1024, 512), "ground_plaza.png": (1024, 512),
            "ground_string.png": (1024, 256), "trees.png": (512, 512), "facade_brick.png": (512, 512),
            "props.png": (512, 512)}
    for name, size in want.items():
        im = Image.open(os.path.join(tex, name))
        if im.size != size:
            err(os.path.join(tex, name), 0, "size %s, expected %s" % (im.size, size))
    for name, fourcc in (("kiosk.dds", b"DXT5"), ("car.dds", b"DXT1")):
        p = os.path.join(tex, name)
        d = open(p, "rb").read()
        h, w = struct.unpack("<II", d[12:20])
        mips = struct.unpack("<I", d[28:32])[0]
        bb = 8 if fourcc == b"DXT1" else 16
        size = 128
        for lv in range(mips):
            size += max(1, (max(1, w >> lv) + 3) // 4) * max(1, (max(1, h >> lv) + 3) // 4) * bb
        if d[:4] != b"DDS " or d[84:88] != fourcc or w % 4 or h % 4:
            err(p, 0, "not a %s DDS with sizes multiple of 4" % fourcc.decode())
        if mips != int(math.log2(max(w, h))) + 1 or size != len(d):
            err(p, 0, "mip chain incomplete or file size wrong")


def main():
    load_library()
    for sub in ("autogen",):
        for f in sorted(os.listdir(os.path.join(ROOT, sub))):
            check_autogen(os.path.join(ROOT, sub, f))
    check_autogen(os.path.join(ROOT, "broken", "missing_art.agp"), allow_missing=("../objects/does_not_exist.obj",))
    for f in sorted(os.listdir(os.path.join(ROOT, "objects"))):
        tex, ntri = check_obj(os.path.join(ROOT, "objects", f))
        if not 12 <= ntri <= 600:
            err(os.path.join(ROOT, "objects", f), 0, "%d triangles" % ntri)
    check_forest(os.path.join(ROOT, "forests", "trees.for"))
    check_facade(os.path.join(ROOT, "facades", "brick.fac"))
    check_geojson(os.path.join(ROOT, "polygons", "block_100x80.geojson"))
    check_geojson(os.path.join(ROOT, "polygons", "lakeside.geojson"), want_vertices=(20, 40))
    check_dsf(os.path.join(ROOT, "polygons", "town.txt"))
    check_textures()
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(ROOT) for f in fs)
    if total > 6 * 1024 * 1024:
        err(ROOT, 0, "folder is %d bytes, over 6 MB" % total)
    for e in errors:
        print(e)
    print("%d problem(s); sample_scenery is %.2f MB" % (len(errors), total / 1048576))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
