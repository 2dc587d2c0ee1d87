"""roofline: why decode is memory-bound, told as one decode step on a time axis.

Two bars on the same axis: the whole step, split into reading the weights once at the GPU's peak
bandwidth (the textbook figure an article quotes) and the rest (the bandwidth a real step reaches,
the KV reads, fixed per-step costs), and its arithmetic (a sliver: the cost model's compute part).
The card's two panels share one axis (the longer step's), so batch 1 beside batch 32 shows the
step barely grows while tokens/s multiply. Every number comes from the trace's `figures`
(sim.presets.scenarios.arithmetic_figures).
"""

from __future__ import annotations

import math

from pipeline.artifacts.trace import TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.layout import family_for
from pipeline.draw.palette import FAINT, TINT_OPACITY, colour
from pipeline.errors import InputError
from pipeline.fields.serving.scenes.common import SCENE_X0, SceneContext, SceneResult, partner_trace
from pipeline.fonts import measure

AXIS_X0, AXIS_X1 = 34.0, 360.0
HEAD_CY = 27.0
RIDER_CY = 64.0
READ_Y, READ_H = 90.0, 30.0
CALC_Y, CALC_H = 126.0, 14.0
AXIS_Y = 150.0
RATE_CY = 186.0
SEGMENT_SIZE = 15.0
MIN_SLIVER = 3.0  # px: the batch-1 arithmetic is too short to see at scale; still show it
MAX_RIDERS = 3
FIGURE_KEYS = ("batch", "decode_step_ms", "decode_tokens_per_s", "decode_compute_ms",
               "decode_weights_peak_ms")
HEADROOM = 1.08  # the axis ends a little past the step
NICE = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)
TICK_OF = {1.0: 0.5, 2.0: 0.5, 3.0: 1.0, 4.0: 1.0, 5.0: 1.0, 6.0: 2.0, 8.0: 2.0, 10.0: 2.0}
LABEL_PAD = 10.0  # px of bar left around a segment's label
TEXT = {
    "zh": {"head": "批里 {n} 个请求：解码一步 {v} 毫秒", "weights": "满速读权重 {v}",
           "weights_short": "读权重 {v}", "rest": "多出 {v}", "calc": "算 {v} 毫秒",
           "rate": "一步出 {n} 个字，每秒 {r} 个", "unit": "毫秒"},
    "en": {"head": "one decode step, batch of {n}: {v} ms", "weights": "weights at peak {v}",
           "weights_short": "weights {v}", "rest": "rest {v}", "calc": "math {v} ms",
           "rate": "{n} {tok} per step, {r} tokens/s", "unit": "ms"},
}


def _ms(v: float) -> str:
    """Milliseconds with two significant digits below 1 (0.03), one decimal above."""
    if v < 0.095:
        return f"{v:.2f}"
    return f"{v:.1f}"


def _nice_axis(v: float) -> tuple[float, float]:
    """The smallest 1-2-3-4-5-6-8-10 x 10^k at or above v, and its tick spacing."""
    k = math.floor(math.log10(v)) if v > 0 else 0
    for m in NICE:
        if m * 10**k >= v:
            return m * 10**k, TICK_OF[m] * 10**k
    return 10.0 ** (k + 1), 2.0 * 10**k


def read_figures(trace: TraceView) -> tuple[int, float, float, float, float]:
    """(batch, decode step ms, tokens/s, arithmetic ms of that step, weights read at peak ms)
    from the trace's `figures`, which the simulator computes with the cost model that timed the
    steps."""
    fig = trace.figures
    missing = [k for k in FIGURE_KEYS if k not in fig]
    if missing:
        scenario = trace.scenario.id if trace.scenario.id is not None else "?"
        raise InputError(
            f"roofline scene: trace of scenario {scenario!r} has no figures {missing}; "
            "draw it from the arithmetic scenario (sim.presets.scenarios.run_preset('arithmetic/...'))"
        )
    return (
        int(fig["batch"]),
        float(fig["decode_step_ms"]),
        float(fig["decode_tokens_per_s"]),
        float(fig["decode_compute_ms"]),
        float(fig["decode_weights_peak_ms"]),
    )


