"""clock: one request on a time axis: arrival, time to first token, then the gaps between tokens.

The request is the panel's first focus id (else D, else the slowest to its first token); tick
marks are the trace's token times, so TTFT and ITL read straight off the axis. With many gaps
the first, the last and the longest are labelled (the longest, when it stands out, as a stall).

The same run read as one number, for a metric card's trouble beside its clock (issue 21.2: a
metric concept is one run measured two ways):
- clock_total: arrival to last token as ONE bracket, the tokens unmarked: what an end-to-end
  figure alone tells;
- clock_mean: the tokens after the first spaced evenly at their mean gap, one bracket over them
  labelled with it: what an average alone tells (the stall it hides is the clock's longest gap).
"""

from __future__ import annotations

from pipeline import fonts
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.layout import family_for
from pipeline.draw.palette import FAINT, INK, colour
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
LABEL_SPACE = 6.0  # at least this between two gap labels, else the later one is left out
GAP_LABEL_DY = 22.5  # under the gap arcs, clear of the "gaps" / "time" words below


def pick_request(ctx: SceneContext) -> str:
    reqs = ctx.trace.requests if ctx.trace else {}
    for rid in [*ctx.focus, "D"]:
        if rid in reqs:
            return rid
    return max(reqs, key=lambda r: (reqs[r].ttft or 0, r))


READINGS = ("gaps", "total", "mean")
STALL = 1.5  # a gap this many times the median one is labelled a stall


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    return _draw(cv, ctx, "gaps")


def draw_total(cv: Canvas, ctx: SceneContext) -> SceneResult:
    return _draw(cv, ctx, "total")


def draw_mean(cv: Canvas, ctx: SceneContext) -> SceneResult:
    return _draw(cv, ctx, "mean")


