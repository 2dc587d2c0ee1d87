"""itl_pool: every gap between two tokens of the run, pooled over all requests and sorted.

What a percentile is, drawn: the run's inter-token gaps (ITL, as `vllm bench serve` pools them)
stand in a row from shortest to longest, each bar named by the request it came from; the mean
is a dashed line across them, and P50 and P99 are read off the row at 50% and 99% of the way
along (the simulator's linear interpolation, so the marks sit where its numbers come from). The
stall an average hides is the tall bars at the right end, which P99 lands on. The mean and the
percentiles are the trace's summary; the gaps are its requests' token times.
"""

from __future__ import annotations

from pipeline.artifacts.trace import TraceView
from pipeline.draw import rough
from pipeline.draw.canvas import Canvas
from pipeline.draw.palette import INK, TINT_OPACITY, colour
from pipeline.fields.serving.scenes.common import (
    KEY_CY,
    SCENE_TOP,
    SCENE_X0,
    SCENE_X1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    fmt,
)

PLOT_X0 = SCENE_X0 + 6
PLOT_X1 = SCENE_X1 - 6
BASE_Y = 174.0  # the bars' baseline
PLOT_TOP = SCENE_TOP + 30  # the tallest bar's top: room above it for the P99 mark
BAR_FILL = 0.7
MARK_LEN = 13.0
QUANTILES = (50, 99)
TEXT = {
    "zh": {"key": "{n} 个出字间隔（{u}），从短到长", "mean": "平均 {v}",
           "ms": "毫秒", "step": "步"},
    "en": {"key": "all {n} token gaps ({u}), shortest first", "mean": "mean {v}", "ms": "ms",
           "step": "steps"},
}


def pooled_gaps(trace: TraceView) -> list[tuple[float, str]]:
    """Every (gap, request id) between consecutive tokens of a request, shortest first (ties in
    the trace's request order, then token order)."""
    gaps = [
        (g, order, k, rid)
        for order, (rid, req) in enumerate(trace.requests.items())
        for k, g in enumerate(req.gaps)
    ]
    return [(g, rid) for g, _, _, rid in sorted(gaps)]


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    words = TEXT[ctx.lang]
    unit = words["ms"] if trace.cost.time_unit == "ms" else words["step"]
    gaps = pooled_gaps(trace)
    itl = trace.summary.itl
    n = len(gaps)
    cv.layout.place(words["key"].format(n=n, u=unit), x=SCENE_X0, cy=KEY_CY, role="label",
                    size=SMALL_SIZE, anchor="start", floor=None, max_width=300)
    rng = cv.rng("axis")
    cv.stroke(rough.line(rng, (PLOT_X0 - 4, BASE_Y), (PLOT_X1 + 4, BASE_Y), 0.5, 2), width=1.4)
    if not gaps or itl is None:
        return SceneResult(words["key"].format(n=0, u=unit), True)
    top = max(g for g, _ in gaps) or 1.0
    scale = (BASE_Y - PLOT_TOP) / top
    pitch = (PLOT_X1 - PLOT_X0) / n
    bar_w = max(pitch * BAR_FILL, 1.0)

    def centre(pos: float) -> float:
        return PLOT_X0 + (pos + 0.5) * pitch

    with cv.batch():
        for k, (g, _) in enumerate(gaps):
            h = max(g * scale, 1.0)
            cv.shape(rough.jitter_poly(cv.rng(f"gap-{k}"),
                                       rough.rect_poly(centre(k) - bar_w / 2, BASE_Y - h, bar_w, h),
                                       0.5),
                     fill=colour("running"), opacity=TINT_OPACITY + 0.1, colour=colour("running"),
                     width=1.1)
    if pitch >= 9:  # each bar named by its request, where a letter fits under it
        cv.layout.place_row([(rid, centre(k)) for k, (_, rid) in enumerate(gaps)],
                            cy=BASE_Y + 10, role="axis", size=SMALL_SIZE)

    # the mean: one dashed line across the row
    mean_y = BASE_Y - itl.mean * scale
    cv.stroke(rough.line(cv.rng("mean"), (PLOT_X0 - 4, mean_y), (PLOT_X1 + 4, mean_y), 0.3, 1),
              INK, width=1.3, dashed=True)
    mean_label = words["mean"].format(v=fmt(itl.mean))
    cv.layout.place(mean_label, x=PLOT_X0, cy=mean_y - 10, role="label", size=SMALL_SIZE,
                    anchor="start", floor=None,
                    alts=[(PLOT_X0, mean_y + 10), (PLOT_X0 + pitch * n * 0.3, mean_y - 10)])

    # each percentile: an arrow down onto the row at q% of the way along, and its value
    values = {50: itl.median, 99: itl.p99}
    for q in QUANTILES:
        pos = (n - 1) * q / 100
        x = centre(pos)
        y_top = BASE_Y - values[q] * scale - 3
        cv.stroke(rough.arrow(cv.rng(f"p{q}"), (x, y_top - MARK_LEN), (x, y_top), 0.3, 0, 5),
                  INK, width=1.5)
        cv.layout.place(f"P{q} {fmt(values[q])}", x=x, cy=y_top - MARK_LEN - 9, role="label",
                        size=SMALL_SIZE, floor=None,
                        alts=[(x - 30, y_top - MARK_LEN - 9), (x + 30, y_top - MARK_LEN - 9)])

    longest = gaps[-1][0]
    owners = sorted({rid for g, rid in gaps if g == longest}, key=list(trace.requests).index)
    if ctx.lang == "zh":
        desc = (f"出字间隔池：{len(trace.requests)} 个请求的 {n} 个间隔从短到长排开；平均 "
                f"{fmt(itl.mean)} {unit}，P50 {fmt(itl.median)}，P90 {fmt(itl.p90)}，P99 "
                f"{fmt(itl.p99)}；最长的 {fmt(longest)} 来自 {'、'.join(owners)}。")
    else:
        desc = (f"ITL pool: the {n} gaps of {len(trace.requests)} requests, shortest first; mean "
                f"{fmt(itl.mean)} {unit}, P50 {fmt(itl.median)}, P90 {fmt(itl.p90)}, P99 "
                f"{fmt(itl.p99)}; the longest, {fmt(longest)}, are {', '.join(owners)}'s.")
    return SceneResult(desc, True)
