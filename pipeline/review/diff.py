"""Screenshot differences block by block (`pipeline.review.blocks`): each block of this build's
screenshot against the same block of the published one, with numpy on the decoded pixels.

A block is *changed* when any pixel inside it changed beyond anti-aliasing noise, *moved* when
its pixels are the same one or more rows lower or higher (an earlier block grew or shrank), else
*same*. Calibrated on the example (tests/publish/test_review_example.py keeps it so): two builds
of the same folder give byte-identical screenshots; a one-character body edit changes glyph
pixels by 200 or more (of 255, in the strongest channel) in all four shots; a card pushed down
by a longer earlier card differs by at most 49 (the page's background grid shifted behind its
rotated corners), hence the two thresholds below. An SVG drawn at a fractional offset is
re-rasterised throughout, so a moved block's pixel counts only when no pixel within one pixel of
it in the other picture explains it; and a block with the same markup on the same page under the
same renderer (`pipeline.review.markup`) is settled by its place without its pixels.

Shots are compared in parallel processes, and only the rows down to the last block that needs
its pixels are decoded: decoding the PNGs is most of the time. Changed blocks get crops
(`pipeline.review.crops`).
"""

from __future__ import annotations

import multiprocessing
import os
import re
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageFile

from pipeline.artifacts.review import BlockStatus, ShotChange
from pipeline.review.blocks import Band
from pipeline.review.crops import (
    columns,
    save_overlay,
    save_palette,
    size_of,
    window,
    zoom_window,
)

# A block at the same place renders the same pixels when its content did not change, so any
# clear difference counts there; a moved block is re-rasterised (and the page's background grid
# shifts behind it), so there only a difference beyond that noise counts. Strongest channel, 0-255.
STILL_DELTA = 16
MOVED_DELTA = 64
NEIGHBOUR_SLACK = 16  # a moved pixel within its neighbours' range, give or take at least this
# Fractional tops round either way: a moved block is also tried one row up and down, and band
# heights may differ by this much without counting as a change.
SLACK_ROWS = 1
CROP_PAD = 8  # px of context around a crop
MAX_CROP_ROWS = 1400  # a taller block is cropped around its changed rows
CONTEXT_ROWS = 200  # ... with this much above them
MAX_CROPPED_BLOCKS = 6  # per shot, in page order: keeps the review small (the rest: full page)
MAX_WORKERS = 4
EMPTY = np.zeros((0, 0, 4), np.uint8)  # a screenshot no block needed


@dataclass(frozen=True)
class ShotJob:
    """One screenshot and its published baseline, cut into bands, and where crops go."""

    shot: str
    old_png: Path
    new_png: Path
    old_bands: Sequence[Band]
    new_bands: Sequence[Band]
    out_dir: Path  # crops are written here ...
    root: Path  # ... and named relative to this folder (the build folder)
    # Blocks rendered from the same markup on the same page (pipeline.review.markup): settled by
    # their place, without their pixels.
    same_markup: frozenset[str] = frozenset()
    max_cropped: int = MAX_CROPPED_BLOCKS


@dataclass(frozen=True)
class _Match:
    offset: int  # rows to add to an old row to find it in the new screenshot
    threshold: int
    changed: int


def compare_shots(jobs: Sequence[ShotJob]) -> dict[str, dict[str, ShotChange]]:
    """Every block of every shot: `{shot: {block id: ShotChange}}`. Shots whose files are
    identical are settled without decoding; the others are compared in parallel processes."""
    results: dict[str, dict[str, ShotChange]] = {}
    work = []
    for job in jobs:
        if _same_file(job.old_png, job.new_png):
            results[job.shot] = _identical(job)
        else:
            work.append(job)
    workers = min(len(work), os.cpu_count() or 1, MAX_WORKERS)
    if workers > 1 and "fork" in multiprocessing.get_all_start_methods():
        # fork: the children start with everything imported (a fresh interpreter would spend
        # longer importing numpy and Pillow than comparing).
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            done = list(pool.map(compare_shot, work))
    else:
        done = [compare_shot(job) for job in work]
    for job, changes in zip(work, done, strict=True):
        results[job.shot] = changes
    return results


def _same_file(a: Path, b: Path) -> bool:
    return a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()


