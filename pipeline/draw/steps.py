"""`draw_step_strip`: one walkthrough row: that step's batch against the token budget, who waits.

The bar is the budget; each scheduled request fills its share (orange prefill, green decode) with
its letter and token count; the waiting beans stand to the right.
"""

from __future__ import annotations

from pipeline import fonts
from pipeline.artifacts.trace import TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import new_canvas
from pipeline.draw.filters import shared_filter
from pipeline.draw.palette import TINT_OPACITY, colour
from pipeline.draw.scenes.common import budget, phase

WIDTH, HEIGHT = 420.0, 64.0
INSET = 4.0
BAR_X0, BAR_X1 = 58.0, 300.0
BAR_Y, BAR_H = 18.0, 28.0
WAIT_X0 = 322.0
BEAN_PITCH = 30.0
MAX_WAIT = 3
LABEL_SIZE = 13.0


def draw_step_strip(trace: TraceView, step_index: int, *, lang: str,
                    focus: list[str]) -> str:
    step = trace.step(step_index)
    if step is None:
        raise KeyError(f"the trace has no step {step_index}")
    scen = trace.scenario
    sid = (f"strip-{scen.id if scen.id is not None else 'sim'}-"
           f"{scen.variant if scen.variant is not None else 'x'}-{step_index}")
    cv = new_canvas(
        sid,
        WIDTH,
        HEIGHT,
        INSET,
        lang,
        f"walkthrough step {step_index}",
        shared_filter=shared_filter("s", sid),
    )
    cap = budget(trace) or 1
    unit = (BAR_X1 - BAR_X0) / cap
    cv.layout.place(f"第 {step_index} 步" if lang == "zh" else f"step {step_index}", x=8,
                    cy=BAR_Y + BAR_H / 2, role="label", size=15, anchor="start", floor=None)
    x = BAR_X0
    labels: list[tuple[str, float]] = []
    with cv.batch():  # segments of one kind share a path
        for rid, n in step.scheduled.items():
            w = n * unit
            kind = "new" if phase(trace, rid, step) == "prefill" else "running"
            seg = rough.rect_poly(x, BAR_Y, w, BAR_H)
            cv.shape(rough.jitter_poly(cv.rng(f"seg-{rid}"), seg, 0.6), fill=colour(kind),
                     opacity=TINT_OPACITY + 0.1, colour=colour(kind), width=1.4)
            label = rid if n == 1 else f"{rid}{n}"
            if fonts.measure(label, fonts.HAND_EN, LABEL_SIZE) <= w - 2:
                labels.append((label, x + w / 2))
            if rid in focus:
                cv.stroke(rough.line(cv.rng(f"focus-{rid}"), (x + 2, BAR_Y + BAR_H + 4),
                                     (x + w - 2, BAR_Y + BAR_H + 4), 0.6, 2), width=2.0)
            x += w
    if labels:  # who is in the batch and how many tokens each brings: one text, a tspan each
        cv.layout.place_row(labels, cy=BAR_Y + BAR_H / 2, role="label", size=LABEL_SIZE)
    # the budget: one bold single stroke (double strokes are kept for panel borders)
    cv.stroke(rough.rect(cv.rng("budget"), BAR_X0, BAR_Y - 3, BAR_X1 - BAR_X0, BAR_H + 6, 0.6, 1),
              width=2.0)
    for k, rid in enumerate(list(step.waiting)[:MAX_WAIT]):
        cast.bean(cv, rid, WAIT_X0 + 14 + k * BEAN_PITCH, 30, "new", eid=f"wait-{rid}")
    used = step.total_tokens
    batch = ", ".join(f"{r} {n}" for r, n in step.scheduled.items())
    waiting = ", ".join(step.waiting) or ("无" if lang == "zh" else "none")
    if lang == "zh":
        desc = f"第 {step_index} 步：{batch}（共 {used}/{cap} 个令牌），等待：{waiting}。"
        title = f"第 {step_index} 步"
    else:
        desc = f"Step {step_index}: {batch} ({used}/{cap} tokens); waiting: {waiting}."
        title = f"Step {step_index}"
    return cv.svg(css_class="step-strip", element_id=sid, title=title, desc=desc)
