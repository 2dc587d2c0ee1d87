"""slo: goodput under service-level objectives, one lane per request on a shared time axis.

Each lane shows the request's arrival, its output tokens (the first orange, the rest green) and
two deadlines: the TTFT line (arrival + the TTFT objective, orange) and the TPOT line (first token
+ the TPOT objective per later token, green). A token past its line is ringed; the right column
says meets (check) or misses (cross, with what was missed). Below: request throughput against
goodput. The objectives come from the trace's `figures` (`slo_ttft`, `slo_tpot`); the verdicts,
throughput and goodput from the trace itself.

throughput: the same lanes with no targets and no verdicts, every request counted: the run's
request and token throughput, what a throughput figure alone tells (issue 21.2: a metric concept
is one run measured two ways; beside an slo panel of the same run, on the same time scale).
"""

from __future__ import annotations

from pipeline.artifacts.trace import RequestView, TraceView
from pipeline.draw import rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.palette import INK
from pipeline.errors import InputError
from pipeline.fields.serving.scenes.common import (
    KEY_CY,
    SCENE_X0,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    cast_state,
    fmt,
)
from pipeline.fields.serving.scenes.lanes import (
    TRACK_X0,
    TimeScale,
    check,
    cross,
    dot,
    lane_bean,
    lane_cy,
    lane_ids,
    tick,
    track,
)

TRACK_X1 = 296.0
VERDICT_X = 312.0
MISSED_X = 324.0
SUMMARY_CY = 190.0
RING_R = 7.5
HEADROOM = 1.03
TEXT = {
    "zh": {"slo": "目标", "ttft": "首字 {v}", "tpot": "每字 {v} {u}", "ttft_miss": "首字",
           "tpot_miss": "每字", "both_miss": "都超",
           "sum": "请求吞吐 {rt} 个/{u}，有效吞吐 {gp} 个/{u}（{good}/{n} 达标）",
           "count": "{n} 个请求、{tok} 个 token 用了 {d} {u}",
           "rates": "吞吐 {ot} token/{u}，请求吞吐 {rt} 个/{u}",
           "ms": "毫秒", "step": "步", "late": "超时的字"},
    "en": {"slo": "SLO", "ttft": "TTFT {v}", "tpot": "TPOT {v} {u}", "ttft_miss": "TTFT",
           "tpot_miss": "TPOT", "both_miss": "both",
           "sum": "{rt} requests/{u}, goodput {gp}/{u} ({good} of {n} meet)",
           "count": "{n} requests, {tok} tokens in {d} {u}",
           "rates": "throughput {ot} tokens/{u}, {rt} requests/{u}",
           "ms": "ms", "step": "step", "late": "late token"},
}


def read_slo(trace: TraceView) -> tuple[float, float]:
    """The TTFT and TPOT objectives the trace was judged against (its `figures`)."""
    fig = trace.figures
    missing = [k for k in ("slo_ttft", "slo_tpot") if k not in fig]
    if missing:
        scenario = trace.scenario.id if trace.scenario.id is not None else "?"
        raise InputError(
            f"slo scene: trace of scenario {scenario!r} has no figures {missing}; "
            "draw it from the goodput scenario (sim.presets.scenarios.run_preset('goodput/...'))"
        )
    return float(fig["slo_ttft"]), float(fig["slo_tpot"])


def tpot_deadline(req: RequestView, slo_tpot: float) -> float | None:
    """When the last token is due if every token after the first keeps the TPOT objective."""
    times = req.token_times
    if len(times) < 2:
        return None
    return times[0] + slo_tpot * (len(times) - 1)


def missed(req: RequestView, slo_ttft: float, slo_tpot: float) -> tuple[bool, bool]:
    """(TTFT missed, TPOT missed), read off the same numbers the simulator judged."""
    ttft_miss = req.ttft is None or req.ttft > slo_ttft + 1e-9
    tpot_miss = req.tpot is not None and req.tpot > slo_tpot + 1e-9
    return ttft_miss, tpot_miss


