"""clock: one request on a time axis: arrival, time to first token, then the gaps between tokens.

The request is the panel's first focus id (else D, else the slowest to its first token); tick
marks are the trace's token times, so TTFT and ITL read straight off the axis. With many gaps
the first, the last and the longest are labelled (the longest, when it stands out, as a stall).
A prompt read over several steps gets a small orange tick at the end of each step that read a
piece, and its TTFT bracket says how many steps.

Two focus ids draw two requests, one lane each on one time axis, the bean at the lane's start
(issue 21.2: a trade-off between two requests in one picture, e.g. chunked prefill evens A's
gaps and makes D's first token later).

The same run read as one number, for a metric card's trouble beside its clock (issue 21.2: a
metric concept is one run measured two ways):
- clock_total: arrival to last token as ONE bracket, the tokens unmarked: what an end-to-end
  figure alone tells;
- clock_mean: the tokens after the first spaced evenly at their mean gap, one bracket over them
  labelled with it: what an average alone tells (the stall it hides is the clock's longest gap).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

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
    cast_state,
    fmt,
    partner_trace,
)

AXIS_Y = 150.0
AXIS_X0, AXIS_X1 = SCENE_X0 + 14, SCENE_X1 - 14
BRACKET_Y = 96.0
MAX_GAP_LABELS = 6
LABEL_SPACE = 6.0  # at least this between two gap labels, else the later one is left out
GAP_LABEL_DY = 22.5  # under the gap arcs, clear of the "gaps" / "time" words below


@dataclass(frozen=True)
class Lane:
    """Where one request's clock sits: its axis, the brackets above it, the gap numbers below;
    `tag` keeps two lanes' hand-drawn strokes apart (empty for the one-lane picture)."""

    axis_y: float
    bracket_y: float
    gap_dy: float
    label_dy: float = 14.0  # a bracket's words above it
    tag: str = ""


ONE_LANE = Lane(AXIS_Y, BRACKET_Y, GAP_LABEL_DY)
TWO_LANES_X0 = SCENE_X0 + 40  # the axis starts right of the lane's bean
TWO_LANE_AXES = (82.0, 152.0)  # each lane: words, bracket, axis, gap numbers in 70 px
TWO_LANE_RISE = 22.0  # bracket above the axis
TWO_LANE_GAP_DY = 16.0
TWO_LANE_LABEL_DY = 11.0


def pick_request(ctx: SceneContext) -> str:
    reqs = ctx.trace.requests if ctx.trace else {}
    for rid in [*ctx.focus, "D"]:
        if rid in reqs:
            return rid
    return max(reqs, key=lambda r: (reqs[r].ttft or 0, r))


READINGS = ("gaps", "total", "mean")
STALL = 1.5  # a gap this many times the median one is labelled a stall


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    reqs = ctx.trace.requests if ctx.trace else {}
    pair = [rid for rid in ctx.focus if rid in reqs][:2]
    if len(pair) == 2:
        return _draw_two(cv, ctx, pair)
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
    # the cast's colour as the timeline gives it (reader li7: A drawn orange, "just arrived,
    # prefilling", on a clock where it decodes): orange only for a later arrival
    cast.bean(cv, rid, ax, AXIS_Y - 30, cast_state(arrival), eid=f"clock-{rid}",
              focus=rid in ctx.focus)
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
    if reading == "mean":
        if times:
            _bracket(cv, ctx, ax, xs(times[0]), colour("new"), f"TTFT {fmt(times[0] - arrival)}")
            cv.stroke(rough.line(rng, (xs(times[0]), BRACKET_Y + 6), (xs(times[0]), AXIS_Y),
                                 0.3, 1), FAINT, width=1.0)
        _dots(cv, xs, times, ONE_LANE)
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
    desc = _gaps_lane(cv, ctx, rid, xs, ONE_LANE, ax, rng)
    if req.gaps:
        cv.layout.place(
            "间隔（ITL）" if zh else "gaps (ITL)",
            x=AXIS_X0 - 6,
            cy=AXIS_Y + 43,
            role="label",
            size=SMALL_SIZE,
            anchor="start",
            floor=None,
        )
    return SceneResult(desc, True)


