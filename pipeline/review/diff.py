"""Screenshot and plan differences for `tujie review`: pixelmatch between this build's shots and
the last published ones (only over the rows that changed, so long pages stay fast), changed-pixel
percentages per card, and what changed in the plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops
from pixelmatch.contrib.PIL import pixelmatch

# pixelmatch's colour-distance threshold (YIQ, 0..1; smaller is stricter). 0.1 is the library's
# default: it ignores anti-aliasing noise and JPEG-like dithering but catches any real change.
PIXELMATCH_THRESHOLD = 0.1
BAND_ROWS = 64  # rows compared at a time; identical bands are skipped without pixelmatch
CONTEXT_PX = 2  # pixelmatch's anti-aliasing test looks at neighbours: keep them in each crop
# Beyond this many differing-region pixels, pixelmatch (pure Python) would take minutes: count
# with Pillow's per-channel difference instead and say the figure is approximate.
MAX_PIXELMATCH_PIXELS = 3_000_000
APPROX_CHANNEL_DELTA = int(255 * PIXELMATCH_THRESHOLD)
FADE = 0.75  # how far the unchanged page is faded towards white in the diff image
DIFF_RED = (230, 0, 40)
PAD_COLOUR = (255, 255, 255)

Box = list[float]


@dataclass
class ShotDiff:
    """One theme-and-width screenshot compared with its baseline."""

    name: str
    changed_pixels: int
    total_pixels: int
    cards: dict[str, float] = field(default_factory=dict)  # card -> changed %
    approximate: bool = False

    @property
    def changed_pct(self) -> float:
        return round(100.0 * self.changed_pixels / max(1, self.total_pixels), 3)


def _padded(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    rgb = image.convert("RGB")
    if rgb.size == size:
        return rgb
    canvas = Image.new("RGB", size, PAD_COLOUR)
    canvas.paste(rgb, (0, 0))
    return canvas


def _changed_regions(old: Image.Image, new: Image.Image) -> list[tuple[int, int, int, int]]:
    """Bounding boxes of the differing pixels, band by band."""
    regions = []
    width, height = new.size
    for top in range(0, height, BAND_ROWS):
        bottom = min(height, top + BAND_ROWS)
        band = ImageChops.difference(
            old.crop((0, top, width, bottom)), new.crop((0, top, width, bottom))
        )
        box = band.getbbox()
        if box:
            regions.append((box[0], top + box[1], box[2], top + box[3]))
    return regions


def diff_mask(old: Image.Image, new: Image.Image) -> tuple[Image.Image, bool]:
    """An L-mode mask (255 = changed pixel) of `new` against `old` (same size), and whether it is
    the approximate Pillow count rather than pixelmatch's."""
    width, height = new.size
    mask = Image.new("L", new.size, 0)
    regions = _changed_regions(old, new)
    area = sum((r[2] - r[0] + 2 * CONTEXT_PX) * (r[3] - r[1] + 2 * CONTEXT_PX) for r in regions)
    if area > MAX_PIXELMATCH_PIXELS:
        delta = ImageChops.difference(old, new).split()
        strongest = ImageChops.lighter(ImageChops.lighter(delta[0], delta[1]), delta[2])
        return strongest.point(lambda v: 255 if v > APPROX_CHANNEL_DELTA else 0), True
    for left, top, right, bottom in regions:
        crop = (
            max(0, left - CONTEXT_PX),
            max(0, top - CONTEXT_PX),
            min(width, right + CONTEXT_PX),
            min(height, bottom + CONTEXT_PX),
        )
        out = Image.new("RGBA", (crop[2] - crop[0], crop[3] - crop[1]))
        pixelmatch(
            old.crop(crop), new.crop(crop), out, threshold=PIXELMATCH_THRESHOLD, diff_mask=True
        )
        red, green, _blue, _alpha = out.split()
        # diff pixels are pure red; anti-aliasing pixels are yellow (red + green): drop those
        changed = ImageChops.subtract(red, green)
        mask.paste(ImageChops.lighter(mask.crop(crop), changed), crop[:2])
    return mask, False


def _count(mask: Image.Image, box: Box | None = None) -> tuple[int, int]:
    if box is not None:
        x, y, w, h = box
        left, top = max(0, int(x)), max(0, int(y))
        right, bottom = min(mask.width, int(x + w)), min(mask.height, int(y + h))
        if right <= left or bottom <= top:
            return 0, 0
        mask = mask.crop((left, top, right, bottom))
    return mask.histogram()[255], mask.width * mask.height


def compare_shot(
    old_path: Path, new_path: Path, diff_path: Path, cards: dict[str, Box]
) -> ShotDiff:
    """Compare one screenshot with its baseline, write the diff image, measure every card."""
    with Image.open(old_path) as old_src, Image.open(new_path) as new_src:
        size = (max(old_src.width, new_src.width), max(old_src.height, new_src.height))
        old, new = _padded(old_src, size), _padded(new_src, size)
    mask, approximate = diff_mask(old, new)
    faded = Image.blend(new, Image.new("RGB", size, PAD_COLOUR), FADE)
    diff_path.parent.mkdir(parents=True, exist_ok=True)
    Image.composite(Image.new("RGB", size, DIFF_RED), faded, mask).save(diff_path)
    changed, total = _count(mask)
    per_card = {}
    for card, box in sorted(cards.items()):
        n, area = _count(mask, box)
        per_card[card] = round(100.0 * n / area, 3) if area else 0.0
    return ShotDiff(new_path.stem, changed, total, per_card, approximate)


# ---------------------------------------------------------------------------------------------
# Plan differences


@dataclass
class PlanDiff:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    reordered: list[str] = field(default_factory=list)
    captions: list[tuple[str, str, str, str]] = field(default_factory=list)  # id, panel, old, new

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.reordered or self.captions)


def _concepts(plan: dict[str, Any]) -> list[dict[str, Any]]:
    items = plan.get("concepts", [])
    return [c for c in items if isinstance(c, dict) and isinstance(c.get("id"), str)]


def plan_diff(old: dict[str, Any], new: dict[str, Any]) -> PlanDiff:
    """Concepts added, removed, moved relative to the others, and panel captions changed."""
    before = {c["id"]: c for c in _concepts(old)}
    after = {c["id"]: c for c in _concepts(new)}
    out = PlanDiff(
        added=[i for i in after if i not in before], removed=[i for i in before if i not in after]
    )
    common_before = [i for i in before if i in after]
    common_after = [i for i in after if i in before]
    out.reordered = [i for i, j in zip(common_after, common_before, strict=True) if i != j]
    for cid in common_after:
        for side in ("trouble", "fix"):
            was = (before[cid].get(side) or {}).get("caption", "")
            now = (after[cid].get(side) or {}).get("caption", "")
            if was != now:
                out.captions.append((cid, side, str(was), str(now)))
    return out


