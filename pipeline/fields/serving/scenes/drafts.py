"""drafts: speculative decoding on the timeline: each verify step's draft cells in a request's lane.

A verify step gives a request `1 + k` slots: the accepted drafts inked in green, then the target
model's own token marked with a star where the first rejected draft was (the correction; after
all k when every draft is accepted: the bonus), the drafts after it struck through (red, dashed:
thrown away), the last slot left empty when it is not the bonus's. Every count comes from the
step's `drafts` / `accepted` / `emitted_tokens` (SIM-specdecode.md); without speculation each
decode is one plain cell. The row below gives the focus request's tokens per decode step, its
TPOT, and how many of its drafts were kept.
"""

from __future__ import annotations

from pipeline.artifacts.trace import StepView, TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.cast import symbol_id
from pipeline.draw.key import KEY_GAP, SWATCH, draw_key
from pipeline.draw.palette import TINT_OPACITY, colour
from pipeline.fields.serving.scenes import timeline
from pipeline.fields.serving.scenes.common import (
    KEY_CY,
    SCENE_TOP,
    SCENE_X0,
    SCENE_X1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    cast_state,
    fmt,
    partner_trace,
    request_ids,
    steps,
)

LANE_X0 = timeline.LANE_X0
BEAN_X = timeline.BEAN_X
LANE_PITCH = 34.0
CELL_H = 20.0
STATS_CY = 193.0
AXIS_Y = 181.0
STAR_R = 3.2
WORDS = {
    "zh": {"accepted": "接受", "rejected": "丢掉", "bonus": "大模型写的",
           "stats": "{rid} 每步 {tps} 个 token，每字 {tpot} {unit}", "kept": "草稿留下 {kept}/{drafted}",
           "token": "", "tokens": "", "step": "步", "steps": "步", "ms": "毫秒",
           "plain": "没有草稿"},
    "en": {"accepted": "accepted", "rejected": "thrown away", "bonus": "big model's token",
           "stats": "{rid}: {tps} {tok}/step, TPOT {tpot} {unit}",
           "token": "token", "tokens": "tokens", "step": "step", "steps": "steps", "ms": "ms",
           "kept": "{kept}/{drafted} drafts kept", "plain": "no drafts"},
}
DRAFT_KINDS = ("accepted", "rejected", "bonus")


def _slot_accepted(cv: Canvas, x: float, y: float, w: float, h: float, rng: rough.Rng) -> None:
    cv.fill(poly_d(rough.rect_poly(x, y, w, h)), colour("running"), TINT_OPACITY + 0.15)
    cv.stroke(rough.jitter_poly(rng, rough.rect_poly(x, y, w, h), 0.4), colour("running"), width=1.3)


def _slot_draft(cv: Canvas, x: float, y: float, w: float, h: float, rng: rough.Rng) -> None:
    """A draft cell not (or no longer) backed by a token: pencil-light, dashed."""
    cv.stroke(rough.jitter_poly(rng, rough.rect_poly(x, y, w, h), 0.4), colour("idle"), width=1.0,
              dashed=True)


def _strike(cv: Canvas, x: float, y: float, w: float, h: float, rng: rough.Rng) -> None:
    cv.stroke(rough.line(rng, (x + 1.5, y + h - 2), (x + w - 1.5, y + 2), 0.2, 1), colour("freed"),
              width=1.5, dashed=True)


def _star(cv: Canvas, cx: float, cy: float, rng: rough.Rng, r: float = STAR_R) -> None:
    d = rough.line(rng, (cx - r, cy), (cx + r, cy), 0.1, 1)
    d += rough.line(rng, (cx, cy - r), (cx, cy + r), 0.1, 1)
    d += rough.line(rng, (cx - r * 0.7, cy - r * 0.7), (cx + r * 0.7, cy + r * 0.7), 0.1, 1)
    d += rough.line(rng, (cx + r * 0.7, cy - r * 0.7), (cx - r * 0.7, cy + r * 0.7), 0.1, 1)
    cv.stroke(d, width=1.2)


