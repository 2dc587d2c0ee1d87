"""clock: one request on a time axis: arrival, time to first token, then the gaps between tokens.

The request is the panel's first focus id (else D, else the slowest to its first token); tick
marks are the trace's token times, so TTFT and ITL read straight off the axis.
"""

from __future__ import annotations

from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.palette import FAINT, colour
from pipeline.fields.serving.scenes.common import (
    SCENE_X0,
    SCENE_X1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    fmt,
    partner_trace,
)

AXIS_Y = 150.0
AXIS_X0, AXIS_X1 = SCENE_X0 + 14, SCENE_X1 - 14
BRACKET_Y = 96.0
MAX_GAP_LABELS = 6
GAP_LABEL_DY = 22.5  # under the gap arcs, clear of the "gaps" / "time" words below


def pick_request(ctx: SceneContext) -> str:
    reqs = ctx.trace.requests if ctx.trace else {}
    for rid in [*ctx.focus, "D"]:
        if rid in reqs:
            return rid
    return max(reqs, key=lambda r: (reqs[r].ttft or 0, r))


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    rid = pick_request(ctx)
    req = trace.requests[rid]
    times = list(req.token_times)
    arrival = req.arrival
    end = max([arrival, *times]) or 1.0
    partner = partner_trace(ctx)
    other = partner.requests.get(rid) if partner is not None else None
    if partner is not None and other is not None and partner.cost.time_unit == trace.cost.time_unit:
        # the card's other run of this scenario: one clock for both panels
        end = max([end, other.arrival, *other.token_times])
    t0 = 0.0
    span = (end - t0) * 1.05 or 1.0
    unit = trace.cost.time_unit or ""
    unit_word = ctx.word("ms") if unit == "ms" else ctx.word("steps")

    def xs(t: float) -> float:
        return AXIS_X0 + (t - t0) / span * (AXIS_X1 - AXIS_X0)

    rng = cv.rng("axis")
    cv.stroke(rough.arrow(rng, (AXIS_X0 - 6, AXIS_Y), (AXIS_X1 + 8, AXIS_Y), 0.5, 0, 7), width=1.5)
    cv.layout.place(
        f"{ctx.word('time')} ({unit_word})",
        x=AXIS_X1 + 4,
        cy=AXIS_Y + 43,
        role="axis",
        size=SMALL_SIZE,
        anchor="end",
        floor=None,
    )
    cv.layout.place("0", x=xs(0), cy=AXIS_Y + 14, role="axis", size=SMALL_SIZE, floor=None)
    ax = xs(arrival)
    cast.bean(cv, rid, ax, AXIS_Y - 30, "new", eid=f"clock-{rid}", focus=rid in ctx.focus)
    cv.stroke(rough.line(rng, (ax, AXIS_Y - 10), (ax, AXIS_Y + 6), 0.3, 1), width=1.6)
    if ax - xs(0) > 14:
        cv.layout.place(
            fmt(arrival), x=ax, cy=AXIS_Y + 14, role="axis", size=SMALL_SIZE, floor=None
        )
    if times:
        fx = xs(times[0])
        cv.stroke(
            rough.line(rng, (ax, BRACKET_Y), (fx, BRACKET_Y), 0.4, 2)
            + rough.line(rng, (ax, BRACKET_Y - 6), (ax, BRACKET_Y + 6), 0.2, 1)
            + rough.line(rng, (fx, BRACKET_Y - 6), (fx, BRACKET_Y + 6), 0.2, 1),
            colour("new"),
            width=2.0,
        )
        cv.stroke(rough.line(rng, (fx, BRACKET_Y + 6), (fx, AXIS_Y), 0.3, 1), FAINT, width=1.0)
        ttft = f"TTFT {fmt(times[0] - arrival)}"
        cv.layout.place(
            ttft,
            x=(ax + fx) / 2,
            cy=BRACKET_Y - 14,
            role="label",
            size=SMALL_SIZE + 0.5,
            floor=None,
            alts=[(max(ax, fx) + 40, BRACKET_Y - 14)],
        )
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    for k, t in enumerate(times):
        x = xs(t)
        cv.fill(
            rough.smooth_closed(rough.ellipse_points(x, AXIS_Y, 4.2, 4.2, 8)),
            colour("running"),
            0.8,
        )
        cv.stroke(
            rough.ellipse(cv.rng(f"tok-{k}"), x, AXIS_Y, 4.2, 4.2, 0.3, 1),
            colour("running"),
            width=1.2,
        )
    distinct_positions = len(gaps) <= MAX_GAP_LABELS
    for k, g in enumerate(gaps):
        if not distinct_positions and k not in (0, len(gaps) - 1):
            continue
        mid = (xs(times[k]) + xs(times[k + 1])) / 2
        cv.stroke(
            rough.curve(
                cv.rng(f"gap-{k}"),
                [
                    (xs(times[k]) + 3, AXIS_Y + 8),
                    (mid, AXIS_Y + 15),
                    (xs(times[k + 1]) - 3, AXIS_Y + 8),
                ],
                0.2,
                1,
            ),
            colour("running"),
            width=1.1,
        )
        cv.layout.try_place(
            fmt(g), x=mid, cy=AXIS_Y + GAP_LABEL_DY, role="label", size=SMALL_SIZE, floor=None
        )
    itl_word = "间隔" if ctx.lang == "zh" else "gaps"
    if gaps:
        cv.layout.place(
            itl_word,
            x=AXIS_X0 - 6,
            cy=AXIS_Y + 43,
            role="label",
            size=SMALL_SIZE,
            anchor="start",
            floor=None,
        )
    ttft_v = fmt(times[0] - arrival) if times else "?"
    if ctx.lang == "zh":
        desc = (
            f"时间轴：{rid} 在 {fmt(arrival)} 到达，首个 token用了 {ttft_v} {unit_word}，"
            f"之后 {len(gaps)} 个间隔{('各 ' + fmt(max(gaps))) if gaps and max(gaps) == min(gaps) else ''}。"
        )
    else:
        desc = (
            f"Clock: {rid} arrives at {fmt(arrival)}, its first token takes {ttft_v} "
            f"{unit_word}, then {len(gaps)} gaps between tokens."
        )
    return SceneResult(desc, True)
