#!/usr/bin/env python3
"""Writes the polygons the sample autogen is laid out on:

  polygons/block_100x80.geojson   two AGB blocks (a near-rectangle and a trapezoid)
  polygons/lakeside.geojson       the AGS town-around-a-lake polygon with its lake hole
  polygons/town.txt               a DSF text file (DSFTool format) placing all of it

The shapes are designed in meters in a local frame (x east, y north) and turned
into longitude/latitude with a flat-earth approximation around ORIGIN, good to a
few centimetres over the ~1 km the town covers:
    lat = lat0 + y / 111132.95
    lon = lon0 + x / (111319.49 * cos(lat0))
The place is real (the edge of Titisee-Neustadt in the Black Forest, DSF tile
+47+008); the town is made up.

Run:  python3 sample_scenery/tools/make_polygons.py   (prints the corner angles)
"""

import json
import math
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "polygons")

ORIGIN = (47.9000, 8.1500)  # lat, lon of local (0, 0)
M_PER_DEG_LAT = 111132.95
M_PER_DEG_LON = 111319.49 * math.cos(math.radians(ORIGIN[0]))


def to_lonlat(p):
    x, y = p
    return (round(ORIGIN[1] + x / M_PER_DEG_LON, 8), round(ORIGIN[0] + y / M_PER_DEG_LAT, 8))


def area(ring):
    """Signed area (positive = counter-clockwise) of an open ring."""
    s = 0.0
    for i, (x0, y0) in enumerate(ring):
        x1, y1 = ring[(i + 1) % len(ring)]
        s += x0 * y1 - x1 * y0
    return s / 2


def turn_angles(ring):
    """Turn at each vertex in the AGS convention: walking the ring, a left turn
    (a convex corner of a counter-clockwise ring) is negative, a right turn positive."""
    out = []
    n = len(ring)
    for i in range(n):
        a, b, c = ring[i - 1], ring[i], ring[(i + 1) % n]
        h1 = math.atan2(b[1] - a[1], b[0] - a[0])
        h2 = math.atan2(c[1] - b[1], c[0] - b[0])
        d = math.degrees(h2 - h1)
        while d > 180:
            d -= 360
        while d <= -180:
            d += 360
        out.append(-d)
    return out


def seg_len(a, b):
    return math.hypot(b[0] - a[0], b[1] - a[1])


def offset(p, u, v, a, b):
    return (p[0] + a * u[0] + b * v[0], p[1] + a * u[1] + b * v[1])


# ----------------------------------------------------------------- AGB blocks
def block_100x80():
    """Front side 100 m long, 15 degrees north of east; 80 m deep; the back corners
    pushed out a little so no angle is exactly 90 degrees. Counter-clockwise,
    starting at the front-left corner so that the first side is the front."""
    ang = math.radians(15.0)
    u = (math.cos(ang), math.sin(ang))  # along the front
    v = (-u[1], u[0])  # into the block (left of the front side)
    p0 = (0.0, 0.0)
    return [p0, offset(p0, u, v, 100.0, 0.0), offset(p0, u, v, 101.2, 80.0), offset(p0, u, v, -0.8, 79.4)]


def block_trapezoid():
    """A trapezoid east of the first block: front 96 m along the x axis, back 88 m
    (each side leans in by 4 m), 54 m deep. Counter-clockwise from the front-left
    corner."""
    x0, y0 = 150.0, -10.0
    return [(x0, y0), (x0 + 96.0, y0), (x0 + 92.0, y0 + 54.0), (x0 + 4.0, y0 + 54.0)]


def block_shops():
    """A 117 x 93 m block north of the first one, for the shops grid (DSF only)."""
    ang = math.radians(15.0)
    u = (math.cos(ang), math.sin(ang))
    v = (-u[1], u[0])
    p0 = offset((0.0, 0.0), u, v, 0.0, 110.0)
    return [p0, offset(p0, u, v, 117.0, 0.0), offset(p0, u, v, 117.0, 93.0), offset(p0, u, v, 0.0, 93.0)]


# ----------------------------------------------------------------- AGS lakeside
LAKE_ORIGIN = (560.0, -420.0)  # where the lakeside frame sits in the town frame

