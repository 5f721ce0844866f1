"""The Generalized Voronoi Diagram on the GPU (ECM section II-A, after Hoff et al. 1999), with moderngl.

Every site is drawn as quads over the screen tiles it may own (``cull``); the fragment shader computes the exact
Euclidean distance from the pixel centre to the site (a convex polygon, or a wall segment) and writes it as the
depth, so the depth test keeps the nearest site. Two colour attachments receive the site id (a 32-bit integer
buffer; -1 inside an obstacle) and the distance (a 32-bit float buffer); both are read back. Only the screen tiles whose
owner the culling cannot settle are drawn, packed into a small atlas framebuffer (``atlas``); the rest of the image
is filled with its one site.

Sites that share a vertex get bit-identical distances where that vertex is nearest (the shader returns the
vertex itself, not ``a + 1.0 * (b - a)``), and the depth test ``LESS`` keeps the first drawn, lower site id on such
ties, so the split between the convex pieces of one obstacle is a clean ray instead of noise.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from core.scene.problems import InputError, Problem

from . import glcontext
from .atlas import fill_rects, scatter_tiles, tile_map
from .cull import COARSE_BLOCKS, cull_tiles, site_grid
from .kernel_views import PixelGrid, SiteBuckets, convex_pieces
from .resolve import piece_edges, resolve_tiles, tile_work
from .sites import Sites

TILE = 16  # pixels per culling tile side

# A software renderer (Mesa's llvmpipe, 2 cores) shades about 6 us per culled (tile, site) quad: 4 million quads
# are about 25 s of rendering. Scenes whose obstacle features are far below a pixel (a 20,000-vertex comb with
# teeth 4.5 mm apart: 5.9 million quads at 4096 px, 37 s; 15.9 million at 8192, 130 s) are refused there with
# the resolution that fits; the shipped city needs 0.3 million at 8192. A hardware GPU has no such limit.
MAX_SOFTWARE_QUADS = 4_000_000
SOFTWARE_RENDERERS = ("llvmpipe", "softpipe", "swrast", "swiftshader", "lavapipe")

_VERTEX = """
#version 330
in vec2 in_corner;
in vec4 in_rect;
in vec4 in_origin;
in ivec3 in_site;
in ivec2 in_mask;
in float in_inv_depth;
uniform vec2 u_size;
flat out vec2 v_rect;
flat out vec4 v_origin;
flat out ivec3 v_site;
flat out ivec2 v_mask;
flat out float v_inv_depth;
void main() {
    vec2 p = mix(in_rect.xy, in_rect.zw, in_corner);
    gl_Position = vec4(p / u_size * 2.0 - 1.0, 0.0, 1.0);
    v_rect = in_rect.xy;
    v_origin = in_origin;
    v_site = in_site;
    v_mask = in_mask;
    v_inv_depth = in_inv_depth;
}
"""

# Coordinates are double-single: a vertex is (hi + lo) with hi = float32(x) and lo = float32(x - hi), and so is the
# tile's lower-left corner; the fragment works relative to that corner, so its distances are accurate to about
# 1e-7 of the tile's reach instead of 1e-7 of the scene's size. Two sites sharing a vertex still compute the same
# bits for it. Bit k of the mask says whether the edge from vertex k to vertex k + 1 is a real obstacle edge; only
# those count for the distance, so a piece touching a vertex only through diagonals never wins there.
_FRAGMENT = """
#version 330
flat in vec2 v_rect;
flat in vec4 v_origin;
flat in ivec3 v_site;
flat in ivec2 v_mask;
flat in float v_inv_depth;
uniform sampler2D u_verts;
uniform float u_h;
layout(location = 0) out int out_id;
layout(location = 1) out float out_dist;

vec2 vert(int i) {
    vec4 t = texelFetch(u_verts, ivec2(i & 4095, i >> 12), 0);
    return (t.xy - v_origin.xy) + (t.zw - v_origin.zw);
}

