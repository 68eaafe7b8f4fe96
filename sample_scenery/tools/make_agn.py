#!/usr/bin/env python3
"""Writes the sample FSX autogen annotation file and its facade texture.

    python3 sample_scenery/tools/make_agn.py        (from the repository root)

Output, beside each other in sample_scenery/agn/:
  <15 digits>an.agn         a little town on the LOD13 square around Leavenworth, WA
                            (47.5962 N, 120.6615 W): generic buildings in rows along a main
                            street and a cross street, a terrace of row houses, three library
                            objects, vegetation polygons and a rectangle, a polyline building;
                            three roof GUIDs (default, gabled, barns), an A2GE with five
                            rotated grain bins and one with five aligned picnic shelters, and
                            an FS2004 VGRD definition with two VGRO rectangles.
  agview_town_facade.png    the texture GBTE/RHTE name: a brick wall with rows of windows.

The file is written here, independently of agview's Rust writer, so that reading it back in
agview's tests checks the reader against a second implementation of the format (spec
003_d814b19ed22f9ff5.txt). Everything is deterministic (fixed seed); running the script again
gives the same bytes.

The town is designed in local meters (origin at the square's centre, x east, y north) and
converted to square units at the end: one x unit is LON_STEP degrees of longitude (about
1630 * cos(lat) m), one y unit LAT_STEP degrees of latitude (about 1223 m), and y grows south.
"""

import math
import os
import random
import struct
import zlib

LAT, LON = 47.5962, -120.6615  # Leavenworth, Washington
LON_STEP = 360.0 / 24576  # 0.0146484375
LAT_STEP = 180.0 / 16384  # 0.010986328125
METERS_PER_DEGREE = 6378137.0 * math.pi / 180.0
FSX_VERSION = 1091777331
TEXTURE = "agview_town_facade"

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "agn")


# --- LOD13 square ----------------------------------------------------------------------


def lod13_of(lat, lon):
    u = math.floor((lon + 180.0) * 24576 / 360.0)
    v = math.floor((90.0 - lat) * 16384 / 180.0)
    return u, v


def lod13_name(u, v):
    digits = "".join(str(((u >> i) & 1) + 2 * ((v >> i) & 1)) for i in range(14, -1, -1))
    return digits + "an.agn"


U, V = lod13_of(LAT, LON)
NORTH = 90.0 - V * LAT_STEP
WEST = U * LON_STEP - 180.0
CENTER_LAT = NORTH - LAT_STEP / 2
MX = LON_STEP * METERS_PER_DEGREE * math.cos(math.radians(CENTER_LAT))  # meters per x unit
MY = LAT_STEP * METERS_PER_DEGREE  # meters per y unit


def centred(p):
    """Local meters (x east, y north) to the centred frame (-0.5..0.5, y south)."""
    return (p[0] / MX, -p[1] / MY)


def top_left(p):
    """Local meters to the top-left frame (0..1 from the north-west corner, y south)."""
    return (p[0] / MX + 0.5, -p[1] / MY + 0.5)


def vec(v):
    """A vector in meters to square units (no origin shift)."""
    return (v[0] / MX, -v[1] / MY)


# --- The town, in meters ---------------------------------------------------------------

rng = random.Random(13)

# The main street runs east-north-east through the centre; the cross street leaves it at
# s = CROSS_S heading north-north-west. `along` and `across` are unit vectors of the main
# street (across points to its north side).
ANGLE = math.radians(15.0)
ALONG = (math.cos(ANGLE), math.sin(ANGLE))
ACROSS = (-ALONG[1], ALONG[0])
CROSS_S = 60.0
SETBACK = 10.0  # street centreline to building front


def at(s, t):
    """The point s meters along the main street and t meters to its north side."""
    return (s * ALONG[0] + t * ACROSS[0], s * ALONG[1] + t * ACROSS[1])


def scale(v, k):
    return (v[0] * k, v[1] * k)


