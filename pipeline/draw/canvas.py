"""One SVG drawing: its wobble filter, the inked shapes (filtered) and the words (never filtered).

Scenes, the cast and the diagrams draw onto a `Canvas`; `Canvas.svg()` assembles the markup in the
order the markup contract asks: title, desc, defs, `<g class="ink">`, then `<g class="words">`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from pipeline.draw import rough
from pipeline.draw.layout import TextLayout
from pipeline.draw.palette import FREED_DASH, INK
from pipeline.draw.svg import compact_path, element, esc, num

WOBBLE_FREQUENCY = 0.04
WOBBLE_OCTAVES = 2
WOBBLE_SCALE = 6
FILTER_MARGIN = 20  # the filter region reaches past the viewBox so edge strokes still wobble
SEED_RANGE = 997
INK_WIDTH = 1.6
WORDS_SIZE = 11
PATH_RE = re.compile(r'<path d="([^"]*)"((?: [a-z-]+="[^"]*")*)/>')


@dataclass
class Canvas:
    """Shapes and texts of one SVG; `svg_id` seeds every element and names every text."""

    svg_id: str
    width: float
    height: float
    layout: TextLayout
    wobble: bool = True
    shared_filter: str | None = None  # a wobble filter of the page's shared defs (defs.py)
    shapes: list[str] = field(default_factory=list)

    def rng(self, element_id: str) -> rough.Rng:
        return rough.Rng(f"{self.svg_id}/{element_id}")

    def stroke(
        self,
        d: str,
        colour: str = INK,
        width: float | None = None,
        dashed: bool = False,
        opacity: float | None = None,
    ) -> None:
        self.shapes.append(
            element(
                "path",
                {
                    "d": d,
                    "stroke": None if colour == INK else colour,
                    "stroke-width": width,
                    "stroke-dasharray": FREED_DASH if dashed else None,
                    "stroke-opacity": opacity,
                },
            )
        )

    def fill(self, d: str, colour: str, opacity: float | None = None) -> None:
        self.shapes.append(
            element(
                "path",
                {
                    "d": d,
                    "fill": colour,
                    "fill-opacity": opacity,
                    "stroke": "none",
                },
            )
        )

    def shape(
        self,
        d: str,
        *,
        fill: str | None = None,
        opacity: float | None = None,
        colour: str | None = INK,
        width: float | None = None,
        dashed: bool = False,
    ) -> None:
        """One path that is both tinted and outlined (cheaper than a fill plus a stroke)."""
        self.shapes.append(
            element(
                "path",
                {
                    "d": d,
                    "fill": fill,
                    "fill-opacity": opacity if fill else None,
                    "stroke": "none" if colour is None else (None if colour == INK else colour),
                    "stroke-width": width,
                    "stroke-dasharray": FREED_DASH if dashed else None,
                },
            )
        )

    def dot(self, x: float, y: float, r: float, colour: str = INK) -> None:
        self.shapes.append(
            element(
                "circle",
                {
                    "cx": x,
                    "cy": y,
                    "r": r,
                    "fill": colour,
                    "stroke": "none",
                },
            )
        )

    def raw(self, markup: str) -> None:
        self.shapes.append(markup)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Shapes drawn inside are regrouped by style on exit (tints first, then strokes, each
        style in first-seen order) so `merge_paths` can join them: for grids of cells whose paint
        order between cells does not matter."""
        start = len(self.shapes)
        yield
        drawn = self.shapes[start:]
        first: dict[str, int] = {}
        keys = []
        for shape in drawn:
            m = PATH_RE.fullmatch(shape)
            style = m.group(2) if m else shape
            first.setdefault(style, len(first))
            tint = bool(m) and " fill=" in style and 'fill="none"' not in style
            keys.append((0 if tint else 1, first[style]))
        order = sorted(range(len(drawn)), key=lambda i: (keys[i], i))
        self.shapes[start:] = [drawn[i] for i in order]

    def use(self, ref: str, x: float, y: float) -> None:
        """Place a shared drawing (a cast member defined once per page, see defs.py)."""
        self.shapes.append(element("use", {"href": f"#{ref}", "x": x, "y": y}))

    def filter_id(self) -> str:
        return self.shared_filter or f"wob-{self.svg_id}"

    def defs(self) -> str:
        seed = rough.seed_int(self.svg_id, SEED_RANGE)
        return f"<defs>{wobble_filter(self.filter_id(), self.width, self.height, seed)}</defs>"

    def svg(
        self,
        *,
        css_class: str,
        title: str,
        desc: str,
        extra: Mapping[str, object] | None = None,
        element_id: str | None = None,
    ) -> str:
        head: dict[str, object] = {"class": css_class}
        if element_id:
            head["id"] = element_id
        head.update(extra or {})
        head.update(
            {
                "role": "img",
                "viewBox": f"0 0 {num(self.width)} {num(self.height)}",
                "xmlns": "http://www.w3.org/2000/svg",
            }
        )
        ink_attrs: dict[str, object] = {"class": "ink"}
        if self.wobble:
            ink_attrs["filter"] = f"url(#{self.filter_id()})"
        ink_attrs.update(
            {
                "fill": "none",
                "stroke": INK,
                "stroke-width": INK_WIDTH,
                "stroke-linecap": "round",
                "stroke-linejoin": "round",
            }
        )
        body = (
            element("title", {}, esc(title))
            + element("desc", {}, esc(desc))
            + (self.defs() if self.wobble and not self.shared_filter else "")
            + element("g", ink_attrs, "".join(merge_paths(self.shapes)))
            + element(
                "g",
                {
                    "class": "words",
                    "fill": INK,
                    "font-family": self.layout.family,
                    "font-size": WORDS_SIZE,
                    "text-anchor": "middle",
                },
                self.layout.markup(),
            )
        )
        return element("svg", head, body)


