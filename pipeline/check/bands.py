"""Full-page screenshots in bands, each band captured only when what it shows changed.

Rasterising a 15,000-px page is most of what a screenshot costs (encoding is the rest), and in
the edit-rebuild loop most of the page is what it was. So the page is cut into horizontal bands
of about `BAND_PX` rows, and each band gets a key: a hash of everything that decides its pixels
(`BANDS_JS`): every element whose box, widened by `MARGIN_PX` for shadows, wobble filters and
glyph overhang, reaches into the band - its tag, attributes, own text, box and the computed
paint properties in `PAINT_PROPERTIES`, and its ::before/::after - plus what every band depends
on: the page's style sheets and SVG definitions, the width, the theme, the browser's version and
the platform fonts. A box that ends below the band (the page, a section) is described only down
to the band's window when nothing it paints there can depend on where it ends, so a band above an
edit that made the page taller keeps its key; a background fixed to the viewport (as tall as the
page here) ties its box to the page's height. A band whose
key is in the store (`BandStore`, under the cache folder) is reused as stored; the others are
captured, in one clip per run of adjacent bands, and stored. Bands are compressed apart and
joined without re-encoding (`pipeline.check.pngjoin`).

Two details make a reused band exactly the pixels a capture would give:
  - the page is captured in a viewport as tall as the page (so every band is a crop of one
    layout; a fixed element or a fixed background is where a full-page capture puts it), and
  - cuts never pass through an SVG or a filtered, masked or clipped element (nor within
    `MARGIN_PX` of one): Chromium rasterises such an element differently when a clip cuts it.
    A clip also takes `MARGIN_PX` rows more on each side than its bands.
Whatever the page's scripts can paint without the DOM changing (a canvas, video, frame, or a
running animation) is never reused: bands reaching such an element are always captured.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import io
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from pipeline.atomic import write_atomic
from pipeline.check import pngjoin
from pipeline.errors import DiskFull, OutputError
from pipeline.paths import cache_dir

BAND_PX = 1024
MARGIN_PX = 64
MIN_BAND_PX = 256  # a cut moved off an SVG leaves at least this much above it
MAX_BAND_PX = 4096  # ... and a band past this is cut through whatever is there
MAX_CLIP_PX = 8192  # rows per capture: a cold 20,000-px page is taken in a few clips
STORE_DIR = "shots"
STORE_MAX_BYTES = 512 * 2**20  # the oldest bands go past this
KEY_VERSION = "bands-1"  # bump when anything below changes what a key means
FAST_PNG = True  # Page.captureScreenshot optimizeForSpeed: lossless, zlib's fastest level

PAINT_PROPERTIES = (
    "display", "visibility", "opacity", "color", "background-color", "background-image",
    "background-position", "background-size", "background-repeat", "background-attachment",
    "border-top", "border-right", "border-bottom", "border-left", "border-radius", "outline",
    "box-shadow", "text-shadow", "transform", "transform-origin", "filter", "backdrop-filter",
    "clip-path", "mask", "mix-blend-mode", "z-index", "overflow", "font-family", "font-size",
    "font-weight", "font-style", "font-variant", "line-height", "letter-spacing", "word-spacing",
    "text-align", "text-decoration", "text-transform", "white-space", "writing-mode",
    "list-style", "fill", "fill-opacity", "stroke", "stroke-width", "stroke-dasharray",
    "stroke-opacity", "paint-order", "color-scheme", "caret-color", "cursor",
)
# An SVG element paints only through these (its geometry is in its attributes, its box is kept
# anyway): reading fewer properties for the page's thousands of SVG shapes halves the cost.
SVG_PAINT_PROPERTIES = (
    "display", "visibility", "opacity", "color", "fill", "fill-opacity", "stroke",
    "stroke-width", "stroke-dasharray", "stroke-opacity", "stroke-linecap", "stroke-linejoin",
    "paint-order", "transform", "filter", "clip-path", "mask", "mix-blend-mode", "font-family",
    "font-size", "font-weight", "font-style", "letter-spacing", "text-decoration",
)

# cyrb53, a fast 53-bit string hash; a band key uses it twice, with two seeds: 106 bits.
HASH_JS = """const hash = (str, seed) => {  // cyrb53
    let h1 = 0xdeadbeef ^ seed, h2 = 0x41c6ce57 ^ seed;
    for (let i = 0; i < str.length; i++) {
      const c = str.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
  };"""
BANDS_JS = (
    "(opts) => {\n  "
    + HASH_JS
    + """
  const key = (str) => hash(str, 1) + hash(str, 2);
  const {bandPx, margin, minBand, maxBand, props, svgProps} = opts;
  const doc = document.documentElement;
  const height = Math.ceil(Math.max(doc.scrollHeight, document.body ? document.body.scrollHeight : 0));
  const styles = [...document.querySelectorAll('style')].map(e => e.textContent).join('');
  // In the tall layout the viewport is as tall as the page: only a media query on the
  // viewport's height or shape makes every band depend on the page's height.
  const byHeight = /@media[^{]*(height|aspect-ratio|orientation)/.test(styles);
  const page = [innerWidth, byHeight ? innerHeight : '', devicePixelRatio, scrollX, scrollY,
                matchMedia('(prefers-color-scheme: dark)').matches];
  for (const el of document.querySelectorAll(
      'style, link, base, defs, symbol, filter, pattern, linearGradient, radialGradient, ' +
      'clipPath, mask, marker')) page.push(el.outerHTML);
  const live = new Set(document.querySelectorAll('canvas, video, iframe, object, embed'));
  for (const a of document.getAnimations()) {
    const t = a.effect && a.effect.target;
    if (t) live.add(t);
  }
  const svgNS = 'http://www.w3.org/2000/svg';
  const list = (v) => v.split(',').map(x => x.trim());
  const px = /^-?[\\d.]+px$/;
  // A box whose paint inside a band does not depend on how far below the band it ends: no
  // transform, effect or pseudo-element that could be placed by its size, background tiles of
  // fixed pixel size from its top left, shadows within the margin, corners not sized by it.
  const stripSafe = (s, pseudo) => !pseudo && s.transform === 'none' && s.filter === 'none' &&
    s.backdropFilter === 'none' && s.clipPath === 'none' && s.maskImage === 'none' &&
    s.borderImageSource === 'none' && s.position !== 'fixed' && s.position !== 'sticky' &&
    !s.borderRadius.includes('%') &&
    (s.backgroundImage === 'none' || (
      list(s.backgroundAttachment).every(a => a === 'scroll') &&
      list(s.backgroundSize).every(v => v.split(/\\s+/).length === 2 && v.split(/\\s+/).every(c => px.test(c))) &&
      list(s.backgroundPosition).every(v => v.split(/\\s+/).every(c => px.test(c) || c === '0%')))) &&
    (s.boxShadow === 'none' || (s.boxShadow.match(/-?[\\d.]+px/g) || []).every(n => Math.abs(parseFloat(n)) <= margin / 2));
  const items = [], atoms = [];
  for (const el of document.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    const top = r.top + scrollY, bottom = r.bottom + scrollY;
    const s = getComputedStyle(el);
    const isSvg = el.namespaceURI === svgNS;
    const parts = [el.tagName];
    for (const a of el.attributes) if (a.name !== 'data-tujie-probe') parts.push(a.name + '=' + a.value);
    // Whitespace between elements paints nothing where white-space collapses (its effect on
    // its neighbours' places is in their boxes): adding an element must not change its parent.
    const collapses = s.whiteSpace === 'normal' || s.whiteSpace === 'nowrap';
    for (const n of el.childNodes) {
      if (n.nodeType === 3 && !(collapses && !n.data.trim())) parts.push('"' + n.data);
    }
    for (const p of (isSvg ? svgProps : props)) {
      // transform-origin is resolved against the box's size, and means nothing untransformed
      if (p !== 'transform-origin' || s.transform !== 'none') parts.push(s.getPropertyValue(p));
    }
    let pseudo = false;
    if (!isSvg) {
      for (const which of ['::before', '::after']) {
        const ps = getComputedStyle(el, which);
        if (ps.content !== 'none' && ps.content !== 'normal') {
          pseudo = true;
          parts.push(which, ps.content);
          for (const p of props) parts.push(ps.getPropertyValue(p));
        }
      }
      // A fixed background is placed by the viewport, here as tall as the page.
      if (s.backgroundAttachment.includes('fixed')) parts.push('viewport', innerHeight);
    }
    let isLive = false;
    for (let up = el; up; up = up.parentElement) if (live.has(up)) { isLive = true; break; }
    const base = parts.join('\\u0001');
    const box = [r.left.toFixed(2), top.toFixed(2), r.width.toFixed(2)];
    items.push({lo: top - margin, hi: bottom + margin, bottom, base, box, live: isLive,
                safe: !isSvg && stripSafe(s, pseudo),
                whole: key(base + box.join(',') + ',' + r.height.toFixed(2))});
    const outerSvg = el.tagName === 'svg' && !(el.parentElement && el.parentElement.closest('svg'));
    const effects = !isSvg && (s.filter !== 'none' || s.backdropFilter !== 'none' ||
                               s.clipPath !== 'none' || s.maskImage !== 'none');
    if ((outerSvg || effects) && r.width > 0 && r.height > 0) atoms.push([top - margin, bottom + margin]);
  }
  atoms.sort((a, b) => a[0] - b[0]);
  const blocked = [];
  for (const [a, b] of atoms) {
    const last = blocked[blocked.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b); else blocked.push([a, b]);
  }
  const cuts = [0];
  while (cuts[cuts.length - 1] < height) {
    const from = cuts[cuts.length - 1];
    let cut = from + bandPx;
    if (cut >= height) { cuts.push(height); break; }
    const hit = blocked.find(([a, b]) => a < cut && cut < b);
    if (hit) {
      const above = Math.floor(hit[0]), below = Math.ceil(hit[1]);
      if (above - from >= minBand) cut = above;
      else if (below - from <= maxBand) cut = below;
    }
    cuts.push(Math.min(Math.max(cut, from + 1), height));
  }
  const bands = cuts.slice(1).map(() => []);
  const live_bands = new Set();
  for (const it of items) {
    for (let i = 0; i < bands.length; i++) {
      if (it.hi < cuts[i] || it.lo > cuts[i + 1]) continue;
      if (it.live) { live_bands.add(i); continue; }
      // A strip-safe box that ends below this band's window is described down to the window:
      // a band above an edit that moved the page's bottom keeps its key.
      const end = cuts[i + 1] + margin;
      bands[i].push(it.safe && it.bottom > end
        ? key(it.base + it.box.join(',') + ',to ' + (end - parseFloat(it.box[1])).toFixed(2))
        : it.whole);
    }
  }
  return {height, cuts, page: key(page.join('\\u0001')),
          keys: bands.map((b, i) => live_bands.has(i) ? null : key(b.join(',')))};
}"""
)


@functools.cache
def platform_fonts_fingerprint() -> str:
    """The fonts fontconfig offers (family and file): installing or removing one may change
    what a text falls back to, without any change in the page."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return "no fc-list"
    try:
        out = subprocess.run(
            [fc_list, "--format", "%{family}|%{file}\n"],
            capture_output=True, text=True, timeout=30, check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return "fc-list failed"
    return hashlib.sha256("\n".join(sorted(out.splitlines())).encode()).hexdigest()


class BandStore:
    """Compressed bands by key, one file each under `root` (written atomically, so concurrent
    builds may share it); the least recently used go once the store passes `max_bytes`."""

    def __init__(self, root: Path | None = None, max_bytes: int = STORE_MAX_BYTES) -> None:
        self.root = root if root is not None else cache_dir() / STORE_DIR
        self.max_bytes = max_bytes

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.band"

    def get(self, key: str) -> pngjoin.Band | None:
        path = self._path(key)
        try:
            band = pngjoin.Band.from_bytes(path.read_bytes())
            os.utime(path)  # recently used: pruned last
        except (OSError, pngjoin.BandFormatError):
            return None
        return band

    def put(self, key: str, band: pngjoin.Band) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, band.to_bytes())
        except DiskFull:
            raise  # named as such, not mistaken for a browser crash (the check does not retry it)
        except (OSError, OutputError):
            pass  # a read-only cache only costs the next build its captures

    def prune(self) -> int:
        """Remove the least recently used bands beyond `max_bytes`; how many went."""
        try:
            files = [(p.stat(), p) for p in self.root.glob("*/*.band")]
        except OSError:
            return 0
        total = sum(st.st_size for st, _p in files)
        removed = 0
        for st, path in sorted(files, key=lambda f: f[0].st_mtime):
            if total <= self.max_bytes:
                break
            try:
                path.unlink()
            except OSError:
                continue
            total -= st.st_size
            removed += 1
        return removed


@dataclass
class ShotStats:
    """How one screenshot was made: bands in all, captured now, taken from the store."""

    bands: int = 0
    captured: int = 0
    reused: int = 0


async def content_size(client: Any) -> tuple[float, int]:
    """The document's width in CSS pixels and its height in whole ones (at least 1)."""
    metrics = await client.send("Page.getLayoutMetrics")
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    return float(size["width"]), max(1, int(size["height"] + 0.999))


def band_key(context: dict[str, Any], page_key: str, top: int, bottom: int, band: str) -> str:
    """The store key of one band: the page-wide context, where the band is, what it shows."""
    body = json.dumps([KEY_VERSION, context, page_key, top, bottom, band], sort_keys=True)
    return hashlib.sha256(body.encode()).hexdigest()


async def banded_screenshot(
    page: Any, width: int, viewport_height: int, path: Path, store: BandStore,
    context: dict[str, Any],
) -> ShotStats:
    """Write the full page at `width` to `path` as a PNG, capturing only bands whose key
    (`context` adds what the page cannot tell: browser, fonts, theme) is not in `store`."""
    client = page._client
    _width, height = await content_size(client)
    try:
        for _attempt in range(2):  # a page whose height follows the viewport settles at once
            await client.send(
                "Emulation.setDeviceMetricsOverride",
                {
                    "width": width,
                    "height": height,
                    "deviceScaleFactor": 1,
                    "mobile": False,
                    # Lay the page out as tall as it is, but leave the visible size alone:
                    # otherwise Chromium rasterises the whole tall page at once, even when every
                    # band is reused (0.5 CPU-s a page); captures are the same pixels either way.
                    "dontSetVisibleSize": True,
                },
            )
            info = await page.evaluate(BANDS_JS, _options())
            if int(info["height"]) == height:
                break
            height = max(1, int(info["height"]))
        return await _compose(client, width, info, path, store, context)
    finally:
        await page.setViewport(
            {"width": width, "height": viewport_height, "deviceScaleFactor": 1}
        )


def _options() -> dict[str, Any]:
    return {
        "bandPx": BAND_PX,
        "margin": MARGIN_PX,
        "minBand": MIN_BAND_PX,
        "maxBand": MAX_BAND_PX,
        "props": list(PAINT_PROPERTIES),
        "svgProps": list(SVG_PAINT_PROPERTIES),
    }


async def _compose(
    client: Any, width: int, info: dict[str, Any], path: Path, store: BandStore,
    context: dict[str, Any],
) -> ShotStats:
    cuts = [int(c) for c in info["cuts"]]
    spans = list(zip(cuts, cuts[1:], strict=False))
    keys = [
        band_key(context, info["page"], top, bottom, k) if k is not None else None
        for (top, bottom), k in zip(spans, info["keys"], strict=True)
    ]
    found: list[pngjoin.Band | None] = [store.get(k) if k else None for k in keys]
    stats = ShotStats(bands=len(spans))
    for first, last in _missing_runs(found, spans):
        fresh = await _capture(client, width, spans[first:last], cuts[-1])
        for i, band in enumerate(fresh, start=first):
            found[i] = band
            key = keys[i]
            if key is not None:
                store.put(key, band)
        stats.captured += last - first
    stats.reused = stats.bands - stats.captured
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, pngjoin.join([b for b in found if b is not None]))
    return stats


