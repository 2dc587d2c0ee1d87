"""streaming: the same schedule as a user sees it, one lane per request.

A hatched bar is the blank screen: from arrival until the first words show. Without streaming
nothing shows until the last token (the wait is E2EL): the tokens written meanwhile are
pencil-light rings and the whole answer lands at once (a box holding the token count). With
streaming the first token shows at TTFT and the rest trickle in as solid dots. The right column
gives each request's wait; below, `summary.perceived_wait`'s mean.
"""

from __future__ import annotations

from pipeline.draw import rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.key import SWATCH, swatch
from pipeline.draw.palette import TINT_OPACITY, colour
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
    DOT_R,
    TRACK_X0,
    TimeScale,
    dot,
    lane_bean,
    lane_cy,
    lane_ids,
    track,
)

TRACK_X1 = 290.0
WAIT_X = 306.0
BLANK_H = 12.0
HATCH_GAP = 5.0
BOX_W, BOX_H = 18.0, 18.0
SUMMARY_CY = 190.0
HEADROOM = 1.04
KEY_GAP = 9.0
TEXT = {
    "zh": {"blank": "空白等待", "seen": "看到字", "unseen": "写了没显示", "wait": "等 {v}",
           "mean_e2el": "平均等 {v} {u}（等到写完）", "mean_ttft": "平均等 {v} {u}（等到首字）",
           "step": "步", "ms": "毫秒"},
    "en": {"blank": "blank screen", "seen": "shown", "unseen": "hidden", "wait": "wait {v}",
           "mean_e2el": "average wait {v} {u} (the whole answer)",
           "mean_ttft": "average wait {v} {u} (the first token)", "step": "steps", "ms": "ms",
           "step_one": "step"},
}


def _key(cv: Canvas, ctx: SceneContext, streaming: bool) -> None:
    words = TEXT[ctx.lang]
    x = SCENE_X0
    items = ["blank", "seen"] if streaming else ["blank", "unseen", "seen"]
    for item in items:
        if item == "blank":
            swatch(cv, "idle", x, KEY_CY)
            tx = x + SWATCH + 3
        else:
            dot(cv, f"key-{item}", x + DOT_R, KEY_CY, "running", solid=item == "seen")
            tx = x + 2 * DOT_R + 3
        placed = cv.layout.place(words[item], x=tx, cy=KEY_CY, role="label", size=SMALL_SIZE,
                                 anchor="start", floor=None)
        x = placed.box.x1 + KEY_GAP


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    words = TEXT[ctx.lang]
    summary = trace.summary
    streaming = summary.streaming if summary.streaming is not None else ctx.panel.variant == "with"
    unit = words["ms"] if trace.cost.time_unit == "ms" else words["step"]
    rids = lane_ids(trace)
    reqs = [trace.requests[r] for r in rids]
    ends = [t for r in reqs for t in r.token_times] or [1.0]
    scale = TimeScale(max(ends) * HEADROOM, TRACK_X0, TRACK_X1)
    _key(cv, ctx, streaming)
    waits: list[str] = []
    for i, (rid, req) in enumerate(zip(rids, reqs, strict=True)):
        cy = lane_cy(i)
        lane_bean(cv, ctx, i, rid, cy, cast_state(req.arrival))
        times = req.token_times
        wait = req.ttft if streaming else req.e2el
        track(cv, f"track-{rid}", scale.x(req.arrival), TRACK_X1, cy)
        if not times or wait is None:
            continue
        x0, x1 = scale.x(req.arrival), scale.x(req.arrival + wait)
        blank = rough.rect_poly(x0, cy - BLANK_H / 2, max(x1 - x0, 2.0), BLANK_H)
        cv.stroke(rough.hachure(cv.rng(f"blank-h-{rid}"), blank, HATCH_GAP), colour("idle"), width=0.9)
        cv.stroke(rough.jitter_poly(cv.rng(f"blank-{rid}"), blank, 0.5), colour("idle"),
                  width=1.1)
        with cv.batch():
            if streaming:
                for k, t in enumerate(times):
                    dot(cv, f"tok-{rid}-{k}", scale.x(t), cy, "running")
            else:
                for k, t in enumerate(times[:-1]):
                    dot(cv, f"tok-{rid}-{k}", scale.x(t), cy, "running", solid=False)
        if not streaming:  # the whole answer lands at once
            bx = scale.x(times[-1])
            box = rough.rect_poly(bx - BOX_W / 2, cy - BOX_H / 2, BOX_W, BOX_H)
            cv.fill(poly_d(box), colour("running"), TINT_OPACITY + 0.15)
            cv.stroke(rough.jitter_poly(cv.rng(f"box-{rid}"), box, 0.5), colour("running"),
                      width=1.5)
            cv.layout.place(str(req.output_tokens), x=bx, cy=cy, role="label", size=SMALL_SIZE,
                            floor=None)
        text = words["wait"].format(v=fmt(wait))
        cv.layout.place(text, x=WAIT_X, cy=cy, role="label", size=SMALL_SIZE + 0.5,
                        anchor="start", floor=None)
        waits.append(f"{rid} {fmt(wait)}")
    pw = summary.perceived_wait
    mean = pw.mean if pw is not None else None
    if mean is not None:
        mean_unit = words.get("step_one", unit) if unit == words["step"] and fmt(mean) == "1" else unit
        line = words["mean_ttft" if streaming else "mean_e2el"].format(v=fmt(mean), u=mean_unit)
        cv.layout.place(line, x=SCENE_X0, cy=SUMMARY_CY, role="label", size=SMALL_SIZE + 0.5,
                        anchor="start", floor=None, max_width=368)
    sep = "，" if ctx.lang == "zh" else ", "
    if ctx.lang == "zh":
        how = "流式：首字一出就能读" if streaming else "不流式：整段写完才显示"
        desc = f"{how}；每个请求等待（{unit}）：{sep.join(waits)}。"
    else:
        how = ("Streaming: words show from the first token" if streaming
               else "No streaming: nothing shows until the whole answer is written")
        desc = f"{how}; each request's wait ({unit}): {sep.join(waits)}."
    return SceneResult(desc, True)