void main() {
    vec2 p = (gl_FragCoord.xy - v_rect) * u_h;
    int start = v_site.y;
    int n = v_site.z;
    float best = 3.0e38;
    bool inside = n >= 3;
    vec2 a = vert(start + n - 1);
    bool real_a = ((n - 1 < 32 ? (v_mask.x >> (n - 1)) : (v_mask.y >> (n - 33))) & 1) != 0;
    for (int k = 0; k < n; k++) {
        vec2 b = vert(start + k);
        vec2 ab = b - a;
        vec2 ap = p - a;
        if (ab.x * ap.y - ab.y * ap.x < 0.0) inside = false;
        if (real_a) {
            float ee = dot(ab, ab);
            float t = ee > 0.0 ? dot(ap, ab) / ee : 0.0;
            vec2 q = t <= 0.0 ? a : (t >= 1.0 ? b : a + t * ab);
            vec2 dq = p - q;
            best = min(best, dot(dq, dq));
        }
        real_a = ((k < 32 ? (v_mask.x >> k) : (v_mask.y >> (k - 32))) & 1) != 0;
        a = b;
    }
    float d = inside ? 0.0 : sqrt(best);
    gl_FragDepth = min(d * v_inv_depth, 1.0);
    out_id = d > 0.0 ? v_site.x : -1;
    out_dist = d;
}
"""


@dataclass(frozen=True, eq=False)
class GVD:
    """A rendered GVD.

    - ``labels`` (H, W) int32: the nearest site of each pixel, -1 where the pixel centre lies in an obstacle or
      outside the bounds. Row i, column j is the pixel centred at (x0 + (j + 0.5) h, y0 + (i + 0.5) h).
    - ``dist`` (H, W) float32: the distance from the pixel centre to that site (scene units; 0 in obstacles);
      None when rendered ``with_dist=False``.
    - ``origin`` (2,) float64: (x0, y0), the bounds' lower-left corner; ``h``: pixel size (scene units).
    - ``timings``: seconds spent culling, labelling tiles on the CPU (``resolve``), rendering and reading back;
      ``instances``: quads drawn; ``culled``: quads the culling left, before the CPU labelled its tiles;
      ``blocks``: atlas passes drawn.
    - ``tile_labels`` (ceil(H / tile), ceil(W / tile)) int32: the one label of every pixel of a tile of ``tile``
      pixels square where the culling or the CPU labelling knows it is one, else -3 (the tracing skips the others).
    """

    labels: np.ndarray
    dist: np.ndarray | None
    origin: np.ndarray
    h: float
    timings: dict = field(default_factory=dict)
    instances: int = 0
    blocks: int = 1
    culled: int = 0
    tile_labels: np.ndarray = field(default_factory=lambda: np.full((1, 1), -3, dtype=np.int32))
    tile: int = 1 << 30

    @property
    def shape(self) -> tuple[int, int]:
        return self.labels.shape

    def pixel_of(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Row and column of the pixel holding each point (clipped to the image)."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        j = np.clip(np.floor((p[:, 0] - self.origin[0]) / self.h).astype(np.int64), 0, self.shape[1] - 1)
        i = np.clip(np.floor((p[:, 1] - self.origin[1]) / self.h).astype(np.int64), 0, self.shape[0] - 1)
        return i, j


def image_shape(bounds, resolution: int) -> tuple[int, int, float]:
    """(height, width, pixel size) of a GVD whose longer side has ``resolution`` pixels."""
    x0, y0, x1, y1 = (float(v) for v in bounds)
    h = max(x1 - x0, y1 - y0) / float(resolution)
    width = max(1, int(np.ceil((x1 - x0) / h - 1e-9)))
    height = max(1, int(np.ceil((y1 - y0) / h - 1e-9)))
    return height, width, h


class _Renderer:
    """Program and vertex arrays compiled once per context."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.prog = ctx.program(vertex_shader=_VERTEX, fragment_shader=_FRAGMENT)
        self.corners = ctx.buffer(np.array([0, 0, 1, 0, 0, 1, 1, 1], dtype=np.float32).tobytes())
        max_rb = int(ctx.info.get("GL_MAX_RENDERBUFFER_SIZE", 4096))
        vp = ctx.info.get("GL_MAX_VIEWPORT_DIMS", (max_rb, max_rb))
        self.max_block = int(min(max_rb, int(vp[0]), int(vp[1]), 8192))