def swatch_body(cv: Canvas, kind: str) -> None:
    """The key swatch of a draft cell kind around (0, 0), drawn once into the page's defs."""
    rng = cv.rng(f"swatch-{kind}")
    x, y, s = 0.0, -SWATCH / 2, SWATCH
    if kind == "accepted":
        _slot_accepted(cv, x, y, s, s, rng)
    elif kind == "rejected":
        _slot_draft(cv, x, y, s, s, rng)
        _strike(cv, x, y, s, s, rng)
    else:
        _slot_accepted(cv, x, y, s, s, rng)
        _star(cv, x + s / 2, 0, rng, 3.0)


# (symbol name, body) pairs for defs.py: the key swatches every drafts panel shares.
SYMBOLS = [(f"swatch-{k}", lambda cv, k=k: swatch_body(cv, k)) for k in DRAFT_KINDS]


def _draft_key(cv: Canvas, ctx: SceneContext, x: float) -> None:
    for kind in DRAFT_KINDS:
        cv.use(symbol_id(f"swatch-{kind}"), x, KEY_CY)
        placed = cv.layout.place(WORDS[ctx.lang][kind], x=x + SWATCH + 3, cy=KEY_CY, role="label",
                                 size=SMALL_SIZE, anchor="start", floor=None)
        x = placed.box.x1 + KEY_GAP


def _verify_cell(cv: Canvas, eid: str, step: StepView, rid: str, x: float, y: float,
                 w: float) -> None:
    """`drafts` dashed slots plus the bonus slot; accepted-and-emitted ones inked."""
    s = step.drafts[rid]
    a = step.accepted.get(rid, 0)
    c = step.emitted_tokens.get(rid, a + 1)
    rng = cv.rng(eid)
    # the verify step as one pencil box, so neighbouring steps read apart
    cv.stroke(rough.jitter_poly(rng, rough.rect_poly(x - 0.5, y - 2.5, w + 1, CELL_H + 5), 0.4),
              colour("idle"), width=0.9)
    x, w = x + 1.5, w - 3
    sw = w / (s + 1)
    for i, kind in enumerate(slot_kinds(s, a, c)):
        sx = x + i * sw
        if kind == "empty":
            _slot_draft(cv, sx + 0.8, y, sw - 1.6, CELL_H, rng)
        elif kind == "thrown":
            _slot_draft(cv, sx + 0.8, y, sw - 1.6, CELL_H, rng)
            _strike(cv, sx + 0.8, y, sw - 1.6, CELL_H, rng)
        else:
            _slot_accepted(cv, sx + 0.8, y, sw - 1.6, CELL_H, rng)
            if kind == "target":
                _star(cv, sx + sw / 2, y + CELL_H / 2, rng)


def slot_kinds(drafted: int, accepted: int, emitted: int) -> list[str]:
    """The `drafted + 1` slots of one verify step, in order: "accepted" drafts, then the target
    model's own token ("target": the correction where the first rejected draft was, or the bonus
    after all of them), the drafts after a rejection "thrown" away with it, and the bonus slot
    "empty" when a draft was rejected. A request that stops (max_tokens) emits fewer."""
    kept = min(accepted, emitted)
    out = []
    for i in range(drafted + 1):
        if i < kept:
            out.append("accepted")
        elif i == accepted and emitted > accepted:
            out.append("target")
        else:
            out.append("thrown" if i < drafted else "empty")
    return out


def focus_request(ctx: SceneContext, trace: TraceView) -> str:
    for rid in [*ctx.focus, "D"]:
        if rid in trace.requests:
            return rid
    return list(trace.requests)[-1]


