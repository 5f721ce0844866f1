"""A picture of the ECM for ``miran ecm --png``: the scene, the medial axis coloured by clearance, closest points.

The PNG file is written with zlib and struct only (8-bit RGB), so no imaging library is needed.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np
from core.jitcache import jit

from core.scene.atomic import write_bytes_atomic

from .debug import closest_point_segments, medial_axis_segments
from .graph import ECM

FREE = (250, 250, 246)
OBSTACLE = (90, 90, 96)
CLOSEST = (200, 200, 210)

# A perceptual ramp (dark blue -> teal -> yellow) for clearance, from low to high.
_RAMP = np.array([[48, 18, 120], [33, 102, 172], [28, 160, 150], [110, 200, 90], [250, 220, 40]],
                 dtype=np.float64)


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


def ramp(t: np.ndarray) -> np.ndarray:
    """(n, 3) uint8 colours of values t in [0, 1]."""
    t = np.clip(np.asarray(t, dtype=np.float64), 0.0, 1.0) * (len(_RAMP) - 1)
    i = np.minimum(t.astype(np.int64), len(_RAMP) - 2)
    f = (t - i)[:, None]
    return np.round(_RAMP[i] * (1 - f) + _RAMP[i + 1] * f).astype(np.uint8)


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


def ecm_picture(ecm: ECM, labels: np.ndarray, closest_points: bool = True) -> np.ndarray:
    """(H, W, 3) uint8 image (row 0 at the top): obstacles from the GVD's labels, closest points, medial axis."""
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
    if len(segs):
        top = float(np.percentile(clr, 98)) if len(clr) else 1.0
        cols = ramp(clr / max(top, 1e-12))
        draw_segments(img, segs.astype(np.float64), cols, x0, y0, h, width)
    return img[::-1].copy()