_RENDERERS: dict[int, _Renderer] = {}


def _renderer(ctx) -> _Renderer:
    r = _RENDERERS.get(id(ctx))
    if r is None:
        r = _RENDERERS[id(ctx)] = _Renderer(ctx)
    return r


def render_gvd(sites: Sites, resolution: int, max_block: int | None = None, tile: int = TILE,
               with_dist: bool = True) -> GVD:
    """Render the GVD of ``sites`` with ``resolution`` pixels along the bounds' longer side.

    ``max_block`` caps the framebuffer side (default: the driver's limit, at most 8192); more tiles than one
    framebuffer holds are drawn in passes. ``with_dist`` False leaves ``dist`` None and shades only the tiles whose
    owner the culling could not settle (the ECM build needs the labels only). Raises
    ``glcontext.GLUnavailableError`` where no OpenGL context can be created.
    """
    if resolution < 8:
        raise ValueError("resolution must be at least 8 pixels")
    x0, y0, x1, y1 = (float(v) for v in sites.bounds)
    height, width, h = image_shape(sites.bounds, resolution)
    t0 = time.perf_counter()
    ns = sites.n_sites
    gsize = max(x1 - x0, y1 - y0) / max(1.0, np.ceil(np.sqrt(ns)))
    gnx = int(np.floor((x1 - x0) / gsize)) + 1
    gny = int(np.floor((y1 - y0) / gsize)) + 1
    gptr, gidx = site_grid(sites.piece_bbox, x0, y0, gsize, gnx, gny)
    pix = PixelGrid(width, height, h, x0, y0)
    ntiles = (max(width, height) + tile - 1) // tile
    sub = max(1, -(-ntiles // COARSE_BLOCKS))
    tiles, tsites, treach, fills, fill_sites = cull_tiles(
        pix, tile, sub, convex_pieces(sites), SiteBuckets(x0, y0, gsize, gnx, gny, gptr, gidx), not with_dist)
    # Within a tile, lower site ids first: ties (shared vertices) then always go to the same site.
    order = np.lexsort((tsites, tiles[:, 1], tiles[:, 0]))
    tiles = tiles[order]
    tsites = tsites[order]
    treach = treach[order]
    t_cull = time.perf_counter() - t0

    labels = np.empty((height, width), dtype=np.int32)
    dist = np.empty((height, width), dtype=np.float32) if with_dist else None
    culled = len(tsites)
    t = time.perf_counter()
    tmap = tile_map(fills, fill_sites, -(-height // tile), -(-width // tile), tile)
    if not with_dist:
        # Tiles whose every pixel the CPU labels as the GPU certainly would are written here, not drawn.
        edges = piece_edges(sites)
        draw = np.empty(len(tsites), dtype=bool)
        resolve_tiles(edges, pix, tiles, tsites, treach, labels, tile_work(edges, tile), draw, tmap)
        tiles, tsites, treach = tiles[draw], tsites[draw], treach[draw]
    t_resolve = time.perf_counter() - t
    with glcontext.LOCK:
        ctx = glcontext.get_context()
        check_render_budget(len(tsites), resolution, str(ctx.info.get("GL_RENDERER", "")))
        with ctx:
            t_render, t_read, blocks = _draw(ctx, sites, tiles, tsites, treach, h, tile, max_block, labels, dist)
    t = time.perf_counter()
    fill_rects(labels, fills, fill_sites)
    # Pixel centres beyond the far edges of the bounds (when the sides are not whole pixels) lie outside.
    cols = x0 + (np.arange(width) + 0.5) * h > x1
    rows = y0 + (np.arange(height) + 0.5) * h > y1
    labels[:, cols] = -1
    labels[rows, :] = -1
    tmap[:, np.unique(np.flatnonzero(cols) // tile)] = -3
    tmap[np.unique(np.flatnonzero(rows) // tile), :] = -3
    t_read += time.perf_counter() - t
    timings = {"cull": t_cull, "resolve": t_resolve, "render": t_render, "readback": t_read}
    return GVD(labels, dist, np.array([x0, y0]), h, timings, int(len(tsites)), blocks, int(culled), tmap, tile)


def check_render_budget(quads: int, resolution: int, renderer: str) -> None:
    """Refuse a GVD a software renderer would take minutes to draw, naming the resolution that fits."""
    if quads <= MAX_SOFTWARE_QUADS or not any(n in renderer.lower() for n in SOFTWARE_RENDERERS):
        return
    # Quads grow faster than the resolution (2.4x to 2.7x per doubling on the comb; the square-root rule suggested
    # 3328 px for its 4096, which needs 4.4 million), so scale the resolution by the budget's share itself.
    fits = max(16, int(resolution * MAX_SOFTWARE_QUADS / quads) // 64 * 64)
    raise InputError([Problem("resolution", (
        f"{resolution} px needs {quads:,} tile-site quads, over the {MAX_SOFTWARE_QUADS:,} a software renderer "
        f"({renderer}) draws in reasonable time (about 6 us each): the obstacles have features far below a pixel; "
        f"use --resolution {fits} or less, or a machine with a GPU"))])


def real_edge_masks(sites: Sites) -> np.ndarray:
    """(ns, 2) int32 bit masks: bit k (of 64) set where site edge k -> k + 1 is a ring edge (walls: both)."""
    ns = sites.n_sites
    masks = np.zeros((ns, 2), dtype=np.int64)
    v = sites.piece_vert
    for s in range(ns):
        a, b = int(sites.piece_ptr[s]), int(sites.piece_ptr[s + 1])
        cyc = v[a:b]
        if len(cyc) == 2:
            real = np.array([True, True])
        else:
            real = sites.ring_next[cyc] == np.concatenate((cyc[1:], cyc[:1]))
        for k in np.flatnonzero(real):
            masks[s, k // 32] |= 1 << (k % 32)
    return (((masks + 2**31) % 2**32) - 2**31).astype(np.int32)


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Double-single split: hi = float32(x), lo = float32(x - hi)."""
    hi = x.astype(np.float32)
    lo = (x - hi.astype(np.float64)).astype(np.float32)
    return hi, lo


def _draw(ctx, sites: Sites, tiles, tsites, treach, h, tile, max_block, labels, dist):
    """Shade the (tile, site) quads into an atlas of tile slots, pass by pass; copy the slots into the images."""
    import moderngl

    r = _renderer(ctx)
    block = r.max_block if max_block is None else max(tile, min(int(max_block), r.max_block))
    x0, y0 = float(sites.bounds[0]), float(sites.bounds[1])
    # Slot of every quad: the quads are sorted by tile, so a tile's quads are one run.
    new = np.ones(len(tiles), dtype=bool)
    if len(tiles) > 1:
        new[1:] = np.any(tiles[1:] != tiles[:-1], axis=1)
    slot = np.cumsum(new) - 1
    rects = np.ascontiguousarray(tiles[new])
    nslots = len(rects)
    if nslots == 0:
        return 0.0, 0.0, 0
    cols = max(1, min(nslots, block // tile))
    per_pass = cols * max(1, block // tile)
    pass_rows = -(-min(nslots, per_pass) // cols)
    aw, ah = cols * tile, pass_rows * tile
    pv = sites.ring_xy[sites.piece_vert] - np.array([x0, y0])
    hi, lo = _split(pv)
    tw = 4096  # the shader addresses texel i as (i & 4095, i >> 12)
    th = max(1, (len(pv) + tw - 1) // tw)
    texdata = np.zeros((th * tw, 4), dtype=np.float32)
    texdata[: len(pv), 0:2] = hi
    texdata[: len(pv), 2:4] = lo
    tex = ctx.texture((tw, th), 4, texdata.tobytes(), dtype="f4")
    tex.filter = (moderngl.NEAREST, moderngl.NEAREST)
    starts = sites.piece_ptr[:-1].astype(np.int32)
    counts = np.diff(sites.piece_ptr).astype(np.int32)
    masks = real_edge_masks(sites)
    prog = r.prog
    prog["u_verts"].value = 0
    prog["u_h"].value = float(h)
    prog["u_size"].value = (float(aw), float(ah))
    atlas_id = np.empty((ah, aw), dtype=np.int32)
    atlas_d = np.empty((ah, aw), dtype=np.float32)
    rb_id = ctx.renderbuffer((aw, ah), components=1, dtype="i4")
    rb_d = ctx.renderbuffer((aw, ah), components=1, dtype="f4") if dist is not None else None
    depth = ctx.depth_renderbuffer((aw, ah))
    fbo = ctx.framebuffer([rb_id] if rb_d is None else [rb_id, rb_d], depth)
    t_render = 0.0
    t_read = 0.0
    npass = 0
    try:
        for a in range(0, nslots, per_pass):
            t = time.perf_counter()
            b = min(nslots, a + per_pass)
            q0, q1 = np.searchsorted(slot, [a, b])
            sel = slice(int(q0), int(q1))
            s = tsites[sel]
            local = slot[sel] - a
            ax = (local % cols) * tile
            ay = (local // cols) * tile
            inst = np.empty(len(s), dtype=[("rect", "f4", 4), ("origin", "f4", 4), ("site", "i4", 3),
                                           ("mask", "i4", 2), ("inv_depth", "f4")])
            inst["rect"][:, 0] = ax
            inst["rect"][:, 1] = ay
            inst["rect"][:, 2] = ax + (tiles[sel, 3] - tiles[sel, 1])
            inst["rect"][:, 3] = ay + (tiles[sel, 2] - tiles[sel, 0])
            ohx, olx = _split(tiles[sel, 1].astype(np.float64) * h)
            ohy, oly = _split(tiles[sel, 0].astype(np.float64) * h)
            inst["origin"] = np.column_stack([ohx, ohy, olx, oly])
            inst["site"] = np.column_stack([s, starts[s], counts[s]])
            inst["mask"] = masks[s]
            # Depth is normalised per tile: only fragments of one tile are ever compared.
            inst["inv_depth"] = 1.0 / np.maximum(treach[sel], 1e-30)
            ibuf = ctx.buffer(inst.tobytes())
            try:
                fbo.use()
                ctx.viewport = (0, 0, aw, ah)
                # Depth only: every pixel of a used slot lies in a tile whose nearest site is one of its candidates,
                # so the colour attachments are overwritten there; unused slots are never copied.
                fbo.clear(depth=1.0)
                ctx.enable_only(moderngl.DEPTH_TEST)
                ctx.depth_func = "<"
                tex.use(0)
                vao = ctx.vertex_array(prog, [(r.corners, "2f", "in_corner"),
                                              (ibuf, "4f 4f 3i 2i 1f/i", "in_rect", "in_origin", "in_site",
                                               "in_mask", "in_inv_depth")])
                vao.render(moderngl.TRIANGLE_STRIP, vertices=4, instances=len(s))
                vao.release()
                ctx.finish()
            finally:
                ibuf.release()
            t_render += time.perf_counter() - t
            t = time.perf_counter()
            used = -(-(b - a) // cols) * tile
            fbo.read_into(atlas_id, viewport=(0, 0, aw, used), components=1, attachment=0, dtype="i4")
            scatter_tiles(labels, atlas_id, rects, a, b - a, tile, cols)
            if dist is not None:
                fbo.read_into(atlas_d, viewport=(0, 0, aw, used), components=1, attachment=1, dtype="f4")
                scatter_tiles(dist, atlas_d, rects, a, b - a, tile, cols)
            t_read += time.perf_counter() - t
            npass += 1
    finally:
        fbo.release()
        rb_id.release()
        if rb_d is not None:
            rb_d.release()
        depth.release()
        tex.release()
    return t_render, t_read, npass