def request_stats(trace: TraceView, rid: str) -> tuple[float, int, int]:
    """(tokens per decode step, drafts kept, drafts proposed) for one request: decode steps are
    the steps after its first token in which it emitted."""
    req = trace.requests[rid]
    first = req.token_times[0] if req.token_times else None
    emitted = [
        s.emitted_tokens.get(rid, 1)
        for s in trace.steps
        if rid in s.emitted and first is not None and s.end > first + 1e-9
    ]
    tps = sum(emitted) / len(emitted) if emitted else 0.0
    real = [s for s in trace.steps if rid in s.drafts and rid not in s.padded]
    drafted = sum(s.drafts[rid] for s in real)
    kept = sum(min(s.accepted.get(rid, 0), s.emitted_tokens.get(rid, 0)) for s in real)
    return tps, kept, drafted


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    rids = request_ids(trace, 4)
    cols = steps(trace)
    # one step width for both panels, so fewer steps draw a shorter row (reader sf7: 8 and 6
    # steps were both stretched to the panel's width)
    partner = partner_trace(ctx)
    width = (SCENE_X1 - LANE_X0) / max(len(cols), len(steps(partner)) if partner else 0, 1)
    speculative = any(s.drafts for s in trace.steps)
    x = draw_key(cv, ctx, ["new"] if speculative else ["new", "running"])
    if speculative:
        _draft_key(cv, ctx, x)
    with cv.batch():
        for i, rid in enumerate(rids):
            cy = SCENE_TOP + LANE_PITCH * (i + 0.5)
            req = trace.requests[rid]
            state = cast_state(req.arrival)
            cast.bean(cv, rid, BEAN_X, cy - 2, state, eid=f"lane-{rid}", focus=rid in ctx.focus)
            counts: list[tuple[str, float]] = []
            for j, step in enumerate(cols):
                cx = LANE_X0 + j * width
                y = cy - CELL_H / 2
                if rid in step.drafts and rid not in step.padded:
                    _verify_cell(cv, f"v-{rid}-{step.index}", step, rid, cx + 1.5, y, width - 3)
                else:
                    kind = timeline.cell_kind(ctx, rid, step)
                    timeline._cell(cv, rid, step, kind, cx + 1.5, y, width - 3)
                    n = step.scheduled.get(rid, 0)
                    if kind in ("new", "running") and n > 1:
                        counts.append((str(n), cx + width / 2))
                if rid in step.finished:
                    timeline._flag(cv, f"flag-{rid}", cx + width - 1, cy + CELL_H / 2)
            if counts:
                cv.layout.place_row(counts, cy=cy, role="label", size=SMALL_SIZE)
    rng = cv.rng("axis")
    cv.stroke(rough.arrow(rng, (LANE_X0, AXIS_Y), (SCENE_X1, AXIS_Y), 0.5, 0, 6), width=1.2)
    rid = focus_request(ctx, trace)
    tps, kept, drafted = request_stats(trace, rid)
    req = trace.requests[rid]
    words = WORDS[ctx.lang]
    tpot = fmt(req.tpot) if req.tpot is not None else "?"
    if (trace.cost.time_unit or "step") == "step":
        unit = words["step"] if tpot == "1" else words["steps"]
    else:
        unit = words["ms"]
    tok = words["token"] if fmt(tps) == "1" else words["tokens"]
    cv.layout.place(words["stats"].format(rid=rid, tps=fmt(tps), tok=tok, tpot=tpot, unit=unit),
                    x=SCENE_X0, cy=STATS_CY, role="label", size=SMALL_SIZE, anchor="start",
                    floor=None)
    right = words["kept"].format(kept=kept, drafted=drafted) if drafted else words["plain"]
    cv.layout.place(right, x=SCENE_X1, cy=STATS_CY, role="label", size=SMALL_SIZE, anchor="end",
                    floor=None)
    total = len(trace.steps)
    if ctx.lang == "zh":
        desc = (f"推测解码时间线：共 {total} 步；{rid} 每个解码步出 {fmt(tps)} 个 token，"
                + (f"草稿留下 {kept}/{drafted}。" if drafted else "没有草稿，每步一个。"))
    else:
        desc = (f"Speculative decoding timeline: {total} steps; {rid} emits {fmt(tps)} tokens per "
                "decode step" + (f", {kept} of {drafted} drafts kept." if drafted
                                 else ", one per step without drafts."))
    return SceneResult(desc, True)
