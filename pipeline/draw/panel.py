"""`draw_panel`: one comic panel (400 x 260) of a concept card, trouble or fix.

The panel frame, the scene drawn from the trace, the caption (placeholders filled) in the bottom
band and the 示意值 tag when numbers show; `<title>`/`<desc>` first, shapes filtered, words not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, new_canvas
from pipeline.draw.cast import symbol_id
from pipeline.draw.filters import shared_filter
from pipeline.draw.generic import GENERIC_SCENE
from pipeline.draw.key import draw_tag
from pipeline.draw.layout import CAPTION_LIMIT, FLOOR
from pipeline.draw.palette import FAINT
from pipeline.draw.scene import MIN_TEXT, SceneContext, SceneSpec
from pipeline.errors import InputError
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


def _tag_kind(panel: Panel, run: Any) -> str:
    """"quoted" when every number the panel writes (its roles' quantities, its caption's
    `{name}`s) is quoted from an article, "computed" when some are computed from quoted ones
    alone, else "illustrative": a general-field worked example only (a simulator's run is
    always illustrative)."""
    check = getattr(run, "quoted_only", None)
    if check is None:
        return "illustrative"
    names = [q for entry in panel.show for q in entry.quantities]
    names += placeholders(panel.caption)
    if not check(names):
        return "illustrative"
    derived = any(getattr(run.quantities.get(n), "kind", "") == "derived" for n in names)
    return "computed" if derived else "quoted"


def draw_panel(
    concept: Concept,
    side: Literal["trouble", "fix"],
    panel: Panel,
    run: Any,
    values: Mapping[str, str],
    *,
    lang: str,
    scene: SceneSpec | None = None,
    overrides: Mapping[str, Mapping] | None = None,
    path: str | None = None,
    partner: Any = None,
) -> str:
    """The SVG of one panel: `scene` (its field's, from the registry) drawn from `run` (the
    field's view of the panel's run), or the generic scene when there is no scene or no run.
    Raises FitError (naming card and panel) if a text cannot fit, and InputError (naming `path`,
    the panel's JSON path) if a placeholder has no value: a raw `{D.ttft}` never reaches the
    page."""
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
    spec = scene if scene is not None and run is not None else GENERIC_SCENE
    if spec is not GENERIC_SCENE:
        # first, so the scene's own words keep clear of the corner
        draw_tag(cv, lang, kind=_tag_kind(panel, run))
    ctx = SceneContext(concept, side, panel, run, lang, list(panel.focus), spec.words, partner)
    result = spec.draw(cv, ctx)
    title = f"{concept.name} · {SIDE_WORDS[lang][side]}"
    desc = f"{result.desc} {caption}"
    return cv.svg(
        css_class="panel",
        element_id=f"panel-{svg_id}",
        title=title,
        desc=desc,
        extra={"data-panel": f"{concept.id}/{side}", "data-inset": int(INSET)},
    )