def _draw(cv: Canvas, ctx: SceneContext, reading: str) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    zh = ctx.lang == "zh"
    rid = pick_request(ctx)
    req = trace.requests[rid]
    real = list(req.token_times)
    arrival = req.arrival
    end = max([arrival, *real]) or 1.0
    partner = partner_trace(ctx)
    other = partner.requests.get(rid) if partner is not None else None
    if partner is not None and other is not None and partner.cost.time_unit == trace.cost.time_unit:
        # the card's other run of this scenario: one clock for both panels
        end = max([end, other.arrival, *other.token_times])
    t0 = 0.0
    span = (end - t0) * 1.05 or 1.0
    unit = trace.cost.time_unit or ""
    unit_word = ctx.word("ms") if unit == "ms" else ctx.word("steps")
    real_gaps = req.gaps
    mean_gap = sum(real_gaps) / len(real_gaps) if real_gaps else 0.0
    # what the panel draws as token times: the real ones, or evenly spaced at their mean
    times = (
        [real[0] + k * mean_gap for k in range(len(real))] if reading == "mean" and real else real
    )

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
    if reading == "total":
        if real:
            _bracket(cv, ctx, ax, xs(real[-1]), INK,
                     f"{'总共' if zh else 'in all'} {fmt(real[-1] - arrival)}")
            cv.stroke(rough.line(rng, (xs(real[-1]), AXIS_Y - 10), (xs(real[-1]), AXIS_Y + 6),
                                 0.3, 1), width=1.6)
            cv.layout.place(fmt(real[-1]), x=xs(real[-1]), cy=AXIS_Y + 14, role="axis",
                            size=SMALL_SIZE, floor=None)
        total = fmt(real[-1] - arrival) if real else "?"
        desc = (
            f"时间轴：{rid} 在 {fmt(arrival)} 到达，{total} {unit_word}后写完，中间怎么分配看不出。"
            if zh
            else f"Clock: {rid} arrives at {fmt(arrival)} and is done {total} {unit_word} later; "
            "how that time splits is not shown."
        )
        return SceneResult(desc, True)
    if times:
        fx = xs(times[0])
        _bracket(cv, ctx, ax, fx, colour("new"), f"TTFT {fmt(times[0] - arrival)}")
        cv.stroke(rough.line(rng, (fx, BRACKET_Y + 6), (fx, AXIS_Y), 0.3, 1), FAINT, width=1.0)
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
    if reading == "mean":
        if len(times) > 1:
            cv.stroke(
                rough.curve(cv.rng("gap-mean"), [(xs(times[0]) + 3, AXIS_Y + 8),
                                                  ((xs(times[0]) + xs(times[-1])) / 2, AXIS_Y + 17),
                                                  (xs(times[-1]) - 3, AXIS_Y + 8)], 0.2, 1),
                colour("running"),
                width=1.1,
            )
            mid = (xs(times[0]) + xs(times[-1])) / 2
            cv.layout.place(
                f"{'平均间隔' if zh else 'mean gap'} {fmt(mean_gap)}",
                x=mid,
                cy=AXIS_Y + GAP_LABEL_DY,
                role="label",
                size=SMALL_SIZE,
                floor=None,
                alts=[(mid - 40, AXIS_Y + GAP_LABEL_DY), (AXIS_X0 + 70, AXIS_Y + GAP_LABEL_DY)],
            )
        desc = (
            f"时间轴：{rid} 的 {len(real_gaps)} 个间隔按平均值 {fmt(mean_gap)} {unit_word}画成一样长。"
            if zh
            else f"Clock: {rid}'s {len(real_gaps)} gaps drawn alike at their mean, "
            f"{fmt(mean_gap)} {unit_word}."
        )
        return SceneResult(desc, True)
    gaps = real_gaps
    if len(times) > 1 and req.tpot is not None:
        # the rest of the wait: every token after the first, its mean gap (TPOT) in words
        x0, x1 = xs(times[0]), xs(times[-1])
        per = (f"之后平均每字 {fmt(req.tpot)}" if zh else f"then {fmt(req.tpot)} per token")
        if cv.layout.try_place(per, x=(x0 + x1) / 2, cy=BRACKET_Y - 14, role="label",
                               size=SMALL_SIZE + 0.5, floor=None,
                               alts=[(x1 - 40, BRACKET_Y - 14)]) is not None:
            brng = cv.rng("bracket-rest")
            cv.stroke(rough.line(brng, (x0 + 4, BRACKET_Y), (x1, BRACKET_Y), 0.4, 2)
                      + rough.line(brng, (x1, BRACKET_Y - 6), (x1, BRACKET_Y + 6), 0.2, 1),
                      colour("running"), width=2.0)
    longest = max(range(len(gaps)), key=lambda k: (gaps[k], -k)) if gaps else -1
    typical = sorted(gaps)[len(gaps) // 2] if gaps else 0.0
    stall = longest >= 0 and gaps[longest] > STALL * typical
    distinct_positions = len(gaps) <= MAX_GAP_LABELS
    last_end = float("-inf")  # where the last gap label ended
    for k, g in enumerate(gaps):
        if not distinct_positions and k not in (0, len(gaps) - 1, longest):
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
            colour("freed") if stall and k == longest else colour("running"),
            width=1.1,
        )
        label = fmt(g)
        if stall and k == longest:
            label = f"{'卡顿' if zh else 'stall'} {label}"
        half = fonts.measure(label, family_for(label, ctx.lang), SMALL_SIZE) / 2
        if mid - half < last_end + LABEL_SPACE and not (stall and k == longest):
            continue  # numbers would run together ("1.21.21.2"): the arc stays, unlabelled
        placed = cv.layout.try_place(
            label, x=mid, cy=AXIS_Y + GAP_LABEL_DY, role="label", size=SMALL_SIZE, floor=None
        )
        if placed is not None:
            last_end = placed.box.x1
    itl_word = "间隔" if zh else "gaps"
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
    if zh:
        desc = (
            f"时间轴：{rid} 在 {fmt(arrival)} 到达，首个 token用了 {ttft_v} {unit_word}，"
            f"之后 {len(gaps)} 个间隔{('各 ' + fmt(max(gaps))) if gaps and max(gaps) == min(gaps) else ''}"
            f"{('，平均每字 ' + fmt(req.tpot)) if req.tpot is not None and gaps else ''}。"
        )
        desc += f"最长一个 {fmt(gaps[longest])}。" if stall else ""
    else:
        desc = (
            f"Clock: {rid} arrives at {fmt(arrival)}, its first token takes {ttft_v} "
            f"{unit_word}, then {len(gaps)} gaps between tokens"
            f"{(', ' + fmt(req.tpot) + ' per token on average') if req.tpot is not None and gaps else ''}."
        )
        desc += f" The longest is {fmt(gaps[longest])}." if stall else ""
    return SceneResult(desc, True)


def _bracket(cv: Canvas, ctx: SceneContext, x0: float, x1: float, ink: str, label: str) -> None:
    """A bracket above the axis from `x0` to `x1`, labelled over its middle."""
    rng = cv.rng(f"bracket-{label}")
    cv.stroke(
        rough.line(rng, (x0, BRACKET_Y), (x1, BRACKET_Y), 0.4, 2)
        + rough.line(rng, (x0, BRACKET_Y - 6), (x0, BRACKET_Y + 6), 0.2, 1)
        + rough.line(rng, (x1, BRACKET_Y - 6), (x1, BRACKET_Y + 6), 0.2, 1),
        ink,
        width=2.0,
    )
    cv.layout.place(
        label,
        x=(x0 + x1) / 2,
        cy=BRACKET_Y - 14,
        role="label",
        size=SMALL_SIZE + 0.5,
        floor=None,
        alts=[(max(x0, x1) + 40, BRACKET_Y - 14)],
    )
