"""Text layout with the embedded fonts' real metrics: wrap, shrink to a floor, avoid collisions.

Every text of a drawing goes through one `TextLayout`: it measures with `pipeline.fonts`, keeps
each box inside the safe inset and clear of every other box, computes a collision-free alternate
anchor for the browser fix loop, and raises `FitError` (naming card and panel) rather than overflow.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from fontTools.ttLib import TTFont

from pipeline import fonts
from pipeline.draw.svg import element, esc, num
from pipeline.errors import InputError
from pipeline.font_grid import on_grid

Anchor = Literal["start", "middle", "end"]
Point = tuple[float, float]

FLOOR = 0.8  # smallest scale a text may shrink to (also the browser fix loop's floor)
SHRINK_STEP = 0.05
LINE_HEIGHT = 1.15  # line pitch in em for wrapped text
GAP = 1.0  # minimum clear space between two text boxes (px)
# The words group's defaults (see canvas.py): its family is the page language's hand, so most
# texts of a drawing state no family of their own.
GROUP_FAMILY = {"zh": fonts.HAND_ZH, "en": fonts.HAND_EN}
GROUP_SIZE = 11.0
GROUP_FILL = "var(--ink)"
# A text's role when it carries no data-role (most texts are labels; MARKUP.md).
DEFAULT_ROLE = "label"
CAPTION_LIMIT = {"zh": 15, "en": 40}
CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")
NO_LINE_START = set("，。！？、：；）》」』…,.!?:;)%")


class FitError(InputError):
    """A text cannot fit its box even at the floor scale (or has no free place in its drawing).
    `text` is the text that did not fit, so a validator can name the plan field it came from."""

    def __init__(self, message: str, text: str = "") -> None:
        super().__init__(message)
        self.text = text


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float

    def intersects(self, other: Box, gap: float = 0.0) -> bool:
        return not (
            self.x1 + gap <= other.x0
            or other.x1 + gap <= self.x0
            or self.y1 + gap <= other.y0
            or other.y1 + gap <= self.y0
        )

    def inside(self, outer: Box) -> bool:
        return (
            self.x0 >= outer.x0
            and self.y0 >= outer.y0
            and self.x1 <= outer.x1
            and self.y1 <= outer.y1
        )


@dataclass(frozen=True)
class PlacedText:
    id: str
    box: Box
    markup: str
    style: tuple[tuple[str, str], ...] = ()  # attributes shared through a wrapping <g>


@lru_cache(maxsize=4)
def vertical_metrics(family: str) -> tuple[float, float]:
    """(ascent, descent) in em from the font's hhea table: what the browser's text box uses."""
    font = TTFont(fonts.font_files(family)[0], lazy=True)
    upm = font["head"].unitsPerEm
    hhea = font["hhea"]
    result = (on_grid(hhea.ascent, upm), -on_grid(hhea.descent, upm))
    font.close()
    return result


def family_for(text: str, lang: str) -> str:
    """Chinese (and mixed) text in Ma Shan Zheng, pure Latin and digits in Patrick Hand."""
    return fonts.HAND_ZH if CJK.search(text) else fonts.HAND_EN


def tokens(text: str) -> list[str]:
    """Break opportunities: every CJK character, Latin words with their trailing space."""
    out: list[str] = []
    for part in re.findall(
        r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]|[^\s\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]+\s*|\s+",
        text,
    ):
        if out and part and (part[0] in NO_LINE_START or part.isspace()):
            out[-1] += part  # keep closing punctuation with the character before it
        else:
            out.append(part)
    return out


def wrap(text: str, family: str, size: float, max_width: float) -> list[str]:
    """Greedy line breaking at the break opportunities; a single long word stays whole."""
    lines: list[str] = []
    current = ""
    for tok in tokens(text):
        trial = current + tok
        if current and fonts.measure(trial.rstrip(), family, size) > max_width:
            lines.append(current.rstrip())
            current = tok.lstrip()
        else:
            current = trial
    if current.strip() or not lines:
        lines.append(current.rstrip())
    return lines


def text_box(
    lines: Sequence[str], family: str, size: float, x: float, cy: float, anchor: Anchor
) -> Box:
    """The box the browser will draw for these lines centred vertically on `cy`."""
    width = max(fonts.measure(line, family, size) for line in lines)
    ascent, descent = vertical_metrics(family)
    height = size * (ascent + descent) + size * LINE_HEIGHT * (len(lines) - 1)
    x0 = x if anchor == "start" else x - width / 2 if anchor == "middle" else x - width
    return Box(x0, cy - height / 2, x0 + width, cy + height / 2)


@dataclass
class TextLayout:
    """All texts of one SVG: ids, collision checks, alternate anchors, overrides."""

    svg_id: str
    width: float
    height: float
    inset: float
    lang: str
    owner: str  # "card kv_cache, panel trouble": named in every FitError
    overrides: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    # Smallest font size a text may shrink to (layout or fix loop), whatever its floor says:
    # panels render at ~0.82 scale on a phone and their words must stay legible there.
    min_size: float = 0.0
    placed: list[PlacedText] = field(default_factory=list)
    counter: int = 0

    @property
    def family(self) -> str:
        """The family the words group sets: the page language's hand."""
        return GROUP_FAMILY.get(self.lang, fonts.HAND_EN)

    @property
    def region(self) -> Box:
        return Box(self.inset, self.inset, self.width - self.inset, self.height - self.inset)

    def free(self, box: Box) -> bool:
        return box.inside(self.region) and not any(box.intersects(p.box, GAP) for p in self.placed)

    def fit(
        self,
        text: str,
        family: str,
        size: float,
        max_width: float,
        max_lines: int,
        floor: float,
        role: str,
    ) -> tuple[list[str], float]:
        """Wrap at full size, then shrink in steps down to `floor`; FitError if still too wide,
        or if the font lacks one of its characters (the browser would draw it in a fallback
        font, which the page check refuses: P16)."""
        missing = fonts.missing(text, family)
        if missing:
            chars = " ".join(f"'{ch}' (U+{ord(ch):04X})" for ch in sorted(missing))
            raise FitError(
                f'{self.owner}: {role} "{text}" has {chars}, which the handwriting font '
                f"{family} cannot draw: write it without them",
                text,
            )
        scale = 1.0
        while scale >= floor - 1e-9:
            lines = wrap(text, family, size * scale, max_width)
            widest = max(fonts.measure(ln, family, size * scale) for ln in lines)
            if len(lines) <= max_lines and widest <= max_width:
                return lines, size * scale
            scale = round(scale - SHRINK_STEP, 4)
        needs = fonts.measure(text, family, size * floor)
        room = max_width * max_lines
        raise FitError(
            f'{self.owner}: {role} "{text}" needs {needs:.0f} px at the {floor:.0%} floor, '
            f"room is {room:.0f} px",
            text,
        )

    def place(
        self,
        text: str,
        *,
        x: float,
        cy: float,
        role: str,
        size: float,
        anchor: Anchor = "middle",
        max_width: float | None = None,
        max_lines: int = 1,
        floor: float | None = FLOOR,
        alts: Sequence[Point] = (),
        family: str | None = None,
        limit: int | None = None,
        css_class: str | None = None,
        fill: str | None = None,
    ) -> PlacedText:
        """Place one text centred vertically on `cy`; try `alts` if that spot is taken."""
        self.counter += 1
        tid = f"t-{self.svg_id}-{self.counter}"
        family = family or family_for(text, self.lang)
        override = self.overrides.get(tid, {})
        scale = override.get("scale")
        if isinstance(scale, int | float):
            size *= float(scale)
        room = max_width if max_width is not None else self.width - 2 * self.inset
        if floor is not None and size > 0 and size * floor < self.min_size:
            # rounded up to the tenth the markup carries, so data-floor never undercuts it
            floor = min(1.0, math.ceil(self.min_size / size * 10) / 10)
        lines, size = self.fit(
            text, family, size, room, max_lines, floor if floor is not None else 1.0, role
        )
        if floor is not None and size * floor < self.min_size:
            # fitting shrank the text: the floor it carries is of the new size, and a browser
            # shrinking it that far more would set it below the smallest readable size
            floor = min(1.0, math.ceil(self.min_size / size * 10) / 10)
        spots = [(x, cy), *alts]
        if override.get("anchor") == "alt" and len(spots) > 1:
            spots = spots[1:] + spots[:1]
        free_spots = [
            s for s in spots if self.free(text_box(lines, family, size, s[0], s[1], anchor))
        ]
        if not free_spots:
            box = text_box(lines, family, size, x, cy, anchor)
            raise FitError(
                f'{self.owner}: {role} "{text}" has no free place (tried {len(spots)} spot(s), '
                f"first box {num(box.x0)},{num(box.y0)}-{num(box.x1)},{num(box.y1)})",
                text,
            )
        sx, sy = free_spots[0]
        box = text_box(lines, family, size, sx, sy, anchor)
        alt = next(
            (
                s
                for s in free_spots[1:]
                if not text_box(lines, family, size, s[0], s[1], anchor).intersects(box)
            ),
            None,
        )
        markup = self._markup(
            tid, lines, family, size, sx, sy, anchor, role, alt, floor, limit, css_class
        )
        style = (
            ("font-family", family if family != self.family else ""),
            ("font-size", num(size) if round(size, 1) != GROUP_SIZE else ""),
            ("text-anchor", anchor if anchor != "middle" else ""),
            ("fill", fill if fill and fill != GROUP_FILL else ""),
        )
        placed = PlacedText(tid, box, markup, tuple((k, v) for k, v in style if v))
        self.placed.append(placed)
        return placed

    def place_row(
        self,
        items: Sequence[tuple[str, float]],
        *,
        cy: float,
        role: str,
        size: float,
        fill: str | None = None,
    ) -> PlacedText | None:
        """A row of short centred labels (cell counts, axis ticks) as ONE `<text>` with a
        `<tspan>` per label: one id instead of many keeps drawings small. Labels whose own box
        is not free are left out; the row's box is the union of the kept labels (what the
        browser's getBBox reports) and must itself be free, else nothing is placed."""
        family = fonts.HAND_EN if not any(CJK.search(t) for t, _ in items) else fonts.HAND_ZH
        kept = [
            (t, x) for t, x in items if self.free(text_box([t], family, size, x, cy, "middle"))
        ]
        if not kept:
            return None
        boxes = [text_box([t], family, size, x, cy, "middle") for t, x in kept]
        union = Box(
            min(b.x0 for b in boxes),
            min(b.y0 for b in boxes),
            max(b.x1 for b in boxes),
            max(b.y1 for b in boxes),
        )
        if not self.free(union):
            return None
        self.counter += 1
        tid = f"t-{self.svg_id}-{self.counter}"
        ascent, descent = vertical_metrics(family)
        baseline = cy - size * (ascent + descent) / 2 + size * ascent
        spans = "".join(element("tspan", {"x": x}, esc(t)) for t, x in kept)
        pairs: dict[str, object] = {
            "data-role": role if role != DEFAULT_ROLE else None,  # no id: nothing can move a row
            "y": baseline,
        }
        style = (
            ("font-family", family if family != self.family else ""),
            ("font-size", num(size) if round(size, 1) != GROUP_SIZE else ""),
            ("fill", fill if fill and fill != GROUP_FILL else ""),
        )
        placed = PlacedText(
            tid, union, element("text", pairs, spans), tuple((k, v) for k, v in style if v)
        )
        self.placed.append(placed)
        return placed

    def try_place(self, text: str, **kwargs: object) -> PlacedText | None:
        """Place an optional text (a tick label, a count) if it has a free spot, else skip it.
        The id counter is restored so skipping never renumbers the texts after it."""
        saved = self.counter
        try:
            return self.place(text, **kwargs)  # type: ignore[arg-type]
        except FitError:
            self.counter = saved
            return None

    def _markup(
        self,
        tid: str,
        lines: list[str],
        family: str,
        size: float,
        x: float,
        cy: float,
        anchor: Anchor,
        role: str,
        alt: Point | None,
        floor: float | None,
        limit: int | None,
        css_class: str | None,
    ) -> str:
        """The `<text>` itself; font, size, anchor and fill go on a shared `<g>` (see `markup`)."""
        ascent, descent = vertical_metrics(family)
        block = size * (ascent + descent) + size * LINE_HEIGHT * (len(lines) - 1)
        first_baseline = cy - block / 2 + size * ascent
        movable = alt is not None or (floor is not None and floor < 1.0)
        pairs: dict[str, object] = {
            # Only a text the fix loop can move or shrink needs a name its overrides can use;
            # the check names the others by their path from the SVG's id.
            "id": tid if movable else None,
            "class": css_class,
            "data-role": role if role != DEFAULT_ROLE else None,
            "data-limit": limit,
            "data-alt": (
                f"{num(alt[0])},{num(alt[1] - block / 2 + size * ascent)}" if alt else None
            ),
            "data-floor": floor if floor is not None and floor < 1.0 else None,
            "x": x,
            "y": first_baseline,
        }
        if len(lines) == 1:
            return element("text", pairs, esc(lines[0]))
        spans = "".join(
            element("tspan", {"x": x, "y": first_baseline + i * size * LINE_HEIGHT}, esc(ln))
            for i, ln in enumerate(lines)
        )
        return element("text", pairs, spans)

    def markup(self) -> str:
        """All texts, those with the same font, size, anchor and fill under one `<g>` carrying
        them (text never overlaps text, so the order between groups does not matter)."""
        groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
        for p in self.placed:
            groups.setdefault(p.style, []).append(p.markup)
        out = []
        for style, items in groups.items():
            body = "".join(items)
            out.append(element("g", dict(style), body) if style else body)
        return "".join(out)