def _identical(job: ShotJob) -> dict[str, ShotChange]:
    """Byte-identical screenshots: nothing moved or changed (a block on one side only is
    listed, though its pixels cannot differ)."""
    new_ids = {b.id for b in job.new_bands}
    out = {
        b.id: ShotChange(shot=job.shot, status="same", top=b.top, height=b.height)
        for b in job.new_bands
    }
    for b in job.old_bands:
        if b.id not in new_ids:
            out[b.id] = ShotChange(shot=job.shot, status="removed", top=b.top, height=b.height)
    for b in job.new_bands:
        if b.id not in {o.id for o in job.old_bands}:
            out[b.id] = ShotChange(shot=job.shot, status="added", top=b.top, height=b.height)
    return out


def pixels(path: Path, rows: int | None = None) -> np.ndarray:
    """The screenshot (its first `rows` rows: a PNG decodes top down, so the rest is never
    decoded) as an (height, width, 4) uint8 array, RGB and one padding byte: Pillow keeps RGB
    in four bytes a pixel, so this is a plain copy, and a pixel compares as one uint32."""
    with Image.open(path) as image:
        if rows is not None and rows < image.height:
            _decode_rows(image, rows)  # else everything is decoded
        rgb = image if image.mode == "RGB" else image.convert("RGB")
        rgb.load()
        data = rgb.tobytes("raw", "RGBX")
        return np.frombuffer(data, np.uint8).reshape(rgb.height, rgb.width, 4)


def _decode_rows(image: Image.Image, rows: int) -> None:
    """Make `image` (opened, not loaded) decode only its first `rows` rows, if it is a PNG
    read as one tile (a Pillow detail: the tile's extents are how far the decoder goes)."""
    if not isinstance(image, ImageFile.ImageFile) or image.format != "PNG":
        return
    tiles = image.tile
    if len(tiles) != 1 or tiles[0].extents is None:
        return
    width = image.width
    image._size = (width, rows)  # see the docstring
    image.tile = [tiles[0]._replace(extents=(0, 0, width, rows))]


def changed_mask(
    a: np.ndarray, b: np.ndarray, threshold: int, *, shifted: bool = False
) -> np.ndarray:
    """Pixels (same-shape RGBX inputs) whose strongest channel differs by more than `threshold`.
    Only rows that differ at all are measured (most rows of a block are equal). `shifted`: the
    block moved, so a pixel the other picture explains within one pixel (a value inside the
    range of its 3x3 neighbourhood there, as re-rasterised edges are) does not count."""
    mask = np.zeros(a.shape[:2], bool)
    rows = np.flatnonzero((a.view(np.uint32)[..., 0] != b.view(np.uint32)[..., 0]).any(axis=1))
    if len(rows):
        ra, rb = a[rows], b[rows]
        delta = np.maximum(ra, rb)
        delta -= np.minimum(ra, rb)
        mask[rows] = (delta > threshold).view(np.uint32)[..., 0] != 0
    if shifted and mask.any():
        ys, xs = np.nonzero(mask)
        mask[ys, xs] = ~(_explained(a, b, ys, xs) & _explained(b, a, ys, xs))
    return mask