LAKESIDE_OUTER = [
    (-40, 0),  # south-west corner (a sharp one, -106 degrees); the first side runs east
    (70, -4),
    (150, -6),
    (230, -2),
    (310, 8),
    (380, 20),  # south-east corner, about -80 degrees, long sides both ways
    (382, 80),
    (390, 140),
    (388, 200),
    (366, 250),  # the north-east bends stay under the crease angle: one curved side
    (330, 286),
    (290, 304),
    (246, 306),  # the notch (a churchyard cut out of the town): two convex, two reflex corners
    (244, 266),
    (176, 264),
    (174, 306),
    (120, 308),
    (64, 300),  # the north-west bends stay under the crease angle too
    (34, 288),
    (10, 268),
    (-6, 240),
    (-14, 190),
    (-16, 130),
    (-12, 64),
    (-30, 30),
]

# The lake, clockwise (east tip, south shore with a bay that reaches to within
# about 12 m of the south road near x = 295 m, west tip, north shore).
LAKE = [
    (300, 150),
    (298, 118),
    (306, 84),
    (310, 48),
    (302, 20),
    (288, 18),
    (278, 44),
    (270, 80),
    (250, 96),
    (215, 90),
    (175, 88),
    (135, 96),
    (105, 110),
    (86, 128),
    (80, 150),
    (86, 172),
    (105, 190),
    (135, 204),
    (171, 211),
    (209, 211),
    (245, 204),
    (274, 190),
    (293, 171),
]


def shift(ring, d):
    return [(x + d[0], y + d[1]) for x, y in ring]


def closed(ring):
    return ring + [ring[0]]


# ----------------------------------------------------------------- writers
def feature(name, rings, props):
    return {
        "type": "Feature",
        "properties": dict(name=name, **props),
        "geometry": {"type": "Polygon", "coordinates": [[list(to_lonlat(p)) for p in closed(r)] for r in rings]},
    }


def write_json(path, obj):
    text = json.dumps(obj, indent=1)
    # one [lon, lat] pair per line
    text = re.sub(r"\[\s+(-?[\d.]+),\s+(-?[\d.]+)\s+\]", r"[\1, \2]", text)
    with open(path, "w", newline="\n") as f:
        f.write(text + "\n")


def param(height_m, low):
    return (int(round(height_m / 4.0)) << 8) | low


def report(name, ring):
    print("%s: %d vertices, area %.0f m2 (%s)" % (name, len(ring), abs(area(ring)),
                                               "ccw" if area(ring) > 0 else "cw"))
    for i, (p, t) in enumerate(zip(ring, turn_angles(ring))):
        nxt = ring[(i + 1) % len(ring)]
        print("  v%-2d (%7.1f, %7.1f) turn %+6.1f  next side %6.1f m" % (i, p[0], p[1], t, seg_len(p, nxt)))


