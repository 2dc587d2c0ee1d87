"""budget: one bar per step, split into each request's tokens, against the token budget line.

Prefill tokens are orange (new work), decode tokens green (running); the budget is a thick ink
line. Used for chunked prefill, token budgets, prefill-first stalls, and the work a KV cache saves.
The card's two panels of one scenario share one height scale (issue 21.2: same scale); a budget
no step of either panel comes near (under 3/4 of it: the KV-cache card's 64 against steps
of at most 34 tokens) is not drawn, so the bars get the height and a word the card does not need
stays off it.
"""

from __future__ import annotations

from pipeline import fonts
from pipeline.artifacts.trace import StepView, TraceView
from pipeline.draw import rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.key import draw_key
from pipeline.draw.layout import GAP, vertical_metrics
from pipeline.draw.palette import INK, TINT_OPACITY, colour
from pipeline.fields.serving.scenes.common import (
    SCENE_TOP,
    SCENE_X0,
    SCENE_X1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    budget,
    partner_trace,
    phase,
    steps,
)

PLOT_X0 = SCENE_X0 + 26
PLOT_Y1 = 178.0  # bar baseline
PLOT_TOP = SCENE_TOP + 12
HEADROOM = 1.05  # little room above the tallest bar: the bars get the height for labels
NEAR_BUDGET = 0.75  # the budget line is drawn when some step takes at least this share of it
BAR_FILL = 0.62  # share of a column the bar takes


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    cols = steps(trace)
    cap = budget(trace)
    totals = [s.total_tokens for s in cols]
    reused = [_reused(trace, s) for s in cols]
    partner = partner_trace(ctx)
    both = totals + ([s.total_tokens for s in steps(partner)] if partner is not None else [])
    show_cap = cap > 0 and max(both, default=0) >= NEAR_BUDGET * cap
    drawn = [t + r for t, r in zip(totals, reused, strict=True)]
    if partner is not None:
        drawn += [s.total_tokens + _reused(partner, s) for s in steps(partner)]
    top = max([cap] * show_cap + both + drawn) * HEADROOM or 1
    scale = (PLOT_Y1 - PLOT_TOP) / top
    pitch = (SCENE_X1 - PLOT_X0) / max(len(cols), 1)
    bar_w = pitch * BAR_FILL
    # a segment is labelled only if its label box (font ascent + descent) and the gap fit in it,
    # so the labels of two stacked segments never touch
    min_label_h = SMALL_SIZE * sum(vertical_metrics(fonts.HAND_EN)) + GAP
    draw_key(cv, ctx, ["new", "running", *(["reused"] if any(reused) else [])])
    rng = cv.rng("axes")
    cv.stroke(rough.line(rng, (PLOT_X0 - 4, PLOT_Y1), (SCENE_X1, PLOT_Y1), 0.5, 2), width=1.4)
    for j, step in enumerate(cols):
        x = PLOT_X0 + j * pitch + (pitch - bar_w) / 2
        y = PLOT_Y1
        for rid, n in step.scheduled.items():
            h = n * scale
            kind = "new" if phase(trace, rid, step) == "prefill" else "running"
            seg = rough.rect_poly(x, y - h, bar_w, h)
            cv.shape(
                rough.jitter_poly(cv.rng(f"seg-{step.index}-{rid}"), seg, 0.6),
                fill=colour(kind),
                opacity=TINT_OPACITY + 0.1,
                colour=colour(kind),
                width=1.2,
            )
            if h >= min_label_h and bar_w >= 9:
                label = rid if n == 1 or h < 2 * min_label_h else f"{rid}{n}"
                cv.layout.place(
                    label,
                    x=x + bar_w / 2,
                    cy=y - h / 2,
                    role="label",
                    size=SMALL_SIZE,
                    floor=None,
                    max_width=bar_w + 2 if len(label) == 1 else pitch,
                    fill=INK,
                )
            y -= h
        if reused[j]:
            _ghost(cv, step.index, x, y, bar_w, reused[j] * scale, reused[j], min_label_h)
        cv.layout.place(
            str(step.index),
            x=x + bar_w / 2,
            cy=PLOT_Y1 + 10,
            role="axis",
            size=SMALL_SIZE,
            floor=None,
        )
    if show_cap:
        line_y = PLOT_Y1 - cap * scale
        cv.stroke(
            rough.line(cv.rng("budget-line"), (PLOT_X0 - 6, line_y), (SCENE_X1, line_y), 0.6, 2),
            width=2.2,
        )
        cv.layout.place(
            f"{ctx.word('budget')} {cap}",
            x=PLOT_X0 - 8,
            cy=line_y - 9,
            role="label",
            size=SMALL_SIZE,
            anchor="start",
            floor=None,
            alts=[(PLOT_X0 - 8, line_y + 9), (SCENE_X1 - 60, line_y - 9)],
        )
    cv.layout.place(
        ctx.word("step"),
        x=PLOT_X0 - 8,
        cy=PLOT_Y1 + 10,
        role="axis",
        size=SMALL_SIZE,
        anchor="end",
        floor=None,
    )
    full = sum(1 for t in totals if t >= cap)
    if ctx.lang == "zh":
        desc = f"每步 token柱状图：预算 {cap}，{len(cols)} 步中有 {full} 步用满，最多一步 {max(totals)} 个 token。"
        desc += f"从前缀缓存复用、不用再算的 {sum(reused)} 个 token 画成虚线。" if any(reused) else ""
    else:
        desc = (
            f"Tokens per step against a budget of {cap}: {full} of {len(cols)} steps are full, "
            f"the largest step has {max(totals)} tokens."
        )
        desc += (f" {sum(reused)} prompt tokens reused from the prefix cache, not computed, "
                 "are drawn dashed." if any(reused) else "")
    return SceneResult(desc, True)


def _reused(trace: TraceView, step: StepView) -> int:
    """Prompt tokens the requests first scheduled in `step` take from the prefix cache: work
    the step does not do (drawn as a dashed box on top of its bar)."""
    return sum(
        trace.requests[rid].prefix_hit_tokens
        for rid in step.scheduled
        if rid in trace.requests and (first := trace.first_scheduled(rid)) is not None
        and first.index == step.index
    )


def _ghost(cv: Canvas, index: int, x: float, y: float, w: float, h: float,
           n: int, min_label_h: float) -> None:
    """The reused prompt tokens over a bar: dashed, unfilled, labelled with their count."""
    cv.stroke(rough.jitter_poly(cv.rng(f"reused-{index}"), rough.rect_poly(x, y - h, w, h), 0.6),
              colour("stored"), width=1.3, dashed=True)
    if h >= min_label_h:
        # the count alone: the key says what the dashed box is
        cv.layout.place(str(n), x=x + w / 2, cy=y - h / 2, role="label", size=SMALL_SIZE,
                        floor=None, max_width=w + 2, fill=INK)