def footprint(front_left, along, width, away, depth):
    """A building as (start, to_second, to_third) in meters: P1 the front corner, P2 along
    the street-facing side, P3 = P2 + depth away from the street. Counter-clockwise in the
    local frame (x east, y north) when `away` is `along` turned left."""
    return (front_left, scale(along, width), scale(away, depth))


def street_row(s0, s1, side, skip=None, origin=(0.0, 0.0), along=ALONG, across=ACROSS):
    """Buildings 10-30 m wide and 12-30 m deep, 3-8 m apart, along one side of a street
    from s0 to s1. side = +1 for the left (across) side, -1 for the right."""
    out = []
    s = s0 + rng.uniform(0, 6)
    while True:
        width = rng.choice([10, 12, 14, 16, 18, 20, 24, 28, 30]) + rng.uniform(0, 2)
        depth = rng.uniform(12, 30)
        if s + width > s1:
            break
        if skip and s < skip[1] and s + width > skip[0]:
            s = skip[1] + rng.uniform(2, 5)
            continue
        if side > 0:
            # Front-left corner at the lower s, facing the street; CCW going along +s.
            p = (
                origin[0] + s * along[0] + SETBACK * across[0],
                origin[1] + s * along[1] + SETBACK * across[1],
            )
            out.append(footprint(p, along, width, across, depth))
        else:
            # Right side: start at the higher s and run back so the ring stays CCW.
            e = s + width
            p = (
                origin[0] + e * along[0] - SETBACK * across[0],
                origin[1] + e * along[1] - SETBACK * across[1],
            )
            out.append(footprint(p, scale(along, -1), width, scale(across, -1), depth))
        s += width + rng.uniform(3, 8)
    return out


# Main street, both sides, leaving the cross street (20 m wide) free.
cross_gap = (CROSS_S - 14.0, CROSS_S + 14.0)
main_street = street_row(-250, 250, +1, skip=cross_gap) + street_row(-250, 250, -1, skip=cross_gap)

# Cross street: starts behind the main street's buildings (t >= 46) and runs 170 m north.
cross_origin = at(CROSS_S, 0.0)
cross_along = ACROSS  # heading away from the main street
cross_across = (-ACROSS[1], ACROSS[0])  # its left side
cross_street = street_row(
    46, 216, +1, origin=cross_origin, along=cross_along, across=cross_across
) + street_row(46, 216, -1, origin=cross_origin, along=cross_along, across=cross_across)

# A terrace of row houses on a back lane south of the main street, 9 m wide, 12 m deep.
row_houses = []
for i in range(6):
    s = -200 + i * 9.6
    row_houses.append(footprint(at(s + 9.0, -75.0), scale(ALONG, -1), 9.0, scale(ACROSS, -1), 12.0))

# Library objects: a water tower (2 points), a church turned with the street (3 points),
# a filling station (2 points).
WATER_TOWER = "5f0a2c34-8d1e-4b7a-9c3f-1e2d3c4b5a69"
CHURCH = "a3c1e9f2-6b7d-4e10-8f21-9d8c7b6a5e40"
FILLING_STATION = "0c9b8a7d-3e2f-4a1b-b5c6-d7e8f9a0b1c2"
tower_c = at(170.0, 150.0)
library_objects = [
    (WATER_TOWER, (tower_c[0] - 7, tower_c[1] + 7), (14.0, -14.0), None),
    # Church: 18 m front on the cross street's end, 32 m deep.
    (CHURCH, at(CROSS_S - 9.0, 232.0), scale(ALONG, 18.0), scale(ACROSS, 32.0)),
    (FILLING_STATION, (at(-300.0, 14.0)[0], at(-300.0, 14.0)[1] + 24.0), (30.0, -24.0), None),
]

