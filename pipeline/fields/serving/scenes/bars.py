"""bars: why decode is memory-bound, from the arithmetic scenario's step times.

`draw` shows one decode step as a time bar with the batch riding on it (the step barely grows
with the batch, so tokens per ms multiply). The roofline scene is in `roofline.py`.
"""

from __future__ import annotations

from pipeline.artifacts.trace import StepView, TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.palette import FAINT, TINT_OPACITY, colour
from pipeline.fields.serving.scenes.common import (
    SCENE_X0,
    SCENE_X1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    fmt,
    partner_trace,
)

BAR_X0 = 112.0
BAR_Y, BAR_H = 122.0, 24.0
BEAN_STEP = 28.0
MAX_BEANS = 8


def decode_step(trace: TraceView) -> StepView:
    """The first step whose scheduled requests each get exactly one token."""
    for s in trace.steps:
        if s.scheduled and all(n == 1 for n in s.scheduled.values()):
            return s
    return trace.steps[-1]


def _unit(ctx: SceneContext) -> str:
    unit = (ctx.trace.cost.time_unit or "") if ctx.trace else ""
    return ctx.word("ms") if unit == "ms" else ctx.word("steps")


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    step = decode_step(trace)
    n = len(step.scheduled)
    dt = step.duration
    # the card's two panels share one scale: the longer of their decode steps
    partner = partner_trace(ctx)
    longest = max(dt, decode_step(partner).duration) if partner is not None else dt
    scale = (SCENE_X1 - 10 - BAR_X0) / (longest * 1.3 or 1.0)
    cast.gpu(cv, 60, BAR_Y - 6, busy=True)
    crate_word = "权重" if ctx.lang == "zh" else "weights"
    rng = cv.rng("crate")
    cv.stroke(rough.rect(rng, 30, 158, 60, 26, 0.6), width=1.4)
    cv.stroke(rough.hachure(rng, rough.rect_poly(30, 158, 60, 26), 6), FAINT, width=0.8)
    cv.layout.place(crate_word, x=60, cy=171, role="label", size=SMALL_SIZE, floor=None)
    cv.stroke(rough.arrow(cv.rng("crate-arrow"), (60, 156), (60, BAR_Y + 26), 0.4, 0, 5), width=1.2)
    w = dt * scale
    cv.fill(poly_d(rough.rect_poly(BAR_X0, BAR_Y, w, BAR_H)), colour("running"), TINT_OPACITY)
    cv.stroke(rough.rect(cv.rng("bar"), BAR_X0, BAR_Y, w, BAR_H, 0.6), colour("running"), width=1.6)
    label = (
        f"一步 {fmt(dt)} {_unit(ctx)}" if ctx.lang == "zh" else f"one step {fmt(dt)} {_unit(ctx)}"
    )
    cv.layout.place(
        label, x=BAR_X0 + w / 2, cy=BAR_Y + BAR_H / 2, role="label", size=SMALL_SIZE + 0.5, floor=None
    )
    letters = list(dict.fromkeys([*ctx.focus, "A", "B", "C", "D"]))
    shown = min(n, MAX_BEANS, len(letters))
    # the run's requests are anonymous (R0, R1 ...): the riders are the page's cast, focus
    # first, and a count for the rest
    for k in range(shown):
        cast.bean(
            cv,
            letters[k],
            BAR_X0 + 16 + k * BEAN_STEP,
            BAR_Y - 24,
            "running",
            eid=f"rider-{k}",
        )
    count = (f"… 共 {n} 个" if ctx.lang == "zh" else f"… {n} in all") if n > shown else ""
    if count:
        cv.layout.place(
            count,
            x=BAR_X0 + 16 + shown * BEAN_STEP,
            cy=BAR_Y - 24,
            role="label",
            size=SMALL_SIZE + 2.5,
            anchor="start",
            floor=None,
        )
    # tokens per second when the run is timed in ms (the unit articles and benchmarks quote),
    # per step otherwise
    per_second = trace.cost.time_unit == "ms"
    rate = (n / dt if dt else 0.0) * (1000.0 if per_second else 1.0)
    per = ("秒" if per_second else _unit(ctx)) if ctx.lang == "zh" else (
        "second" if per_second else _unit(ctx))
    shown_rate = (f"{rate:,.0f}" if ctx.lang == "en" else f"{rate:.0f}") if per_second else fmt(rate)
    rate_text = (
        f"每{per} {shown_rate} 个 token" if ctx.lang == "zh" else f"{shown_rate} tokens per {per}"
    )
    cv.layout.place(
        rate_text,
        x=BAR_X0,
        cy=BAR_Y + BAR_H + 22,
        role="label",
        size=SMALL_SIZE + 1.5,
        anchor="start",
        floor=None,
    )
    head = f"一次解码 {n} 个请求" if ctx.lang == "zh" else f"one decode step, batch of {n}"
    cv.layout.place(
        head, x=SCENE_X0, cy=27, role="label", size=SMALL_SIZE, anchor="start", floor=None
    )
    if ctx.lang == "zh":
        desc = f"一次解码步：批里 {n} 个请求，用时 {fmt(dt)} {_unit(ctx)}，每{per} {shown_rate} 个 token。"
    else:
        desc = (
            f"One decode step with a batch of {n} takes {fmt(dt)} {_unit(ctx)}: "
            f"{shown_rate} tokens per {per}."
        )
    return SceneResult(desc, True)
