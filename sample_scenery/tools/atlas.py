"""Texture atlas layouts shared by make_textures.py (which paints them) and
make_objects.py (which maps UVs into them).

Every region is (x0, y0, x1, y1) in image pixels with y growing DOWN, as an
image editor shows it. OBJ8 texture coordinates have t growing UP from the
bottom of the image; `uv()` does that conversion.
"""

# ---------------------------------------------------------------------------
# textures/buildings.png, 1024 x 512: walls, roofs and trim of every building.
# Wall cells are 96 x 96 px and stand for a 3 m x 3 m bay (32 px per meter);
# roof regions are 384 x 256 px = 12 m x 8 m at the same density.
BUILDINGS_SIZE = (1024, 512)
BAY = 96


def _bay(col, row):
    return (col * BAY, row * BAY, col * BAY + BAY, row * BAY + BAY)


BUILDINGS = {
    # row 0: window and door bays, one storey each
    "plaster_window": _bay(0, 0),
    "plaster_door": _bay(1, 0),
    "brick_window": _bay(2, 0),
    "brick_door": _bay(3, 0),
    "siding_window": _bay(4, 0),
    "siding_door": _bay(5, 0),
    "yellow_window": _bay(6, 0),
    "yellow_door": _bay(7, 0),
    "concrete_window": _bay(8, 0),
    "concrete_door": _bay(9, 0),
    "eave": (960, 0, 992, 96),  # painted eave boards / fascia
    "chimney": (992, 0, 1024, 96),  # chimney brick
    # row 1: shop front, plain wall fill (gables, backs), sign and awning
    "shop_window": _bay(0, 1),
    "shop_door": _bay(1, 1),
    "garage_door": _bay(2, 1),
    "plaster_plain": _bay(3, 1),
    "brick_plain": _bay(4, 1),
    "siding_plain": _bay(5, 1),
    "yellow_plain": _bay(6, 1),
    "concrete_plain": _bay(7, 1),
    "shop_sign": _bay(8, 1),
    "awning": _bay(9, 1),
    "slab": (960, 96, 1024, 192),  # balcony slabs, parapet caps
    # rows 2-3: roofs (12 m x 8 m each)
    "roof_red": (0, 192, 384, 448),
    "roof_slate": (384, 192, 768, 448),
    "roof_flat": (768, 192, 1024, 448),
    # row 4: small things and the far-LOD facades of the apartment block
    "glass": (0, 448, 64, 512),
    "metal": (64, 448, 128, 512),
    "apt_front_lod": (128, 448, 228, 512),  # whole 20 m front, 4 storeys
    "apt_side_lod": (232, 448, 292, 512),  # whole 12 m side, 4 storeys
    "railing": (300, 448, 364, 512),
}

# ---------------------------------------------------------------------------
# textures/props.png, 512 x 512: street furniture.
PROPS_SIZE = (512, 512)
PROPS = {
    "wood": (0, 0, 256, 128),  # bench slats, planks run along x
    "fence_paint": (256, 0, 512, 128),  # white painted pickets
    "dark_metal": (0, 128, 128, 256),  # lamp pole, bench legs
    "lamp_glow": (128, 128, 256, 256),  # underside of the lamp head
    "concrete": (256, 128, 384, 256),  # lamp foot
    "green_metal": (384, 128, 512, 256),  # lamp head top, bench frame
    "post_wood": (0, 256, 256, 384),  # fence posts and rails
}

# ---------------------------------------------------------------------------
# textures/car.dds (DXT1), 256 x 256.
CAR_SIZE = (256, 256)
CAR = {
    "paint": (0, 0, 128, 128),  # roof, bonnet, boot
    "glass": (128, 0, 256, 64),
    "tire": (128, 64, 192, 128),  # wheel face: tyre ring and rim
    "tread": (192, 64, 256, 128),
    "front": (0, 128, 128, 192),  # grille and headlights
    "rear": (128, 128, 256, 192),  # tail lights and plate
    "side": (0, 192, 256, 256),  # door panels, wheel arches
}

# ---------------------------------------------------------------------------
# textures/kiosk.dds (DXT5), 256 x 256. The sign has alpha around its letters.
KIOSK_SIZE = (256, 256)
KIOSK = {
    "front": (0, 0, 128, 128),  # serving hatch and counter
    "side": (128, 0, 256, 128),  # posters
    "roof": (0, 128, 128, 256),
    "sign": (128, 128, 256, 192),  # cut-out letters (alpha)
    "back": (128, 192, 256, 256),  # plain boards
}


def uv(size, region, fx, fy):
    """Texture coordinate of a point inside a region.

    fx runs 0..1 left to right, fy runs 0..1 bottom to top of the region.
    Returns (s, t) with t measured from the bottom of the image (OBJ8 / OpenGL).
    """
    w, h = size
    x0, y0, x1, y1 = region
    x = x0 + fx * (x1 - x0)
    y = y1 - fy * (y1 - y0)
    return (x / w, 1.0 - y / h)