# Vegetation polygons (closed rings): a town park south of the main street, a wood in the
# north-west of the square, a belt of trees along the river in the south-east.
DECIDUOUS = "7e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b"
CONIFEROUS = "1b2c3d4e-5f60-4718-92a3-b4c5d6e7f809"
RIVERSIDE = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
park = [at(-120, -110), at(-20, -110), at(10, -150), at(-40, -200), at(-130, -180)]
wood = [(-480, 520), (-260, 540), (-200, 400), (-300, 300), (-470, 330)]
river = [(120, -420), (300, -380), (500, -470), (500, -540), (300, -460), (120, -500)]
vegetation_polygons = [(DECIDUOUS, park), (CONIFEROUS, wood), (RIVERSIDE, river)]

# An FSX rectangular vegetation area: an orchard south-west of the town.
ORCHARD = "2d3e4f50-6172-4839-a4b5-c6d7e8f90a1b"
orchard = ((-430.0, -250.0), (150.0, -120.0))  # first corner, offset to the second

# A polyline building: an L-shaped row of shops past the east end of the main street.
SHOPS = "6c5d4e3f-2a1b-4c0d-9e8f-7a6b5c4d3e2f"
shops_line = [at(285.0, 24.0), at(360.0, 24.0), at(360.0, 90.0)]
SHOPS_WIDTH_M = 14.0

BUILDING_WEIGHTS = [16, 4, 0, 0]  # mostly 1-2 floors, some 3-5, out of 20
DEFAULT_ROOFS = "00000000-0000-0000-0000-000000000000"
GABLED_ROOFS = "4b3a2918-0706-4f5e-8d7c-6b5a49382716"
BARN_ROOFS = "e1d2c3b4-a596-4788-9a0b-1c2d3e4f5061"

# Three barns by the orchard, under a third roof GUID.
barns = [
    footprint((-420.0 + 40.0 * i, -200.0), (1.0, 0.0), 24.0, (0.0, 1.0), 14.0) for i in range(3)
]

# One A2GE with several objects: five grain bins in a row, each a rotated box (three
# points, 24-byte records: 5 x 24 = 120 bytes, which 16 does not divide), and one with five
# picnic shelters in the park as boxes aligned with the square (two points, 16-byte
# records: 80 bytes, which 24 does not divide).
GRAIN_BIN = "3e4f5061-7283-4a94-b5c6-d7e8f9011223"
PICNIC_SHELTER = "8a9b0c1d-2e3f-4405-a617-28394a5b6c7d"
BIN_ALONG = (math.cos(math.radians(30.0)), math.sin(math.radians(30.0)))
BIN_ACROSS = (-BIN_ALONG[1], BIN_ALONG[0])
grain_bins = [
    (
        (300.0 + 14.0 * i * BIN_ALONG[0], -250.0 + 14.0 * i * BIN_ALONG[1]),
        scale(BIN_ALONG, 10.0),
        scale(BIN_ACROSS, 10.0),
    )
    for i in range(5)
]
picnic_shelters = [((at(-110 + 18 * i, -130)[0], at(-110 + 18 * i, -130)[1]), (8.0, -6.0)) for i in range(5)]

# FS2004 vegetation: VGRD names two classes (FSDeveloper wiki "AGN (FS2002/FS2004)": 1
# deciduous, 2 coniferous 1), 70 % of class 2, density 60 of 100, and each class's height
# range in meters; VGRO rectangles in the north-east of the square use it.
VGRD = dict(class1=2, class2=1, percent1=70, density=60, h1=(14.0, 24.0), h2=(8.0, 15.0))
vgro = [((250.0, 420.0), (180.0, -90.0)), ((300.0, 250.0), (120.0, -110.0))]


# --- RIFF writer -----------------------------------------------------------------------


def guid_bytes(text):
    """A GUID string to its 16 bytes in .NET order (u32, u16, u16 little-endian, 8 bytes)."""
    parts = text.split("-")
    return (
        struct.pack("<IHH", int(parts[0], 16), int(parts[1], 16), int(parts[2], 16))
        + bytes.fromhex(parts[3] + parts[4])
    )