def _draw_two(cv: Canvas, ctx: SceneContext, rids: list[str]) -> SceneResult:
    """Two requests' clocks, one lane each, on one time axis (the partner run's too)."""
    trace = ctx.trace
    assert trace is not None
    partner = partner_trace(ctx)
    same_clock = partner is not None and partner.cost.time_unit == trace.cost.time_unit
    end = 1.0
    for run in [trace, *([partner] if same_clock and partner is not None else [])]:
        for rid in rids:
            if rid in run.requests:
                end = max([end, run.requests[rid].arrival, *run.requests[rid].token_times])
    span = end * 1.05

    def xs(t: float) -> float:
        return TWO_LANES_X0 + t / span * (AXIS_X1 - TWO_LANES_X0)

    unit_word = ctx.word("ms") if trace.cost.time_unit == "ms" else ctx.word("steps")
    descs = []
    for i, rid in enumerate(rids):
        axis_y = TWO_LANE_AXES[i]
        lane = Lane(axis_y, axis_y - TWO_LANE_RISE, TWO_LANE_GAP_DY, TWO_LANE_LABEL_DY,
                    tag=f"{rid}-")
        rng = cv.rng(f"axis-{rid}")
        cv.stroke(rough.arrow(rng, (TWO_LANES_X0 - 6, axis_y), (AXIS_X1 + 8, axis_y), 0.5, 0, 7),
                  width=1.5)
        arrival = trace.requests[rid].arrival
        cast.bean(cv, rid, SCENE_X0 + 14, axis_y - 6, cast_state(arrival),
                  eid=f"clock-{rid}", focus=True)
        ax = xs(arrival)
        cv.stroke(rough.line(rng, (ax, axis_y - 10), (ax, axis_y + 6), 0.3, 1), width=1.6)
        if ax - xs(0) > 14:
            cv.layout.try_place(fmt(arrival), x=ax, cy=axis_y + 14, role="axis",
                                size=SMALL_SIZE, floor=None)
        descs.append(_gaps_lane(cv, ctx, rid, xs, lane, ax, rng))
    cv.layout.place(
        f"{ctx.word('time')} ({unit_word})",
        x=AXIS_X1 + 4,
        cy=TWO_LANE_AXES[-1] + 36,
        role="axis",
        size=SMALL_SIZE,
        anchor="end",
        floor=None,
    )
    return SceneResult(" ".join(descs), True)


DOT = "token-dot"  # one shared drawing of an output token (pages stay light: ~300 B a dot)


def dot_body(cv: Canvas) -> None:
    """An output token on the clock, around (0, 0): a green dot, hand-drawn once a page."""
    cv.fill(rough.smooth_closed(rough.ellipse_points(0, 0, 4.2, 4.2, 8)), colour("running"), 0.8)
    cv.stroke(rough.ellipse(cv.rng("tok"), 0, 0, 4.2, 4.2, 0.3, 1), colour("running"),
              width=1.2)


def _dots(cv: Canvas, xs: Callable[[float], float], times: Sequence[float], lane: Lane) -> None:
    for t in times:
        cv.use(cast.symbol_id(DOT), xs(t), lane.axis_y)


