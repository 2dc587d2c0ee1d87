"""disagg: two GPUs on one time axis, each step a box as long as it took (orange when it carries a
prompt, green when it only decodes), the newcomer's TTFT bracketed, each request's KV transfer
drawn as an arrow from the prefill GPU to the decode GPU, and an old request's token clock below
with the gaps between its tokens written out.

Colocated (`vllm` with 2 instances) D's prompt runs on an instance that also decodes: that
request's tokens stall (one long gap). Disaggregated (`disagg`) prompts run on the prefill GPU,
KV travels (`requests[].transfer`), and the decode GPU keeps an even pace. Lanes, boxes, arrows
and every number come from the trace's steps (`instance`) and requests.
"""

from __future__ import annotations

from pipeline.artifacts.trace import StepView, TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.key import draw_key
from pipeline.draw.palette import FAINT, INK, TINT_OPACITY, colour
from pipeline.fields.serving.scenes.common import (
    SCENE_X1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    fmt,
    partner_trace,
    phase,
)

GPU_X = 42.0
T_X0, T_X1 = 98.0, SCENE_X1 - 4
LANE_CY = (70.0, 142.0)
CELL_H = 24.0
BRACKET_Y = 108.0
CLOCK_Y = 172.0
GAP_CY = 190.0
MAX_GAP_LABELS = 6
SPIKE = 1.5  # a gap this many times the median one is a stall
WORDS = {
    "zh": {"gpu": "GPU", "prefill": "预填", "decode": "解码", "ttft": "{rid} 首字 {v} 毫秒",
           "kv": "{rid} 的 KV {v} 毫秒",
           "stall": "卡住"},
    "en": {"gpu": "GPU", "prefill": "prefill", "decode": "decode", "ttft": "{rid} TTFT {v} ms",
           "kv": "{rid}'s KV {v} ms",
           "stall": "stall"},
}


def lanes(trace: TraceView) -> list[str | None]:
    """The instances in drawing order (prefill pool first), at most two."""
    seen: list[str | None] = []
    for s in trace.steps:
        if s.instance not in seen:
            seen.append(s.instance)
    seen.sort(key=lambda i: (0 if (i or "").startswith("prefill") else 1, str(i)))
    return seen[:2]


def clock_request(ctx: SceneContext, trace: TraceView, newcomer: str) -> str:
    """Whose tokens the clock shows: the first focus id that is not the newcomer, else the old
    request with the longest gap between two tokens."""
    for rid in ctx.focus:
        if rid in trace.requests and rid != newcomer:
            return rid

    def worst(rid: str) -> float:
        t = trace.requests[rid].token_times
        return max((b - a for a, b in zip(t, t[1:], strict=False)), default=0.0)

    old = [r for r in trace.requests if r != newcomer] or list(trace.requests)
    return max(old, key=lambda r: (worst(r), r))


def newcomer_of(trace: TraceView) -> str:
    return max(trace.requests, key=lambda r: (trace.requests[r].arrival, r))