def _segment_label(cv: Canvas, ctx: SceneContext, options: list[str], x0: float, width: float,
                   cy: float) -> None:
    """The first of `options` that fits inside a bar segment, centred in it; none if none fits
    (the segment is then read off the axis and the head's total)."""
    for text in options:
        if measure(text, family_for(text, ctx.lang), SEGMENT_SIZE) + LABEL_PAD <= width:
            cv.layout.place(text, x=x0 + width / 2, cy=cy, role="label", size=SEGMENT_SIZE,
                            floor=None)
            return


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    assert ctx.trace is not None
    words = TEXT[ctx.lang]
    batch, step_ms, rate, calc_ms, weights_ms = read_figures(ctx.trace)
    partner = partner_trace(ctx)
    longest = max(step_ms, read_figures(partner)[1]) if partner is not None else step_ms
    top, tick = _nice_axis(longest * HEADROOM)
    scale = (AXIS_X1 - AXIS_X0) / top

    cv.layout.place(words["head"].format(n=batch, v=_ms(step_ms)), x=SCENE_X0, cy=HEAD_CY, role="label",
                    size=15, anchor="start", floor=None)
    letters = (list(ctx.focus) + ["A", "B", "C"])[:MAX_RIDERS]
    shown = min(batch, MAX_RIDERS)
    for k in range(shown):
        cast.bean(cv, letters[k], AXIS_X0 + 16 + k * 30, RIDER_CY, "running", eid=f"rider-{k}")
    if batch > shown:
        cv.layout.place(f"× {batch}", x=AXIS_X0 + 6 + shown * 30, cy=RIDER_CY + 4, role="label",
                        size=18, anchor="start", floor=None)

    # the step: reading the weights at peak bandwidth (hatched), then the rest of the step
    # (sparser hatching, dashed): what a real step adds to the textbook figure
    weights_w = min(weights_ms, step_ms) * scale
    rest_w = max(0.0, step_ms - weights_ms) * scale
    poly = rough.rect_poly(AXIS_X0, READ_Y, weights_w, READ_H)
    cv.fill(poly_d(poly), "var(--paper)")
    cv.stroke(rough.hachure(cv.rng("read-hatch"), poly, 7), FAINT, width=1.0)
    cv.stroke(rough.rect(cv.rng("read"), AXIS_X0, READ_Y, weights_w, READ_H, 0.6), width=1.7)
    _segment_label(cv, ctx, [words["weights"].format(v=_ms(weights_ms)),
                             words["weights_short"].format(v=_ms(weights_ms))],
                   AXIS_X0, weights_w, READ_Y + READ_H / 2)
    if rest_w > 0:
        rest_x = AXIS_X0 + weights_w
        rest = rough.rect_poly(rest_x, READ_Y, rest_w, READ_H)
        cv.fill(poly_d(rest), "var(--paper)")
        cv.stroke(rough.hachure(cv.rng("rest-hatch"), rest, 14), FAINT, width=0.8)
        cv.stroke(rough.rect(cv.rng("rest"), rest_x, READ_Y, rest_w, READ_H, 0.6), width=1.3,
                  dashed=True)
        _segment_label(cv, ctx, [words["rest"].format(v=_ms(step_ms - weights_ms))], rest_x,
                       rest_w, READ_Y + READ_H / 2)
    calc_w = max(MIN_SLIVER, calc_ms * scale)
    cv.fill(poly_d(rough.rect_poly(AXIS_X0, CALC_Y, calc_w, CALC_H)), colour("running"),
            TINT_OPACITY + 0.2)
    cv.stroke(rough.rect(cv.rng("calc"), AXIS_X0, CALC_Y, calc_w, CALC_H, 0.3),
              colour("running"), width=1.5)
    cv.layout.place(words["calc"].format(v=_ms(calc_ms)), x=AXIS_X0 + calc_w + 8,
                    cy=CALC_Y + CALC_H / 2, role="label", size=15, anchor="start", floor=None)

    # the shared time axis
    rng = cv.rng("axis")
    marks = [i * tick for i in range(int(round(top / tick)) + 1)]
    axis = rough.line(rng, (AXIS_X0, AXIS_Y), (AXIS_X1, AXIS_Y), 0.4, 1)
    for m in marks:
        x = AXIS_X0 + m * scale
        axis += rough.line(rng, (x, AXIS_Y - 4), (x, AXIS_Y + 4), 0.2, 1)
    cv.stroke(axis, width=1.3)
    labels = [(f"{m:g}", AXIS_X0 + m * scale) for m in marks[:-1]]
    labels.append((f"{marks[-1]:g} {words['unit']}", AXIS_X1 - 10))
    cv.layout.place_row(labels, cy=AXIS_Y + 13, role="axis", size=14)

    rate_text = words["rate"].format(n=batch, tok="token" if batch == 1 else "tokens",
                                     r=f"{rate:,.0f}" if ctx.lang == "en" else f"{rate:.0f}")
    cv.layout.place(rate_text, x=SCENE_X0, cy=RATE_CY, role="label", size=17, anchor="start",
                    floor=None)
    if ctx.lang == "zh":
        desc = (f"批里 {batch} 个请求的一步解码用时 {_ms(step_ms)} 毫秒，几乎全在读显存："
                f"按峰值带宽读一遍权重要 {_ms(weights_ms)} 毫秒，其余是带宽跑不满、读 KV 和固定开销；"
                f"真正的计算只要 {_ms(calc_ms)} 毫秒；"
                f"每秒出 {rate:.0f} 个 token。")
    else:
        desc = (f"One decode step with a batch of {batch} takes {_ms(step_ms)} ms, almost all of it "
                f"reading memory: the weights at peak bandwidth take {_ms(weights_ms)} ms, the rest "
                f"is bandwidth a real step does not reach, the KV reads and fixed costs; the arithmetic takes only {_ms(calc_ms)} ms; {rate:,.0f} tokens/s.")
    return SceneResult(desc, True)
