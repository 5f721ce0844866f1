"""A picture of the ECM for ``miran ecm --png``: the scene, the medial axis coloured by clearance, closest points,
and a legend strip below it with the clearance colours (``core.ecm.colours``: the same map as the app's overlay).

The PNG file is written with zlib and struct only (8-bit RGB), so no imaging library is needed.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
from core.jitcache import jit

from core.scene.atomic import write_bytes_atomic

from .colours import CLEARANCE_RGB, clearance_rgb, clearance_top, legend_entries
from .debug import closest_point_segments, medial_axis_segments
from .graph import ECM
from .pixelfont import GLYPH_H, draw_text, text_width

FREE = (250, 250, 246)
OBSTACLE = (90, 90, 96)
CLOSEST = (200, 200, 210)
TEXT = (31, 41, 55)


def write_png(path: str | Path, rgb: np.ndarray) -> None:
    """Write an (H, W, 3) uint8 image (row 0 at the top) as an 8-bit RGB PNG, atomically."""
    write_bytes_atomic(path, png_bytes(rgb))


def png_bytes(rgb: np.ndarray) -> bytes:
    """An (H, W, 3) uint8 image (row 0 at the top) as the bytes of an 8-bit RGB PNG file."""
    img = np.ascontiguousarray(rgb, dtype=np.uint8)
    h, w = img.shape[:2]
    raw = np.empty((h, 1 + 3 * w), dtype=np.uint8)
    raw[:, 0] = 0
    raw[:, 1:] = img.reshape(h, 3 * w)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw.tobytes(), 6))
    png += chunk(b"IEND", b"")
    return png


@jit
def draw_segments(img, segs, colors, x0, y0, h, width):
    """Draw segments (scene units) into img (row 0 = lowest y) with the given line width in pixels."""
    H = img.shape[0]
    W = img.shape[1]
    r = max(0, (width - 1) // 2)
    for k in range(segs.shape[0]):
        ax = (segs[k, 0] - x0) / h
        ay = (segs[k, 1] - y0) / h
        bx = (segs[k, 2] - x0) / h
        by = (segs[k, 3] - y0) / h
        n = int(max(abs(bx - ax), abs(by - ay)) * 2.0) + 1
        for s in range(n + 1):
            t = s / n
            j = int(ax + t * (bx - ax))
            i = int(ay + t * (by - ay))
            for di in range(-r, r + 1):
                for dj in range(-r, r + 1):
                    ii = i + di
                    jj = j + dj
                    if 0 <= ii < H and 0 <= jj < W:
                        img[ii, jj, 0] = colors[k, 0]
                        img[ii, jj, 1] = colors[k, 1]
                        img[ii, jj, 2] = colors[k, 2]


def legend_strip(width: int, top: float) -> np.ndarray:
    """(h, width, 3) uint8 strip: "clearance" and one swatch with its range per colour bin, wrapped to the width."""
    scale = 2 if width >= 480 else 1
    sw, gap, pad = 4 * GLYPH_H * scale // 2, 3 * scale, 3 * scale
    row_h = GLYPH_H * scale + 2 * pad
    items = [(None, "clearance:")] + [(CLEARANCE_RGB[i], text) for i, (_, text) in enumerate(legend_entries(top))]
    rows: list[list[tuple]] = [[]]
    x = pad
    for colour, text in items:
        w = (sw + gap if colour is not None else 0) + text_width(text, scale) + 3 * gap
        if x + w > width and rows[-1]:
            rows.append([])
            x = pad
        rows[-1].append((colour, text, x))
        x += w
    img = np.empty((row_h * len(rows) + pad, width, 3), dtype=np.uint8)
    img[:] = FREE
    img[0, :] = OBSTACLE
    for row, entries in enumerate(rows):
        y = row * row_h + pad
        for colour, text, x in entries:
            if colour is not None:
                img[y:y + GLYPH_H * scale, x:min(width, x + sw)] = colour
                x += sw + gap
            draw_text(img, text, x, y, TEXT, scale)
    return img


def ecm_picture(ecm: ECM, labels: np.ndarray, closest_points: bool = True, legend: bool = True) -> np.ndarray:
    """(H, W, 3) uint8 image (row 0 at the top): obstacles from the GVD's labels, closest points, the medial axis
    in the shared clearance colours, and (``legend``) the legend strip under the scene."""
    H, W = labels.shape
    img = np.empty((H, W, 3), dtype=np.uint8)
    img[:] = FREE
    img[labels < 0] = OBSTACLE
    x0, y0 = float(ecm.sites.bounds[0]), float(ecm.sites.bounds[1])
    h = ecm.pixel
    width = max(1, int(round(max(H, W) / 1024)))
    if closest_points and ecm.n_events:
        cps = closest_point_segments(ecm).astype(np.float64)
        col = np.tile(np.array(CLOSEST, dtype=np.uint8), (len(cps), 1))
        draw_segments(img, cps, col, x0, y0, h, 1)
    segs, clr = medial_axis_segments(ecm)
    top = clearance_top(clr)
    if len(segs):
        draw_segments(img, segs.astype(np.float64), clearance_rgb(clr, top), x0, y0, h, width)
    img = img[::-1]
    if legend:
        img = np.concatenate([img, legend_strip(W, top)], axis=0)
    return np.ascontiguousarray(img)
