"""Coarser outlines for the embedded font subsets: the biggest part of the page is the Chinese
hand's glyph data (~375 bytes a glyph at 1000 units per em), and most of that buys precision
no screen shows.

Two lossy steps that together move an outline by at most 1.5 units of the coarser em: ~0.7 px
at the largest size the page sets text (the ~58 px title), ~0.2 px at the panels' 11-19 px
words; screenshots before/after differ only in the antialiasing of glyph edges:
- the em is rescaled to `EMBED_UPM` units (1 unit = 0.46 px at 58 px), so WOFF2's triplet
  encoding stores most point deltas in one byte instead of two;
- an on-curve point lying within `IMPLIED_TOLERANCE` units of the midpoint of its two off-curve
  neighbours is dropped: TrueType then implies it at that midpoint (the brush font has thousands).
Text is measured with the advances and vertical metrics on the same grid (`on_grid`), so the
layout's widths are the embedded font's widths exactly.
"""

from __future__ import annotations

from fontTools.misc.roundTools import otRound
from fontTools.ttLib import TTFont
from fontTools.ttLib.scaleUpem import scale_upem
from fontTools.ttLib.tables._g_l_y_f import Glyph, GlyphCoordinates, flagOverlapSimple

# 125 keeps the 1000-unit CJK advances and Ma Shan Zheng's ascent/descent (880/120) exact.
# Measured on the example's 252 glyphs: 94.5 KB at 1000, 60.8 KB at 250, 48.3 KB at 125.
EMBED_UPM = 125
IMPLIED_TOLERANCE = 1  # units of EMBED_UPM: 0.008 em


def on_grid(units: float, upm: int) -> float:
    """`units` of a `upm`-unit em as the embedded font stores it, in em."""
    return otRound(units * EMBED_UPM / upm) / EMBED_UPM


def coarsen(font: TTFont) -> None:
    """Rescale `font` (a TrueType-outline font) to `EMBED_UPM` and drop near-implied points."""
    if font["head"].unitsPerEm != EMBED_UPM:
        scale_upem(font, EMBED_UPM)
    glyf = font["glyf"]
    for name in font.getGlyphOrder():
        glyph = glyf[name]
        if glyph.numberOfContours > 0:
            _drop_near_implied(glyph)


def _drop_near_implied(glyph: Glyph) -> None:
    """Remove each on-curve point between two off-curve points that sits within the tolerance
    of their midpoint (its neighbours are never removed in the same pass, so the test is always
    against points that stay)."""
    coords = list(glyph.coordinates)
    flags = list(glyph.flags)
    keep = [True] * len(coords)
    start = 0
    for end in glyph.endPtsOfContours:
        n = end - start + 1
        for i in range(n):
            here, prev, nxt = start + i, start + (i - 1) % n, start + (i + 1) % n
            if not flags[here] & 1 or flags[prev] & 1 or flags[nxt] & 1:
                continue
            mid_x = (coords[prev][0] + coords[nxt][0]) / 2
            mid_y = (coords[prev][1] + coords[nxt][1]) / 2
            if (
                abs(mid_x - coords[here][0]) <= IMPLIED_TOLERANCE
                and abs(mid_y - coords[here][1]) <= IMPLIED_TOLERANCE
            ):
                keep[here] = False
        start = end + 1
    if all(keep):
        return
    ends: list[int] = []
    kept = 0
    start = 0
    for end in glyph.endPtsOfContours:
        kept += sum(keep[start : end + 1])
        ends.append(kept - 1)
        start = end + 1
    glyph.coordinates = GlyphCoordinates([c for c, k in zip(coords, keep, strict=True) if k])
    new_flags = bytearray(f for f, k in zip(flags, keep, strict=True) if k)
    new_flags[0] |= flags[0] & flagOverlapSimple  # the glyph-wide bit lives on the first point
    glyph.flags = new_flags
    glyph.endPtsOfContours = ends