def chunk(tag, payload):
    return tag.encode("ascii") + struct.pack("<I", len(payload)) + payload


def floats(*values):
    return struct.pack("<%df" % len(values), *values)


def vertex_list(points):
    return struct.pack("<i", len(points)) + b"".join(floats(*p) for p in points)


def texture_name(name):
    raw = name.encode("ascii")
    return raw + b"\0" * (4 - len(raw) % 4)


def footprint_bytes(fp):
    start, to_second, to_third = fp
    return floats(*centred(start), *vec(to_second), *vec(to_third))


def agn_bytes():
    sections = [
        chunk("VERS", struct.pack("<i", FSX_VERSION)),
        chunk("GBDD", struct.pack("<4i", *BUILDING_WEIGHTS)),
        chunk("GBTE", texture_name(TEXTURE)),
        chunk("RHTE", texture_name(TEXTURE)),
        chunk(
            "GBLD",
            chunk("GBLR", guid_bytes(DEFAULT_ROOFS) + b"".join(map(footprint_bytes, main_street)))
            + chunk("GBLR", guid_bytes(GABLED_ROOFS) + b"".join(map(footprint_bytes, cross_street)))
            + chunk("GBLR", guid_bytes(BARN_ROOFS) + b"".join(map(footprint_bytes, barns))),
        ),
        chunk(
            "PREG",
            b"".join(
                chunk("PRDE", guid_bytes(g) + vertex_list([top_left(p) for p in ring + ring[:1]]))
                for g, ring in vegetation_polygons
            ),
        ),
        chunk(
            "VGRG",
            chunk("VGRE", guid_bytes(ORCHARD) + floats(*centred(orchard[0]), *vec(orchard[1]))),
        ),
        chunk(
            "VGRD",
            struct.pack("<4i", VGRD["class1"], VGRD["class2"], VGRD["percent1"], VGRD["density"])
            + floats(*VGRD["h1"], *VGRD["h2"]),
        ),
        chunk("VGRO", b"".join(floats(*centred(p), *vec(d)) for p, d in vgro)),
        chunk("ROWH", b"".join(map(footprint_bytes, row_houses))),
        chunk(
            "AGN2",
            b"".join(
                chunk(
                    "A2GE",
                    guid_bytes(g)
                    + floats(*centred(start), *vec(to_second))
                    + (floats(*vec(to_third)) if to_third else b""),
                )
                for g, start, to_second, to_third in library_objects
            )
            + chunk(
                "A2GE",
                guid_bytes(GRAIN_BIN)
                + b"".join(floats(*centred(p), *vec(d), *vec(o)) for p, d, o in grain_bins),
            )
            + chunk(
                "A2GE",
                guid_bytes(PICNIC_SHELTER)
                + b"".join(floats(*centred(p), *vec(d)) for p, d in picnic_shelters),
            ),
        ),
        chunk(
            "PBLD",
            chunk(
                "PBDE",
                guid_bytes(SHOPS)
                + struct.pack("<i", 1)
                # The width is in square units; taken on the y (latitude) scale.
                + floats(SHOPS_WIDTH_M / MY)
                + vertex_list([top_left(p) for p in shops_line]),
            ),
        ),
    ]
    return chunk("RIFF", b"AGNX" + b"".join(sections))


# --- Facade texture --------------------------------------------------------------------