def _explained(src: np.ndarray, dst: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """Whether each `dst` pixel at (ys, xs) lies, channel by channel, within the range of the
    3x3 neighbourhood of `src` there (give or take some slack)."""
    height, width = src.shape[:2]
    low = np.full((len(ys), src.shape[2]), 255, np.int16)
    high = np.zeros((len(ys), src.shape[2]), np.int16)
    for dy in (-1, 0, 1):
        rows = np.clip(ys + dy, 0, height - 1)
        for dx in (-1, 0, 1):
            values = src[rows, np.clip(xs + dx, 0, width - 1)].astype(np.int16)
            np.minimum(low, values, out=low)
            np.maximum(high, values, out=high)
    # Redrawn a fraction of a pixel over, an edge's extremes soften: the more contrast around,
    # the more slack (a flat neighbourhood gets the least, so a new stroke on blank paper counts).
    slack = np.maximum(NEIGHBOUR_SLACK, (high - low) // 2)
    pixel = dst[ys, xs].astype(np.int16)
    inside: np.ndarray = ((pixel >= low - slack) & (pixel <= high + slack)).all(axis=1)
    return inside


def compare_shot(job: ShotJob) -> dict[str, ShotChange]:
    """Compare one shot with its baseline block by block (page order). Blocks rendered from the
    same markup are settled by their place alone; the others are compared pixel by pixel, and
    only the rows down to the last of them are decoded. The first `job.max_cropped` blocks that
    changed get crops."""
    old_bands = {b.id: b for b in job.old_bands}
    new_ids = {b.id for b in job.new_bands}
    settled: dict[str, ShotChange] = {}
    for band in job.new_bands:
        if band.id in job.same_markup and band.id in old_bands:
            change = _settled(job, old_bands[band.id], band)
            if change is not None:
                settled[band.id] = change
    old_rows, new_rows = _rows_needed(job, old_bands, set(settled))
    old = pixels(job.old_png, old_rows) if old_rows else EMPTY
    new = pixels(job.new_png, new_rows) if new_rows else EMPTY
    out: dict[str, ShotChange] = {}
    cropped = 0
    for band in job.new_bands:
        before = old_bands.get(band.id)
        crop = cropped < job.max_cropped
        if band.id in settled:
            change = settled[band.id]
        elif before is None:
            change = _one_sided(job, new, band, "added", crop)
        else:
            change = _compare_band(job, old, new, before, band, crop)
        out[band.id] = change
        cropped += change.before is not None or change.after is not None
    for band in job.old_bands:
        if band.id not in new_ids:
            out[band.id] = _one_sided(job, old, band, "removed", cropped < job.max_cropped)
            cropped += out[band.id].before is not None
    return out


def _settled(job: ShotJob, before: Band, after: Band) -> ShotChange | None:
    """A block with the same markup on the same page renders the same pixels wherever it lands
    (pipeline.review.markup): same or moved, by its place. None: its height changed, which the
    same markup cannot explain, so its pixels are compared."""
    if abs(after.height - before.height) > SLACK_ROWS:
        return None
    dy = after.top - before.top
    return ShotChange(
        shot=job.shot, status="moved" if dy else "same", dy=dy, top=after.top, height=after.height
    )


def _rows_needed(job: ShotJob, old_bands: dict[str, Band], settled: set[str]) -> tuple[int, int]:
    """How many rows of the old and the new screenshot the unsettled blocks reach (with their
    crops' margins); 0 when every block is settled."""
    old_rows = new_rows = 0
    for band in job.new_bands:
        if band.id in settled:
            continue
        before = old_bands.get(band.id)
        reach = max(band.height, before.height if before else 0) + CROP_PAD + SLACK_ROWS
        new_rows = max(new_rows, band.top + reach)
        if before is not None:
            old_rows = max(old_rows, before.top + reach, band.top + reach)
    for band in job.old_bands:
        if band.id not in settled and band.id not in {b.id for b in job.new_bands}:
            old_rows = max(old_rows, band.bottom + CROP_PAD)
    return old_rows, new_rows


def _best_match(old: np.ndarray, new: np.ndarray, before: Band, after: Band) -> _Match:
    """How the block's pixels compare at its new place; when a moved block differs there, one
    row up or down is tried too (a fractional top rounds either way), and taken only if it
    explains every difference. A changed block is shown at its new place."""
    base = after.top - before.top
    height = min(before.height, after.height)
    width = min(old.shape[1], new.shape[1])
    first: _Match | None = None
    offsets = (base, base - SLACK_ROWS, base + SLACK_ROWS) if base else (base,)
    for offset in offsets:
        threshold = STILL_DELTA if offset == 0 and base == 0 else MOVED_DELTA
        top = max(before.top, -offset)
        bottom = min(before.top + height, old.shape[0], new.shape[0] - offset)
        if bottom <= top:
            continue
        mask = changed_mask(
            old[top:bottom, :width],
            new[top + offset : bottom + offset, :width],
            threshold,
            shifted=threshold == MOVED_DELTA,
        )
        match = _Match(offset, threshold, int(np.count_nonzero(mask)))
        if match.changed == 0:
            return match
        first = first or match
    return first or _Match(base, MOVED_DELTA, 0)


def _compare_band(
    job: ShotJob, old: np.ndarray, new: np.ndarray, before: Band, after: Band, crop: bool
) -> ShotChange:
    grown = after.height - before.height
    match = _best_match(old, new, before, after)
    status: BlockStatus = "same"
    if match.changed or abs(grown) > SLACK_ROWS:
        status = "changed"
    elif match.offset:
        status = "moved"
    change = ShotChange(
        shot=job.shot,
        status=status,
        dy=after.top - before.top,
        changed_px=match.changed,
        top=after.top,
        height=after.height,
        note=f"{abs(grown)} px {'taller' if grown > 0 else 'shorter'}"
        if abs(grown) > SLACK_ROWS
        else "",
    )
    if status != "changed" or not crop:
        return change
    if abs(grown) > SLACK_ROWS:
        # A card that grew is re-rasterised throughout (it is rotated about its centre): show
        # what changed beyond that noise, as for a moved block.
        match = _Match(match.offset, MOVED_DELTA, match.changed)
    return _with_crops(job, change, old, new, before, after, match)


def _one_sided(
    job: ShotJob, image: np.ndarray, band: Band, status: BlockStatus, crop: bool
) -> ShotChange:
    """A block only this build has (`added`, in `image` = the new shot) or only the published
    page had (`removed`, in the old one)."""
    change = ShotChange(
        shot=job.shot, status=status, changed_px=band.height, top=band.top, height=band.height
    )
    if not crop or band.height <= 0:
        return change
    left, right = columns(image.shape[1], [band.box], None, CROP_PAD)
    picture = window(image, band.top - CROP_PAD, band.bottom + CROP_PAD, left, right)
    side = "after" if status == "added" else "before"
    path = job.out_dir / f"{_crop_name(job, band)}-{side}.png"
    save_palette([picture], [path])
    return change.model_copy(
        update={side: path.relative_to(job.root).as_posix(), "size": size_of(picture)}
    )


def _with_crops(
    job: ShotJob,
    change: ShotChange,
    old: np.ndarray,
    new: np.ndarray,
    before: Band,
    after: Band,
    match: _Match,
) -> ShotChange:
    """Crop the block from both screenshots under the best alignment (a block that grew is
    compared from its top: below the first difference, everything differs), and its overlay."""
    width = min(old.shape[1], new.shape[1])
    first, last = -CROP_PAD, max(before.height, after.height) + CROP_PAD
    a = window(old, before.top + first, before.top + last, 0, width)
    b = window(new, before.top + match.offset + first, before.top + match.offset + last, 0, width)
    mask = changed_mask(a, b, match.threshold, shifted=match.threshold == MOVED_DELTA)
    rows = np.flatnonzero(mask.any(axis=1))
    if len(a) > MAX_CROP_ROWS:
        start = max(0, int(rows[0]) - CONTEXT_ROWS) if len(rows) else 0
        a, b, mask = (x[start : start + MAX_CROP_ROWS] for x in (a, b, mask))
    cols = np.flatnonzero(mask.any(axis=0))
    spread = (int(cols[0]), int(cols[-1]) + 1) if len(cols) else None
    left, right = columns(width, [before.box, after.box], spread, CROP_PAD)
    a, b, mask = a[:, left:right], b[:, left:right], mask[:, left:right]
    name = _crop_name(job, after)
    sides = ("before", "after", "overlay", "zoom-before", "zoom-after")
    paths = [job.out_dir / f"{name}-{side}.png" for side in sides]
    save_palette([a, b], paths[:2])
    save_overlay(mask, paths[2])
    rel = [p.relative_to(job.root).as_posix() for p in paths]
    update: dict[str, object] = {
        "changed_px": int(np.count_nonzero(mask)),
        "before": rel[0],
        "after": rel[1],
        "overlay": rel[2],
        "size": size_of(a),
    }
    zoom = zoom_window(mask)
    if zoom is not None:
        za, zb = a[zoom], b[zoom]
        save_palette([za, zb], paths[3:])
        update.update(zoom_before=rel[3], zoom_after=rel[4], zoom_size=size_of(za))
    return change.model_copy(update=update)


SAFE_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def _crop_name(job: ShotJob, band: Band) -> str:
    return f"{job.shot}-{SAFE_NAME.sub('-', band.id)}"
