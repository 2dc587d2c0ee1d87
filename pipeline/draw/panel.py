"""`draw_panel`: one comic panel (400 x 260) of a concept card, trouble or fix.

The panel frame, the scene drawn from the trace, the caption (placeholders filled) in the bottom
band and the 示意值 tag when numbers show; `<title>`/`<desc>` first, shapes filtered, words not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

from pipeline.artifacts.trace import TraceView
from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, new_canvas
from pipeline.draw.cast import symbol_id
from pipeline.draw.filters import shared_filter
from pipeline.draw.layout import CAPTION_LIMIT, FLOOR
from pipeline.draw.palette import FAINT
from pipeline.draw.scenes import (
    bars,
    budget,
    clock,
    disagg,
    drafts,
    generic,
    kv_blocks,
    kv_capacity,
    load_curve,
    queue,
    roofline,
    sampling,
    slo,
    streaming,
    timeline,
    tp_shards,
)
from pipeline.draw.scenes.common import MIN_TEXT, SceneContext, SceneResult
from pipeline.draw.scenes.key import draw_tag
from pipeline.errors import InputError
from pipeline.plan.catalogue import DRAWN_BY
from pipeline.plan.model import Concept, Panel
from pipeline.plan.placeholders import fill_placeholders, placeholders

WIDTH, HEIGHT = 400.0, 260.0
INSET = 12.0
FRAME = 4.0  # the panel's own hand-drawn frame sits this far inside the SVG edge
CAPTION_CY = 228.0
CAPTION_SIZE = {"zh": 19.0, "en": 17.0}
CAPTION_LINES = 2
RULE_Y = 204.0
FRAME_VARIANTS = 3  # borders shared by all panels (defs.py); neighbours rarely look alike
SIDE_WORDS = {"zh": {"trouble": "烦恼", "fix": "办法"}, "en": {"trouble": "trouble", "fix": "fix"}}

SceneFn = Callable[[Canvas, SceneContext], SceneResult]
SCENES: dict[str, SceneFn] = {
    "timeline": timeline.draw,
    "kv_blocks": kv_blocks.draw,
    "budget": budget.draw,
    "queue": queue.draw,
    "clock": clock.draw,
    "roofline": roofline.draw,
    "bars": bars.draw,
    "generic": generic.draw,
    "drafts": drafts.draw,
    "kv_capacity": kv_capacity.draw,
    "tp_shards": tp_shards.draw,
    "disagg": disagg.draw,
    "slo": slo.draw,
    "streaming": streaming.draw,
    "sampling": sampling.draw,
    "load_curve": load_curve.draw,
}


def _refuse_unfilled(where: str, text: str) -> None:
    left = placeholders(text)
    if left:
        raise InputError(
            f"{where}: placeholder {{{left[0]}}} has no number to fill it (its panel's run "
            "offers none): `tujie validate` names the rule"
        )


def frame_body(cv: Canvas) -> None:
    """The panel's double-stroked hand-drawn border (drawn once per variant into the defs)."""
    rng = cv.rng("frame")
    cv.stroke(rough.rect(rng, FRAME, FRAME, WIDTH - 2 * FRAME, HEIGHT - 2 * FRAME, 0.8), width=1.8)


def draw_panel(
    concept: Concept,
    side: Literal["trouble", "fix"],
    panel: Panel,
    trace: TraceView | None,
    values: Mapping[str, str],
    *,
    lang: str,
    overrides: Mapping[str, Mapping] | None = None,
    path: str | None = None,
) -> str:
    """The SVG of one panel; raises FitError (naming card and panel) if a text cannot fit, and
    InputError (naming `path`, the panel's JSON path) if a placeholder has no value: a raw
    `{D.ttft}` never reaches the page."""
    svg_id = f"{concept.id}-{side}"
    owner = f"card {concept.id}, panel {side}"
    where = path or f"card {concept.id}.{side}"
    cv = new_canvas(
        svg_id,
        WIDTH,
        HEIGHT,
        INSET,
        lang,
        owner,
        overrides,
        shared_filter=shared_filter("p", svg_id),
        min_text=MIN_TEXT,
    )
    cv.use(symbol_id(f"frame-{rough.seed_int(svg_id, FRAME_VARIANTS)}"), 0, 0)
    rng = cv.rng("frame")
    cv.stroke(
        rough.line(rng, (INSET + 8, RULE_Y), (WIDTH - INSET - 8, RULE_Y), 0.6, 1), FAINT, width=1.2
    )
    caption = fill_placeholders(panel.caption, values)
    _refuse_unfilled(f"{where}.caption", caption)
    _refuse_unfilled(f"{where}.bubble", panel.bubble or "")
    for j, label in enumerate(panel.labels):
        _refuse_unfilled(f"{where}.labels[{j}]", label)
    cv.layout.place(
        caption,
        x=WIDTH / 2,
        cy=CAPTION_CY,
        role="caption",
        size=CAPTION_SIZE[lang],
        max_width=WIDTH - 2 * INSET - 8,
        max_lines=CAPTION_LINES,
        floor=FLOOR,
        limit=CAPTION_LIMIT[lang],
    )
    scene_kind = panel.scene if (trace is not None or panel.scene == "generic") else "generic"
    drawn_by = DRAWN_BY.get(panel.scenario or "")
    if scene_kind != "generic" and drawn_by is not None and scene_kind not in drawn_by:
        raise InputError(
            f"{owner}: a '{scene_kind}' scene cannot draw scenario '{panel.scenario}' "
            f"(drawn by: {', '.join(drawn_by)}; pipeline.plan.catalogue.DRAWN_BY)"
        )
    if scene_kind != "generic":
        draw_tag(cv, lang)  # first, so the scene's own words keep clear of the corner
    ctx = SceneContext(concept, side, panel, trace, lang, list(panel.focus))
    result = SCENES[scene_kind](cv, ctx)
    title = f"{concept.name} · {SIDE_WORDS[lang][side]}"
    desc = f"{result.desc} {caption}"
    return cv.svg(
        css_class="panel",
        element_id=f"panel-{svg_id}",
        title=title,
        desc=desc,
        extra={"data-panel": f"{concept.id}/{side}", "data-inset": int(INSET)},
    )