def new_canvas(
    svg_id: str,
    width: float,
    height: float,
    inset: float,
    lang: str,
    owner: str,
    overrides: Mapping[str, Mapping[str, object]] | None = None,
    wobble: bool = True,
    shared_filter: str | None = None,
    min_text: float = 0.0,
) -> Canvas:
    layout = TextLayout(
        svg_id, width, height, inset, lang, owner, dict(overrides or {}), min_size=min_text
    )
    return Canvas(svg_id, width, height, layout, wobble, shared_filter)


def wobble_filter(filter_id: str, width: float, height: float, seed: int) -> str:
    """The hand-drawn wobble: fractal noise displacing the strokes a few px, over an explicit
    region a little larger than the drawing so edge strokes still wobble."""
    m = FILTER_MARGIN
    return (
        f'<filter id="{esc(filter_id)}" filterUnits="userSpaceOnUse" '
        f'x="{-m}" y="{-m}" width="{num(width + 2 * m)}" height="{num(height + 2 * m)}">'
        f'<feTurbulence type="fractalNoise" baseFrequency="{WOBBLE_FREQUENCY}" '
        f'numOctaves="{WOBBLE_OCTAVES}" seed="{seed}" result="n"/>'
        f'<feDisplacementMap in="SourceGraphic" in2="n" scale="{WOBBLE_SCALE}" '
        f'xChannelSelector="R" yChannelSelector="G"/></filter>'
    )


def merge_paths(shapes: list[str]) -> list[str]:
    """Join consecutive `<path>`s that differ only in `d` (same stroke, same fill): one element
    instead of many keeps panels small without changing what is drawn or its order."""
    out: list[str] = []
    last_attrs = None
    for shape in shapes:
        m = PATH_RE.fullmatch(shape)
        if m and last_attrs == m.group(2) and out:
            prev = PATH_RE.fullmatch(out[-1])
            assert prev is not None
            out[-1] = f'<path d="{prev.group(1)}{m.group(1)}"{m.group(2)}/>'
            continue
        out.append(shape)
        last_attrs = m.group(2) if m else None
    return [compact_markup(shape) for shape in out]


def compact_markup(shape: str) -> str:
    """A `<path>` with its data in the shortest equivalent form (see `svg.compact_path`)."""
    m = PATH_RE.fullmatch(shape)
    if not m:
        return shape
    return f'<path d="{compact_path(m.group(1))}"{m.group(2)}/>'


def poly_d(points: Sequence[tuple[float, float]]) -> str:
    """A straight closed polygon path (for flat tints under a rough outline)."""
    return "M" + "L".join(f"{num(x)} {num(y)}" for x, y in points) + "Z"
