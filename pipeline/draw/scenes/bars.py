"""bars and roofline: why decode is memory-bound, from the arithmetic scenario's step times.

`draw` shows one decode step as a time bar with the batch riding on it (the step barely grows
with the batch, so tokens per ms multiply); `draw_roofline` plots every step as tokens vs time on
log axes with the weight-reading floor.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.palette import FAINT, TINT_OPACITY, colour
from pipeline.draw.scenes.common import (
    SCENE_TOP,
    SCENE_X0,
    SCENE_X1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    fmt,
)

BAR_X0 = 112.0
BAR_Y, BAR_H = 122.0, 24.0
BEAN_STEP = 28.0
MAX_BEANS = 8
PLOT_X0, PLOT_X1 = SCENE_X0 + 40, SCENE_X1 - 10
PLOT_Y0, PLOT_Y1 = SCENE_TOP + 8, 170.0


def decode_step(trace: Mapping[str, Any]) -> Mapping[str, Any]:
    """The first step whose scheduled requests each get exactly one token."""
    for s in trace["steps"]:
        if s["scheduled"] and all(n == 1 for n in s["scheduled"].values()):
            return s
    return trace["steps"][-1]


def _unit(ctx: SceneContext) -> str:
    unit = (ctx.trace or {}).get("cost", {}).get("time_unit", "")
    return ctx.word("ms") if unit == "ms" else ctx.word("steps")


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    step = decode_step(trace)
    n = len(step["scheduled"])
    dt = float(step["end"] - step["start"])
    scale = (SCENE_X1 - 10 - BAR_X0) / (dt * 1.3 or 1.0)
    cast.gpu(cv, 60, BAR_Y - 6, busy=True)
    crate_word = "权重" if ctx.lang == "zh" else "weights"
    rng = cv.rng("crate")
    cv.stroke(rough.rect(rng, 30, 158, 60, 26, 0.6), width=1.4)
    cv.stroke(rough.hachure(rng, rough.rect_poly(30, 158, 60, 26), 6), FAINT, width=0.8)
    cv.layout.place(crate_word, x=60, cy=171, role="label", size=SMALL_SIZE + 2, floor=None)
    cv.stroke(rough.arrow(cv.rng("crate-arrow"), (60, 156), (60, BAR_Y + 26), 0.4, 0, 5), width=1.2)
    w = dt * scale
    cv.fill(poly_d(rough.rect_poly(BAR_X0, BAR_Y, w, BAR_H)), colour("running"), TINT_OPACITY)
    cv.stroke(rough.rect(cv.rng("bar"), BAR_X0, BAR_Y, w, BAR_H, 0.6), colour("running"), width=1.6)
    label = (
        f"一步 {fmt(dt)} {_unit(ctx)}" if ctx.lang == "zh" else f"one step {fmt(dt)} {_unit(ctx)}"
    )
    cv.layout.place(
        label, x=BAR_X0 + w / 2, cy=BAR_Y + BAR_H / 2, role="label", size=SMALL_SIZE + 3, floor=None
    )
    shown = min(n, MAX_BEANS)
    for k in range(shown):
        rid = list(step["scheduled"])[k]
        cast.bean(
            cv,
            rid[-1] if len(rid) > 1 else rid,
            BAR_X0 + 16 + k * BEAN_STEP,
            BAR_Y - 24,
            "running",
            eid=f"rider-{k}",
        )
    count = f"× {n}" if n > shown else ""
    if count:
        cv.layout.place(
            count,
            x=BAR_X0 + 16 + shown * BEAN_STEP,
            cy=BAR_Y - 24,
            role="label",
            size=SMALL_SIZE + 5,
            anchor="start",
            floor=None,
        )
    rate = n / dt if dt else 0.0
    rate_text = (
        f"每{_unit(ctx)} {fmt(rate)} 个令牌"
        if ctx.lang == "zh"
        else f"{fmt(rate)} tokens per {_unit(ctx)}"
    )
    cv.layout.place(
        rate_text,
        x=BAR_X0,
        cy=BAR_Y + BAR_H + 22,
        role="label",
        size=SMALL_SIZE + 4,
        anchor="start",
        floor=None,
    )
    head = f"一次解码 {n} 个请求" if ctx.lang == "zh" else f"one decode step, batch of {n}"
    cv.layout.place(
        head, x=SCENE_X0, cy=27, role="label", size=SMALL_SIZE + 2, anchor="start", floor=None
    )
    if ctx.lang == "zh":
        desc = f"一次解码步：批里 {n} 个请求，用时 {fmt(dt)} {_unit(ctx)}，每{_unit(ctx)} {fmt(rate)} 个令牌。"
    else:
        desc = (
            f"One decode step with a batch of {n} takes {fmt(dt)} {_unit(ctx)}: "
            f"{fmt(rate)} tokens per {_unit(ctx)}."
        )
    return SceneResult(desc, True)


def draw_roofline(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    points: dict[int, float] = {}
    for s in trace["steps"]:
        tokens = sum(s["scheduled"].values())
        points.setdefault(tokens, float(s["end"] - s["start"]))
    xs_log = [math.log2(t) for t in points] + [0.0]
    ys_log = [math.log10(v) for v in points.values() if v > 0]
    x_hi = max(xs_log) + 1
    y_lo, y_hi = min(ys_log) - 0.3, max(ys_log) + 0.3

    def px(t: float) -> float:
        return PLOT_X0 + math.log2(t) / x_hi * (PLOT_X1 - PLOT_X0)

    def py(v: float) -> float:
        return PLOT_Y1 - (math.log10(v) - y_lo) / (y_hi - y_lo) * (PLOT_Y1 - PLOT_Y0)

    rng = cv.rng("axes")
    cv.stroke(
        rough.arrow(rng, (PLOT_X0, PLOT_Y1), (PLOT_X1 + 6, PLOT_Y1), 0.5, 0, 6)
        + rough.arrow(rng, (PLOT_X0, PLOT_Y1), (PLOT_X0, PLOT_Y0 - 4), 0.5, 0, 6),
        width=1.4,
    )
    floor_v = min(points.values())
    cv.stroke(
        rough.line(rng, (PLOT_X0, py(floor_v)), (PLOT_X1, py(floor_v)), 0.4, 1), FAINT, width=1.4
    )
    floor_word = "读权重的下限" if ctx.lang == "zh" else "weight-reading floor"
    cv.layout.place(
        floor_word,
        x=PLOT_X1,
        cy=py(floor_v) - 11,  # above the floor line, clear of the x axis
        role="label",
        size=SMALL_SIZE + 1,
        anchor="end",
        floor=None,
        alts=[(PLOT_X1, py(floor_v) + 11)],
    )
    for k, (tokens, v) in enumerate(sorted(points.items())):
        x, y = px(tokens), py(v)
        state = "running" if tokens <= len(trace["requests"]) else "new"
        cv.fill(rough.smooth_closed(rough.ellipse_points(x, y, 5, 5, 8)), colour(state), 0.8)
        cv.stroke(rough.ellipse(cv.rng(f"pt-{k}"), x, y, 5, 5, 0.3), colour(state), width=1.3)
        word = ctx.word("decode") if state == "running" else ctx.word("prefill")
        right = x > (PLOT_X0 + PLOT_X1) / 2  # labels of right-hand points grow leftwards
        lx = x - 8 if right else x + 8
        cv.layout.place(
            f"{word} {tokens}: {fmt(v)} {_unit(ctx)}",
            x=lx,
            cy=y - 14,
            role="label",
            size=SMALL_SIZE + 1,
            anchor="end" if right else "start",
            floor=None,
            alts=[(lx, y + 14)],
        )
    cv.layout.place(
        "令牌/步" if ctx.lang == "zh" else "tokens/step",
        x=PLOT_X1,
        cy=PLOT_Y1 + 14,
        role="axis",
        size=SMALL_SIZE,
        anchor="end",
        floor=None,
    )
    cv.layout.place(
        _unit(ctx),
        x=PLOT_X0 - 6,
        cy=PLOT_Y0 + 4,
        role="axis",
        size=SMALL_SIZE,
        anchor="end",
        floor=None,
    )
    pairs = ", ".join(f"{t}: {fmt(v)}" for t, v in sorted(points.items()))
    if ctx.lang == "zh":
        desc = f"屋顶线：每步令牌数与用时（{_unit(ctx)}）为 {pairs}。"
    else:
        desc = f"Roofline: tokens per step and step time ({_unit(ctx)}): {pairs}."
    return SceneResult(desc, True)