def facade_png(width=256, height=256):
    """A brick wall, four floors of 64 px: three upper floors with four sash windows each
    (stone frame, sill, blue glass with a mullion and a transom) and a ground floor with two
    shop windows and a door, under a stone cornice."""
    tex = random.Random(7)
    pix = [[(0, 0, 0)] * width for _ in range(height)]
    for y in range(height):
        course = y // 6
        for x in range(width):
            # Running bond: courses 6 px, bricks 16 px, every other course shifted by 8.
            mortar = y % 6 == 5 or (x + (8 if course % 2 else 0)) % 16 == 15
            if mortar:
                c = (196, 188, 172)
            else:
                shade = ((course * 7 + (x + 8 * (course % 2)) // 16 * 13) % 5) * 6
                c = (150 + shade, 72 + shade // 2, 54 + shade // 3)
            n = tex.randint(-6, 6)
            pix[y][x] = tuple(max(0, min(255, v + n)) for v in c)

    def rect(x0, y0, x1, y1, color):
        for y in range(max(0, y0), min(height, y1)):
            for x in range(max(0, x0), min(width, x1)):
                pix[y][x] = color

    def glass(x0, y0, x1, y1):
        for y in range(y0, y1):
            k = (y - y0) / max(1, y1 - y0 - 1)
            for x in range(x0, x1):
                # Darker at the top, a paler diagonal reflection.
                hi = 30 if 0 <= (x - x0) - (y - y0) * 0.6 < 6 else 0
                pix[y][x] = (int(46 + 50 * k) + hi, int(64 + 58 * k) + hi, int(92 + 62 * k) + hi)

    stone = (214, 204, 184)
    frame = (236, 232, 222)
    # Cornice at the top and a string course above the ground floor.
    rect(0, 0, width, 8, stone)
    rect(0, 8, width, 10, (120, 112, 100))
    rect(0, 190, width, 196, stone)
    for floor in range(3):
        top = 10 + floor * 60
        for i in range(4):
            x0 = 14 + i * 64
            rect(x0 - 3, top + 8, x0 + 39, top + 11, stone)  # lintel
            rect(x0, top + 11, x0 + 36, top + 52, frame)  # frame
            glass(x0 + 3, top + 14, x0 + 33, top + 49)
            rect(x0 + 17, top + 14, x0 + 19, top + 49, frame)  # mullion
            rect(x0 + 3, top + 29, x0 + 33, top + 31, frame)  # transom
            rect(x0 - 4, top + 52, x0 + 40, top + 56, stone)  # sill
    # Ground floor: shop windows either side of a door.
    for x0 in (10, 154):
        rect(x0, 200, x0 + 92, 248, (60, 52, 46))
        glass(x0 + 4, 204, x0 + 88, 246)
        rect(x0 + 44, 204, x0 + 48, 246, (60, 52, 46))
    rect(112, 200, 144, 256, (60, 52, 46))  # door frame
    rect(116, 204, 140, 256, (104, 58, 38))  # door
    rect(134, 228, 137, 232, (210, 180, 90))  # handle
    rect(0, 248, width, 256, (128, 120, 110))  # plinth
    rect(112, 248, 144, 256, (104, 58, 38))

    raw = b"".join(b"\0" + bytes(v for p in row for v in p) for row in pix)

    def png_chunk(tag, data):
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
        + png_chunk(b"IDAT", zlib.compress(raw, 9))
        + png_chunk(b"IEND", b"")
    )


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    name = lod13_name(U, V)
    data = agn_bytes()
    with open(os.path.join(OUT_DIR, name), "wb") as f:
        f.write(data)
    with open(os.path.join(OUT_DIR, TEXTURE + ".png"), "wb") as f:
        f.write(facade_png())
    print(f"{name}: U={U} V={V}, {len(data)} bytes")
    print(
        f"  generic buildings: {len(main_street)} (default roofs) + {len(cross_street)} (gabled)"
        f" + {len(barns)} (barn roofs)"
    )
    print(
        f"  row houses: {len(row_houses)}, library objects: {len(library_objects)}"
        f" + {len(grain_bins)} grain bins (one A2GE) + {len(picnic_shelters)} shelters (one A2GE)"
    )
    print(
        f"  vegetation polygons: {len(vegetation_polygons)}, vegetation rects: 1,"
        f" VGRO rects: {len(vgro)}, polygon buildings: 1"
    )
    print(f"  meters per unit: x {MX:.2f}, y {MY:.2f}")


if __name__ == "__main__":
    main()