def main():
    os.makedirs(OUT, exist_ok=True)
    b1, b2, b3 = block_100x80(), block_trapezoid(), block_shops()
    outer = LAKESIDE_OUTER
    lake = LAKE
    for r in (b1, b2, b3, outer):
        assert area(r) > 0, "outer rings must be counter-clockwise"
    assert area(lake) < 0, "holes must be clockwise"
    report("block_100x80", b1)
    report("block_trapezoid", b2)
    report("lakeside outer", outer)
    report("lake", lake)

    write_json(os.path.join(OUT, "block_100x80.geojson"), {
        "type": "FeatureCollection",
        "features": [
            feature("block_100x80", [b1], {
                "asset": "../autogen/city_block.agb", "height": 12, "param": param(12, 2),
                "note": "front side first (100 m), 80 m deep; low byte 2 = spelling set 2 (houses on both streets)"}),
            feature("block_trapezoid", [b2], {
                "asset": "../autogen/city_block.agb", "height": 8, "param": param(8, 0),
                "note": "front 96 m, back 88 m, 54 m deep; low byte 0 = spelling set 0 (houses on the front street)"}),
        ],
    })
    lk_outer, lk_lake = shift(outer, LAKE_ORIGIN), shift(lake, LAKE_ORIGIN)
    write_json(os.path.join(OUT, "lakeside.geojson"), {
        "type": "FeatureCollection",
        "features": [
            feature("lakeside", [lk_outer, lk_lake], {
                "asset": "../autogen/lakeside.ags", "height": 8, "param": param(8, 1),
                "note": "outer ring counter-clockwise (spawns tiles), lake hole clockwise (does not): low byte 1"}),
        ],
    })

    # ------------------------------------------------------------- DSF text
    L = []
    L += ["I", "800", "DSF2TEXT", ""]
    L += [
        "# A small made-up town at a real place (near Titisee-Neustadt, Black Forest),",
        "# written by sample_scenery/tools/make_polygons.py in DSFTool's text format.",
        "# Paths are resolved as X-Plane resolves them: a library path through",
        "# library.txt, anything else relative to the scenery package root (the folder",
        "# holding library.txt: sample_scenery/), not relative to this file.",
        "# AGB polygons are four-point windings, not closed. AGS windings are poly-lines",
        "# and are closed explicitly: the last point repeats the first.",
        "",
        "PROPERTY sim/planet earth",
        "PROPERTY sim/overlay 1",
        "PROPERTY sim/creation_agent agview-sample-scenery",
        "PROPERTY sim/west 8",
        "PROPERTY sim/east 9",
        "PROPERTY sim/north 48",
        "PROPERTY sim/south 47",
        "",
        "# object definition 0: by library path; 1: by path in the package",
        "OBJECT_DEF agview/autogen/plaza.agp",
        "OBJECT_DEF autogen/props.agp",
        "# 2: a plain object placed by hand, beside the autogen",
        "OBJECT_DEF agview/objects/kiosk.obj",
        "# polygon definition 0: by library path; 1: by path in the package",
        "POLYGON_DEF agview/autogen/city_block.agb",
        "POLYGON_DEF autogen/lakeside.ags",
        "# 2, 3: a facade and a forest drawn by hand (parameter: height in meters; density 0-255)",
        "POLYGON_DEF agview/facades/brick.fac",
        "POLYGON_DEF agview/forests/trees.for",
        "",
    ]

    def obj(idx, p, hdg, note):
        lon, lat = to_lonlat(p)
        L.append("# " + note)
        L.append("OBJECT %d %.8f %.8f %f" % (idx, lon, lat, hdg))

    obj(0, (-90.0, 60.0), 0.0, "the town square, west of the houses, heading 0")
    obj(0, (330.0, 120.0), 90.0, "a second square east of the trapezoid block, heading 90")
    obj(1, (-90.0, -20.0), 180.0, "the street-corner props south of the square, heading 180")
    obj(2, (-10.0, -40.0), 30.0, "a kiosk placed by hand south-west of the first block, heading 30")
    L.append("")

    def poly(def_idx, prm, rings, note, close):
        L.append("# " + note)
        L.append("BEGIN_POLYGON %d %d 2" % (def_idx, prm))
        for r in rings:
            L.append("BEGIN_WINDING")
            for p in (closed(r) if close else r):
                lon, lat = to_lonlat(p)
                L.append("POLYGON_POINT %.8f %.8f" % (lon, lat))
            L.append("END_WINDING")
        L.append("END_POLYGON")
        L.append("")

    poly(0, param(12, 2), [b1], "block_100x80: 12 m high, low byte 2 (spelling set 2)", False)
    poly(0, param(8, 0), [b2], "block_trapezoid: 8 m high, low byte 0 (spelling set 0)", False)
    poly(0, param(24, 7), [b3], "shops block 117 x 93 m: 24 m high, low byte 7 (spelling set 3, the shops grid)", False)
    poly(1, param(8, 1), [lk_outer, lk_lake],
         "lakeside: 8 m high, low byte 1 = one tile-spawning winding (the outer one); the lake does not spawn tiles",
         True)
    # Hand-placed art beside the autogen, so a preview shows the two together.
    poly(2, 12, [[(-45.0, -75.0), (-20.0, -75.0), (-20.0, -60.0), (-45.0, -60.0)]],
         "a 25 x 15 m brick building, 12 m high (facade parameter: height in meters)", False)
    poly(3, 160, [[(200.0, -200.0), (320.0, -200.0), (330.0, -90.0), (210.0, -80.0)]],
         "a wood between the blocks and the lake, density 160 of 255", False)
    with open(os.path.join(OUT, "town.txt"), "w", newline="\n") as f:
        f.write("\n".join(L))
    print("wrote", OUT)


if __name__ == "__main__":
    main()