def _missing_runs(
    found: list[pngjoin.Band | None], spans: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """[first, last) index ranges of adjacent bands still to capture, each at most
    `MAX_CLIP_PX` rows tall (or one band, if a band alone is taller)."""
    runs: list[tuple[int, int]] = []
    for i, band in enumerate(found):
        if band is not None:
            continue
        if runs and runs[-1][1] == i and spans[i][1] - spans[runs[-1][0]][0] <= MAX_CLIP_PX:
            runs[-1] = (runs[-1][0], i + 1)
        else:
            runs.append((i, i + 1))
    return runs


async def _capture(
    client: Any, width: int, spans: list[tuple[int, int]], page_height: int
) -> list[pngjoin.Band]:
    """Capture the rows of `spans` (adjacent) in one clip, `MARGIN_PX` wider each way."""
    top, bottom = spans[0][0], spans[-1][1]
    lo, hi = max(0, top - MARGIN_PX), min(page_height, bottom + MARGIN_PX)
    data = await client.send(
        "Page.captureScreenshot",
        {
            "format": "png",
            "optimizeForSpeed": FAST_PNG,
            "clip": {"x": 0, "y": lo, "width": width, "height": hi - lo, "scale": 1},
        },
    )
    # Decoding and compressing 10-20 MB of pixels is CPU work that releases the GIL (Pillow's
    # decoder, numpy, zlib): done in a worker thread, it overlaps the other pages' browser work.
    png = base64.b64decode(data["data"])
    return await asyncio.get_running_loop().run_in_executor(
        None, _split, png, [(a - lo, b - lo) for a, b in spans], (hi - lo, width)
    )


def _split(png: bytes, rows: list[tuple[int, int]], size: tuple[int, int]) -> list[pngjoin.Band]:
    """The captured clip `png` (`size` = rows, columns) cut at `rows` into compressed bands:
    Chromium's fast PNG (rows filtered Up) without decoding its pixels, any other by Pillow."""
    found = pngjoin.up_filtered_rows(png)
    if found is not None:
        filtered, channels = found
        shape = (filtered.shape[0], (filtered.shape[1] - 1) // channels)
    else:
        with Image.open(io.BytesIO(png)) as image:
            pixels = np.asarray(image.convert("RGB"))
        shape = pixels.shape[:2]
    if shape != size:
        raise RuntimeError(
            f"Chromium captured {shape[1]}x{shape[0]} px for a {size[1]}x{size[0]} px clip"
        )
    if found is not None:
        return pngjoin.bands_from_up_rows(filtered, channels, rows)
    return [pngjoin.compress_band(pixels[a:b]) for a, b in rows]