def _gaps_lane(cv: Canvas, ctx: SceneContext, rid: str, xs: Callable[[float], float],
               lane: Lane, ax: float, rng: rough.Rng) -> str:
    """One request's real clock on `lane`: its TTFT bracket (with the steps that read its
    prompt), its tokens, the TPOT bracket and the gaps between tokens; returns its words."""
    trace = ctx.trace
    assert trace is not None
    zh = ctx.lang == "zh"
    req = trace.requests[rid]
    times = list(req.token_times)
    arrival = req.arrival
    unit_word = ctx.word("ms") if trace.cost.time_unit == "ms" else ctx.word("steps")
    axis_y, bracket_y = lane.axis_y, lane.bracket_y
    # a prompt read over several steps: each step that read a piece and wrote nothing is a
    # small orange tick before the first token, and the bracket says how many steps
    read = trace.prompt_steps(rid) if times else ()
    if times:
        fx = xs(times[0])
        label = f"TTFT {fmt(times[0] - arrival)}"
        if len(read) > 1:
            label += f"，读了 {len(read)} 步" if zh else f" over {len(read)} steps"
            for k, s in enumerate(read[:-1]):
                tx = xs(s.end)
                cv.stroke(rough.line(cv.rng(f"{lane.tag}read-{k}"), (tx, axis_y - 6),
                                     (tx, axis_y + 6), 0.2, 1), colour("new"), width=1.6)
        _bracket(cv, ctx, ax, fx, colour("new"), label, bracket_y, lane.label_dy)
        cv.stroke(rough.line(rng, (fx, bracket_y + 6), (fx, axis_y), 0.3, 1), FAINT, width=1.0)
    _dots(cv, xs, times, lane)
    gaps = req.gaps
    if len(times) > 1 and req.tpot is not None:
        # the rest of the wait: every token after the first, its mean gap (TPOT) in words
        x0, x1 = xs(times[0]), xs(times[-1])
        per = (f"之后平均每字 {fmt(req.tpot)}" if zh else f"then {fmt(req.tpot)} per token")
        words_y = bracket_y - lane.label_dy
        if cv.layout.try_place(per, x=(x0 + x1) / 2, cy=words_y, role="label",
                               size=SMALL_SIZE + 0.5, floor=None,
                               alts=[(x1 - 40, words_y)]) is not None:
            brng = cv.rng(f"{lane.tag}bracket-rest")
            cv.stroke(rough.line(brng, (x0 + 4, bracket_y), (x1, bracket_y), 0.4, 2)
                      + rough.line(brng, (x1, bracket_y - 6), (x1, bracket_y + 6), 0.2, 1),
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
                cv.rng(f"{lane.tag}gap-{k}"),
                [
                    (xs(times[k]) + 3, axis_y + 8),
                    (mid, axis_y + 15),
                    (xs(times[k + 1]) - 3, axis_y + 8),
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
            label, x=mid, cy=axis_y + lane.gap_dy, role="label", size=SMALL_SIZE, floor=None
        )
        if placed is not None:
            last_end = placed.box.x1
    ttft_v = fmt(times[0] - arrival) if times else "?"
    if zh:
        desc = (
            f"时间轴：{rid} 在 {fmt(arrival)} 到达，"
            f"{f'提示词分 {len(read)} 步读完，' if len(read) > 1 else ''}"
            f"首个 token用了 {ttft_v} {unit_word}，"
            f"之后 {len(gaps)} 个间隔{('各 ' + fmt(max(gaps))) if gaps and max(gaps) == min(gaps) else ''}"
            f"{('，平均每字 ' + fmt(req.tpot)) if req.tpot is not None and gaps else ''}。"
        )
        desc += f"最长一个 {fmt(gaps[longest])}。" if stall else ""
    else:
        desc = (
            f"Clock: {rid} arrives at {fmt(arrival)}, "
            f"{f'its prompt is read over {len(read)} steps, ' if len(read) > 1 else ''}"
            f"its first token takes {ttft_v} {unit_word}, then {len(gaps)} gaps between tokens"
            f"{(', ' + fmt(req.tpot) + ' per token on average') if req.tpot is not None and gaps else ''}."
        )
        desc += f" The longest is {fmt(gaps[longest])}." if stall else ""
    return desc


def _bracket(cv: Canvas, ctx: SceneContext, x0: float, x1: float, ink: str, label: str,
             y: float = BRACKET_Y, label_dy: float = 14.0) -> None:
    """A bracket at height `y` above the axis from `x0` to `x1`, labelled over its middle."""
    rng = cv.rng(f"bracket-{label}")
    cv.stroke(
        rough.line(rng, (x0, y), (x1, y), 0.4, 2)
        + rough.line(rng, (x0, y - 6), (x0, y + 6), 0.2, 1)
        + rough.line(rng, (x1, y - 6), (x1, y + 6), 0.2, 1),
        ink,
        width=2.0,
    )
    cv.layout.place(
        label,
        x=(x0 + x1) / 2,
        cy=y - label_dy,
        role="label",
        size=SMALL_SIZE + 0.5,
        floor=None,
        alts=[(max(x0, x1) + 40, y - label_dy)],
    )