def _two(v: float | None) -> str:
    return "?" if v is None else f"{v:.2f}"


def _scale(trace: TraceView, slo_ttft: float, slo_tpot: float) -> TimeScale:
    """Time onto the lanes: to the last token or deadline (both readings of a run alike)."""
    reqs = [trace.requests[r] for r in lane_ids(trace)]
    ends = [t for r in reqs for t in r.token_times] + [r.arrival + slo_ttft for r in reqs]
    ends += [d for r in reqs if (d := tpot_deadline(r, slo_tpot)) is not None]
    return TimeScale(max(ends) * HEADROOM, TRACK_X0, TRACK_X1)


def _lane(cv: Canvas, ctx: SceneContext, i: int, rid: str, req: RequestView,
          scale: TimeScale) -> float:
    """A request's lane: its bean, guide line and arrival mark; returns its y."""
    cy = lane_cy(i)
    lane_bean(cv, ctx, i, rid, cy, cast_state(req.arrival))
    track(cv, f"track-{rid}", scale.x(req.arrival), TRACK_X1, cy)
    ax = scale.x(req.arrival)
    cv.stroke(rough.line(cv.rng(f"arr-{rid}"), (ax, cy - 6), (ax, cy + 6), 0.2, 1), INK,
              width=1.4)
    return cy


def _dots(cv: Canvas, rid: str, req: RequestView, scale: TimeScale, cy: float) -> None:
    """The request's output tokens: the first orange, the rest green."""
    with cv.batch():
        for k, t in enumerate(req.token_times):
            dot(cv, f"tok-{rid}-{k}", scale.x(t), cy, "new" if k == 0 else "running")


