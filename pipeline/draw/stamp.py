"""The progress stamp (已学 / 补一下 / 下一站) and the small verification tick.

A rotated red-ink rubber stamp: double ring (learned), rounded rectangle (review, next); the words
sit in their own unfiltered group so they stay crisp. A card the folder's config marks nothing for
shows a faint empty ring (unmarked): the page never claims a progress the reader did not give
(issue 21: "下一站" on every card of a page whose config marks one). The page cycles the states.
"""

from __future__ import annotations

from typing import Literal

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, new_canvas
from pipeline.draw.palette import ACCENT, INK

STAMP_SIZE = 110.0
STAMP_INSET = 4.0
TICK_SIZE = 24.0
STAMP_WORDS = {
    "zh": {"unmarked": "", "learned": "已学", "review": "补一下", "next": "下一站"},
    "en": {"unmarked": "", "learned": "learned", "review": "review", "next": "next"},
}
# The unmarked stamp's name (its title and the button's label), where the others show their words.
UNMARKED_NAME = {"zh": "未标记", "en": "not marked"}
STAMP_TEXT_SIZE = {"zh": 24.0, "en": 22.0}
ROTATION = {"unmarked": 0, "learned": -12, "review": 8, "next": -6}


Stamp = Literal["unmarked", "learned", "review", "next"]


def draw_stamp(state: Stamp, *, lang: str, seed_id: str) -> str:
    """One stamp SVG; `seed_id` (e.g. the concept id) makes each card's ink a little different."""
    svg_id = f"stamp-{seed_id}-{state}"
    cv = new_canvas(svg_id, STAMP_SIZE, STAMP_SIZE, STAMP_INSET, lang, f"stamp {seed_id}")
    c = STAMP_SIZE / 2
    rng = cv.rng("ring")
    if state == "unmarked":
        cv.stroke(rough.ellipse(rng, c, c, 40, 36, 0.6, 1), ACCENT, width=1.4, opacity=0.35)
        return _unmarked_svg(cv, svg_id, lang)
    if state == "learned":
        cv.stroke(rough.ellipse(rng, c, c, 48, 44, 0.8, 1), ACCENT, width=3.0)
        cv.stroke(rough.ellipse(rng, c, c, 40, 36, 0.8, 1), ACCENT, width=1.6)
    else:
        cv.stroke(rough.rounded_rect(rng, 8, 28, 94, 54, 10, 0.8, 1), ACCENT, width=3.0)
        cv.stroke(rough.rounded_rect(rng, 14, 34, 82, 42, 7, 0.8, 1), ACCENT, width=1.4)
    # ink speckle: a few short dashes where the rubber did not take
    specks = "".join(
        rough.line(
            rng,
            (c - 30 + 17 * k, c + 30 - 5 * (k % 2)),
            (c - 27 + 17 * k, c + 30 - 5 * (k % 2)),
            0.2,
            1,
        )
        for k in range(4)
    )
    cv.stroke(specks, ACCENT, width=1.2, opacity=0.6)
    words = STAMP_WORDS[lang][state]
    cv.layout.place(
        words,
        x=c,
        cy=c,
        role="tag",
        size=STAMP_TEXT_SIZE[lang],
        max_width=76,
        floor=None,
        fill=ACCENT,
    )
    label = (
        {"learned": "已学", "review": "补一下", "next": "下一站"}[state] if lang == "zh" else words
    )
    svg = cv.svg(
        css_class=f"stamp stamp-{state}",
        element_id=svg_id,
        title=label,
        desc=("进度印章：" if lang == "zh" else "progress stamp: ") + label,
        extra={"data-state": state},
    )
    # rotate ink and words together, about the centre: a stamp is never put down straight
    turn = f' transform="rotate({ROTATION[state]} {c:g} {c:g})"'
    return svg.replace('<g class="ink"', f'<g class="ink"{turn}', 1).replace(
        '<g class="words"', f'<g class="words"{turn}', 1
    )


def _unmarked_svg(cv: Canvas, svg_id: str, lang: str) -> str:
    name = UNMARKED_NAME[lang]
    return cv.svg(
        css_class="stamp stamp-unmarked",
        element_id=svg_id,
        title=name,
        desc=("进度印章：" if lang == "zh" else "progress stamp: ") + name,
        extra={"data-state": "unmarked"},
    )


def draw_tick(*, seed_id: str) -> str:
    """A small hand-drawn check mark (a link or quote that was verified)."""
    svg_id = f"tick-{seed_id}"
    cv = new_canvas(svg_id, TICK_SIZE, TICK_SIZE, 1.0, "en", f"tick {seed_id}", wobble=False)
    rng = cv.rng("tick")
    cv.stroke(rough.curve(rng, [(4, 13), (9, 19), (20, 5)], 0.5, 2), INK, width=2.2)
    return cv.svg(css_class="tick", element_id=svg_id, title="✓", desc="verified")
