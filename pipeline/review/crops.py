"""Writing what the review shows of a changed block: crops of both screenshots sharing one
256-colour palette, a transparent overlay of the changed pixels (their area tinted and ringed, so
one changed glyph shows at a third of its size), and a close-up of the first change.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image

from pipeline.atomic import write_png_atomic

# The close-up: the first changed region at full size, with some context around it.
ZOOM_ROWS, ZOOM_COLUMNS = 120, 300
ZOOM_PAD_ROWS, ZOOM_PAD_COLUMNS = 16, 48
OVERLAY_CELL = 12  # px; cells holding a changed pixel are tinted, so one glyph stands out
OVERLAY_PIXEL = (230, 0, 40, 255)
OVERLAY_TINT = (230, 0, 40, 40)
OVERLAY_RING = (230, 0, 40, 190)
PAD_VALUE = 255  # outside the screenshot (a crop reaching past its end)
PALETTE_COLOURS = 256
PNG_COMPRESSION = 3  # zlib level of the crops: most of the size of level 9, a third of its time


def zoom_window(mask: np.ndarray) -> tuple[slice, slice] | None:
    """Rows and columns around the first changed region (at most ZOOM_ROWS x ZOOM_COLUMNS)."""
    rows = np.flatnonzero(mask.any(axis=1))
    if not len(rows):
        return None
    top = max(0, int(rows[0]) - ZOOM_PAD_ROWS)
    bottom = min(mask.shape[0], top + ZOOM_ROWS)
    last = rows[rows < bottom - ZOOM_PAD_ROWS]
    bottom = min(bottom, int(last[-1]) + 1 + ZOOM_PAD_ROWS) if len(last) else bottom
    cols = np.flatnonzero(mask[top:bottom].any(axis=0))
    left = max(0, int(cols[0]) - ZOOM_PAD_COLUMNS)
    right = min(mask.shape[1], left + ZOOM_COLUMNS, int(cols[-1]) + 1 + ZOOM_PAD_COLUMNS)
    return slice(top, bottom), slice(left, right)


def size_of(window: np.ndarray) -> tuple[int, int]:
    return (int(window.shape[1]), int(window.shape[0]))


def columns(
    width: int,
    boxes: Sequence[tuple[float, float, float, float]],
    spread: tuple[int, int] | None,
    pad: int,
) -> tuple[int, int]:
    """The crop's columns: the element's box (both versions) and every changed column, padded."""
    left = min(round(box[0]) for box in boxes)
    right = max(round(box[0] + box[2]) for box in boxes)
    if spread is not None:
        left, right = min(left, spread[0]), max(right, spread[1])
    left, right = max(0, left - pad), min(width, right + pad)
    return (left, right) if right > left else (0, width)


def window(image: np.ndarray, top: int, bottom: int, left: int, right: int) -> np.ndarray:
    """Rows `top:bottom`, columns `left:right` of `image`, padded white where rows fall outside."""
    out = np.full((bottom - top, right - left, image.shape[2]), PAD_VALUE, np.uint8)
    src_top, src_bottom = max(0, top), min(image.shape[0], bottom)
    if src_bottom > src_top:
        out[src_top - top : src_bottom - top] = image[src_top:src_bottom, left:right]
    return out


def save_palette(windows: Sequence[np.ndarray], paths: Sequence[Path]) -> None:
    """Save crops as 256-colour PNGs sharing one palette (quantised together): a third of the
    bytes of full colour, and pixels equal in both crops stay equal in both files."""
    rgb = np.ascontiguousarray(np.concatenate(windows, axis=0)[..., :3])
    palette = Image.fromarray(rgb, "RGB").quantize(
        PALETTE_COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
    )
    top = 0
    for window, path in zip(windows, paths, strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        crop = palette.crop((0, top, window.shape[1], top + window.shape[0]))
        write_png_atomic(path, crop, compress_level=PNG_COMPRESSION)
        top += window.shape[0]


def save_overlay(mask: np.ndarray, path: Path) -> None:
    """The changed pixels in red on transparent, the cells around them tinted and ringed, so
    one changed glyph still shows when the crop is drawn at a third of its size."""
    height, width = mask.shape
    cell = OVERLAY_CELL
    padded = np.zeros((-(-height // cell) * cell, -(-width // cell) * cell), bool)
    padded[:height, :width] = mask
    cells = padded.reshape(padded.shape[0] // cell, cell, padded.shape[1] // cell, cell)
    near = _grow(np.asarray(cells.any(axis=(1, 3))))
    ring = _grow(near) & ~near

    def full(grid: np.ndarray) -> np.ndarray:
        return np.repeat(np.repeat(grid, cell, 0), cell, 1)[:height, :width]

    rgba = np.zeros((height, width, 4), np.uint8)
    rgba[full(near)] = OVERLAY_TINT
    rgba[full(ring)] = OVERLAY_RING
    rgba[mask] = OVERLAY_PIXEL
    write_png_atomic(path, Image.fromarray(rgba, "RGBA"), compress_level=PNG_COMPRESSION)


def _grow(grid: np.ndarray) -> np.ndarray:
    """The cells of `grid` and their eight neighbours."""
    out = grid.copy()
    out[1:] |= grid[:-1]
    out[:-1] |= grid[1:]
    wide = out.copy()
    out[:, 1:] |= wide[:, :-1]
    out[:, :-1] |= wide[:, 1:]
    return out