def draw_throughput(cv: Canvas, ctx: SceneContext) -> SceneResult:
    """The run counted as throughput: every request's tokens, no targets, no verdicts."""
    trace = ctx.trace
    assert trace is not None
    words = TEXT[ctx.lang]
    unit = words["ms"] if trace.cost.time_unit == "ms" else words["step"]
    fig = trace.figures
    if "slo_ttft" in fig and "slo_tpot" in fig:  # the slo panel's time scale, so both match
        scale = _scale(trace, *read_slo(trace))
    else:
        ends = [t for r in trace.requests.values() for t in r.token_times]
        scale = TimeScale((max(ends) if ends else 1.0) * HEADROOM, TRACK_X0, TRACK_X1)
    for i, rid in enumerate(lane_ids(trace)):
        req = trace.requests[rid]
        _dots(cv, rid, req, scale, _lane(cv, ctx, i, rid, req, scale))
    summary = trace.summary
    tokens = sum(r.output_tokens for r in trace.requests.values())
    count = words["count"].format(n=len(trace.requests), tok=tokens,
                                  d=fmt(summary.duration or 0.0), u=unit)
    rates = words["rates"].format(ot=_two(summary.output_throughput),
                                  rt=_two(summary.request_throughput), u=unit)
    cv.layout.place(count, x=SCENE_X0, cy=KEY_CY, role="label", size=SMALL_SIZE,
                    anchor="start", floor=None, max_width=300)
    cv.layout.place(rates, x=SCENE_X0, cy=SUMMARY_CY, role="label", size=SMALL_SIZE + 0.5,
                    anchor="start", floor=None, max_width=368)
    sep = "；" if ctx.lang == "zh" else "; "
    return SceneResult(f"{count}{sep}{rates}{'。' if ctx.lang == 'zh' else '.'}", True)


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    words = TEXT[ctx.lang]
    slo_ttft, slo_tpot = read_slo(trace)
    unit = words["ms"] if trace.cost.time_unit == "ms" else words["step"]
    rids = lane_ids(trace)
    reqs = [trace.requests[r] for r in rids]
    scale = _scale(trace, slo_ttft, slo_tpot)

    # the objectives, as a key: each word after the mark that draws it
    x = SCENE_X0
    placed = cv.layout.place(words["slo"], x=x, cy=KEY_CY, role="label", size=SMALL_SIZE,
                             anchor="start", floor=None)
    for kind, text in (("new", words["ttft"].format(v=fmt(slo_ttft))),
                       ("running", words["tpot"].format(v=fmt(slo_tpot), u=unit))):
        x = placed.box.x1 + 9
        tick(cv, f"key-{kind}", x, KEY_CY, kind, half=6.5)
        placed = cv.layout.place(text, x=x + 5, cy=KEY_CY, role="label", size=SMALL_SIZE,
                                 anchor="start", floor=None)

    if any(any(missed(r, slo_ttft, slo_tpot)) for r in reqs):
        # the ring a late token gets, in the key too (reader sf8 could not tell what it meant)
        x = placed.box.x1 + 10 + RING_R
        words_at = cv.layout.try_place(words["late"], x=x + RING_R + 4, cy=KEY_CY, role="label",
                                       size=SMALL_SIZE, anchor="start", floor=None)
        if words_at is not None:
            cv.stroke(rough.ellipse(cv.rng("key-late"), x, KEY_CY, RING_R * 0.8, RING_R * 0.8,
                                    0.5, 1), INK, width=1.3)

    verdicts: list[str] = []
    for i, (rid, req) in enumerate(zip(rids, reqs, strict=True)):
        cy = _lane(cv, ctx, i, rid, req, scale)
        ttft_miss, tpot_miss = missed(req, slo_ttft, slo_tpot)
        ok = req.meets_slo if req.meets_slo is not None else not (ttft_miss or tpot_miss)
        tick(cv, f"ttft-line-{rid}", scale.x(req.arrival + slo_ttft), cy, "new")
        due = tpot_deadline(req, slo_tpot)
        if due is not None:
            tick(cv, f"tpot-line-{rid}", scale.x(due), cy, "running")
        _dots(cv, rid, req, scale, cy)
        times = req.token_times
        late = ([0] if ttft_miss and times else []) + ([len(times) - 1] if tpot_miss else [])
        for k in late:
            cv.stroke(rough.ellipse(cv.rng(f"late-{rid}-{k}"), scale.x(times[k]), cy, RING_R,
                                    RING_R, 0.5, 1), INK, width=1.3)
        if ok:
            check(cv, f"ok-{rid}", VERDICT_X, cy)
            verdicts.append(f"{rid} ✓")
        else:
            cross(cv, f"miss-{rid}", VERDICT_X, cy)
            what = ("both_miss" if ttft_miss and tpot_miss
                    else "ttft_miss" if ttft_miss else "tpot_miss")
            cv.layout.place(words[what], x=MISSED_X, cy=cy, role="label", size=SMALL_SIZE,
                            anchor="start", floor=None)
            verdicts.append(f"{rid} ✗ {words[what]}")

    summary = trace.summary
    good = summary.good_requests if summary.good_requests is not None else sum(
        1 for r in reqs if r.meets_slo)
    line = words["sum"].format(rt=_two(summary.request_throughput), gp=_two(summary.goodput),
                               u=unit, good=good, n=len(trace.requests))
    cv.layout.place(line, x=SCENE_X0, cy=SUMMARY_CY, role="label", size=SMALL_SIZE + 0.5,
                    anchor="start", floor=None, max_width=368)
    if ctx.lang == "zh":
        desc = (f"服务目标：首字 {fmt(slo_ttft)} {unit} 内、之后每字 {fmt(slo_tpot)} {unit}；"
                f"{'，'.join(verdicts)}；{line}。")
    else:
        desc = (f"SLOs: first token within {fmt(slo_ttft)} {unit}, then {fmt(slo_tpot)} {unit} "
                f"per token; {', '.join(verdicts)}; {line}.")
    return SceneResult(desc, True)