def _has_prompt(trace: TraceView, step: StepView) -> bool:
    return any(phase(trace, rid, step) == "prefill" for rid in step.scheduled)


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    words = WORDS[ctx.lang]
    draw_key(cv, ctx, ["new", "running"], x0=T_X0)
    order = lanes(trace)
    # one clock for both panels (reader sf7: equal TTFT brackets drawn at different lengths)
    runs = [trace, *([partner] if (partner := partner_trace(ctx)) is not None
                     and partner.cost.time_unit == trace.cost.time_unit else [])]
    span = max((s.end for run in runs for s in run.steps), default=1.0) * 1.02 or 1.0

    def xs(t: float) -> float:
        return T_X0 + t / span * (T_X1 - T_X0)

    split = any((i or "").startswith("prefill") for i in order)
    for k, inst in enumerate(order):
        cy = LANE_CY[k]
        name = words["gpu"]
        if split:
            name = words["prefill"] if (inst or "").startswith("prefill") else words["decode"]
        cast.gpu(cv, GPU_X, cy, busy=True, eid=f"gpu-{k}", label=name)
        rng = cv.rng(f"lane-{k}")
        cv.stroke(rough.line(rng, (T_X0 - 4, cy + CELL_H / 2 + 2), (T_X1, cy + CELL_H / 2 + 2),
                             0.4, 1), FAINT, width=1.0)
        with cv.batch():
            for step in trace.steps:
                if step.instance != inst:
                    continue
                x0, x1 = xs(step.start), xs(step.end)
                kind = "new" if _has_prompt(trace, step) else "running"
                poly = rough.rect_poly(x0 + 0.8, cy - CELL_H / 2, x1 - x0 - 1.6, CELL_H)
                cv.shape(rough.jitter_poly(cv.rng(f"cell-{step.index}"), poly, 0.5),
                         fill=colour(kind), opacity=TINT_OPACITY + 0.1, colour=colour(kind),
                         width=1.3)
        for step in trace.steps:
            if step.instance == inst:
                who = "".join(step.scheduled)
                cv.layout.try_place(who, x=(xs(step.start) + xs(step.end)) / 2, cy=cy,
                                    role="label", size=SMALL_SIZE, floor=None,
                                    max_width=max(xs(step.end) - xs(step.start) - 2, 1.0),
                                    fill=INK)

    d = newcomer_of(trace)
    dreq = trace.requests[d]
    rng = cv.rng("marks")
    if dreq.first_token is not None:
        a, f = xs(dreq.arrival), xs(dreq.first_token)
        cv.stroke(rough.line(rng, (a, BRACKET_Y), (f, BRACKET_Y), 0.4, 1)
                  + rough.line(rng, (a, BRACKET_Y - 5), (a, BRACKET_Y + 5), 0.2, 1)
                  + rough.line(rng, (f, BRACKET_Y - 5), (f, BRACKET_Y + 5), 0.2, 1),
                  colour("new"), width=2.0)
        ttft = dreq.first_token - dreq.arrival
        cv.layout.place(words["ttft"].format(rid=d, v=fmt(ttft)), x=(a + f) / 2,
                        cy=BRACKET_Y - 12, role="label", size=SMALL_SIZE, floor=None,
                        alts=[(f - 4, BRACKET_Y + 12)])
    if len(order) == 2:
        top_y, bottom_y = LANE_CY[0] + CELL_H / 2 + 3, LANE_CY[1] - CELL_H / 2 - 3
        if dreq.transfer is not None:  # the newcomer's KV on its way (the others' likewise)
            t0, t1 = dreq.transfer
            cv.stroke(rough.arrow(cv.rng(f"kv-{d}"), (xs(t0), top_y), (xs(t1), bottom_y), 0.3,
                                  0, 6), width=2.0)
            cv.layout.place(words["kv"].format(rid=d, v=fmt(t1 - t0)), x=xs(t1) + 8,
                            cy=(top_y + bottom_y) / 2 + 4, role="label", size=SMALL_SIZE,
                            anchor="start", floor=None, alts=[(xs(t0) - 8, BRACKET_Y + 12)])

    rid = clock_request(ctx, trace, d)
    times = list(trace.requests[rid].token_times)
    cv.stroke(rough.arrow(rng, (T_X0 - 4, CLOCK_Y), (T_X1, CLOCK_Y), 0.4, 0, 6), width=1.3)
    cv.layout.place(rid, x=T_X0 - 10, cy=CLOCK_Y, role="label", size=SMALL_SIZE + 1,
                    anchor="end", floor=None)
    gaps = trace.requests[rid].gaps
    worst = max(range(len(gaps)), key=lambda k: (gaps[k], -k)) if gaps else -1
    typical = sorted(gaps)[len(gaps) // 2] if gaps else 0.0
    spike = worst if gaps and gaps[worst] > SPIKE * typical else -1  # a stall, not just a pace
    for t in times:
        cv.fill(rough.smooth_closed(rough.ellipse_points(xs(t), CLOCK_Y, 3.8, 3.8, 8)),
                colour("running"), 0.85)
    for k, g in enumerate(gaps):
        if len(gaps) > MAX_GAP_LABELS and k not in (0, worst, len(gaps) - 1):
            continue
        xa, xb = xs(times[k]), xs(times[k + 1])
        if xb - xa < 6:
            continue
        mid = (xa + xb) / 2
        cv.stroke(rough.curve(cv.rng(f"gap-{k}"), [(xa + 3, CLOCK_Y + 5), (mid, CLOCK_Y + 11),
                                                   (xb - 3, CLOCK_Y + 5)], 0.2, 1),
                  INK if k == spike else colour("running"), width=1.6 if k == spike else 1.0)
        label = f"{fmt(g)} {words['stall']}" if k == spike else fmt(g)
        if cv.layout.try_place(label, x=mid, cy=GAP_CY, role="label", size=SMALL_SIZE,
                               floor=None) is None and k == spike:
            cv.layout.try_place(fmt(g), x=mid, cy=GAP_CY, role="label", size=SMALL_SIZE,
                                floor=None)
    if spike >= 0:
        poly = rough.rect_poly(xs(times[spike]), CLOCK_Y - 2,
                               xs(times[spike + 1]) - xs(times[spike]), 4)
        cv.fill(poly_d(poly), INK, 0.12)
    longest = fmt(gaps[worst]) if gaps else "?"
    ttft_v = fmt(dreq.ttft) if dreq.ttft is not None else "?"
    if ctx.lang == "zh":
        desc = (f"两张 GPU 的时间线（毫秒）：{'预填和解码分开' if split else '各自既预填又解码'}；"
                f"{d} 的首字时间 {ttft_v} 毫秒；{rid} 两个 token之间最长等 {longest} 毫秒。")
    else:
        desc = (f"Two GPUs on one clock (ms), {'prefill and decode split' if split else 'each both prefilling and decoding'}; "
                f"{d}'s TTFT is {ttft_v} ms; {rid}'s longest gap between tokens is {longest} ms.")
    return SceneResult(desc, True)
