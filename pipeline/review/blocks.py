"""The blocks a screenshot is compared by: the page cut at the top of every card and every part
(`check.json`'s boxes; the page is one column at every width), so every row of the screenshot
belongs to exactly one block and no change can fall between two of them. A block runs from its
top to the next block's top (its card plus the gap under it); the rows above the first part are
the page top.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.artifacts.review import BlockKind

PAGE_TOP = "page:top"
SECTION_PREFIX = "section:"


@dataclass(frozen=True)
class Band:
    """One block's rows in one screenshot, and its element's box `[x, y, w, h]` (CSS px = px)."""

    id: str
    kind: BlockKind
    top: int
    bottom: int
    box: tuple[float, float, float, float]

    @property
    def height(self) -> int:
        return self.bottom - self.top


def section_id(name: str) -> str:
    return SECTION_PREFIX + name


def page_bands(
    cards: Mapping[str, Sequence[float]],
    sections: Mapping[str, Sequence[float]],
    *,
    width: int,
    height: int,
) -> list[Band]:
    """The screenshot (`width` x `height`) cut into bands at every card's and part's top."""
    anchors: list[tuple[int, str, BlockKind, tuple[float, float, float, float]]] = []
    for name, box in sections.items():
        anchors.append((_row(box[1], height), section_id(name), "section", _box(box)))
    for card, box in cards.items():
        anchors.append((_row(box[1], height), card, "card", _box(box)))
    anchors.sort(key=lambda a: (a[0], a[2] != "section", a[1]))
    bands = []
    first = anchors[0][0] if anchors else height
    if first > 0:
        bands.append(Band(PAGE_TOP, "page", 0, first, (0.0, 0.0, float(width), float(first))))
    for i, (top, block_id, kind, box) in enumerate(anchors):
        bottom = anchors[i + 1][0] if i + 1 < len(anchors) else height
        bands.append(Band(block_id, kind, top, bottom, box))
    return bands


def _row(y: float, height: int) -> int:
    return min(max(0, round(y)), height)


def _box(box: Sequence[float]) -> tuple[float, float, float, float]:
    x, y, w, h = (float(v) for v in box[:4])
    return (x, y, w, h)
