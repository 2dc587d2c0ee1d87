"""kv_blocks: the KV cache as a grid of blocks at one telling step, coloured by owner and state.

Slots holding computed tokens are green (blue when they came from the prefix cache), reserved but
unused slots are hatched grey, blocks freed in that step are red dashed; the waiting line stands
on the right. The step is chosen from the trace: first preemption, else the fullest step.
"""

from __future__ import annotations

from pipeline.artifacts.trace import StepView, TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.key import draw_key
from pipeline.draw.palette import INK, TINT_OPACITY, colour
from pipeline.draw.svg import num
from pipeline.fields.serving.scenes.common import (
    SCENE_TOP,
    SCENE_X0,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    engine,
)

PER_ROW = 6
MAX_BLOCKS = 18
GRID_X1 = 296.0
BLOCK_H = 30.0
ROW_PITCH = 44.0
GRID_Y0 = SCENE_TOP + 22
WAIT_X = 340.0
MAX_WAITING = 3
HATCH_GAP = 4.5


def pick_step(trace: TraceView) -> StepView:
    all_steps = trace.steps
    hit = next((s for s in all_steps if s.preempted), None)
    if hit is not None:
        return hit
    if trace.stalled:
        return all_steps[-1]
    return min(all_steps, key=lambda s: (s.free_blocks, s.index))


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    step = pick_step(trace)
    prev = trace.step(step.index - 1)
    bs = engine(trace).block_size
    total = engine(trace).num_blocks
    held: dict[str, int] = dict(step.blocks)
    freed = {
        rid: n
        for rid, n in (prev.blocks if prev is not None else {}).items()
        if rid in step.preempted
    }
    cells: list[tuple[str | None, str, int, int]] = []  # owner, kind, filled slots, reserved
    for rid, n in held.items():
        computed = step.computed.get(rid, 0)
        reserved = step.reserved.get(rid, n * bs)
        req = trace.requests.get(rid)
        hits = (req.prefix_hit_tokens if req is not None else 0) // bs
        for b in range(n):
            filled = max(0, min(bs, computed - b * bs))
            kind = "stored" if b < hits else "running"
            cells.append((rid, kind, filled, max(0, min(bs, reserved - b * bs))))
    for rid, n in freed.items():
        cells.extend((rid, "freed", 0, 0) for _ in range(n))
    free = step.free_blocks
    shown_free = max(0, min(free, MAX_BLOCKS - len(cells)))
    cells.extend((None, "free", 0, 0) for _ in range(shown_free))
    kinds = (
        ["held", "reserved", "freed"]
        if not any(c[1] == "stored" for c in cells)
        else ["held", "stored", "freed"]
    )
    draw_key(cv, ctx, kinds)
    step_word = f"第 {step.index} 步" if ctx.lang == "zh" else f"step {step.index}"
    cv.layout.place(
        step_word,
        x=SCENE_X0,
        cy=SCENE_TOP + 6,
        role="label",
        size=SMALL_SIZE,
        anchor="start",
        floor=None,
    )
    pitch = (GRID_X1 - SCENE_X0) / PER_ROW
    with cv.batch():
        for i, (owner, kind, filled, reserved) in enumerate(cells[:MAX_BLOCKS]):
            x = SCENE_X0 + (i % PER_ROW) * pitch
            y = GRID_Y0 + (i // PER_ROW) * ROW_PITCH
            _block(cv, f"blk-{i}", x, y, pitch - 6, bs, owner, kind, filled, reserved)
    rest = free - shown_free
    if rest > 0:
        rows = (len(cells[:MAX_BLOCKS]) + PER_ROW - 1) // PER_ROW
        more = f"+{rest} 个空块" if ctx.lang == "zh" else f"+{rest} free blocks"
        cv.layout.place(
            more,
            x=SCENE_X0,
            cy=GRID_Y0 + rows * ROW_PITCH - 4,
            role="label",
            size=SMALL_SIZE,
            anchor="start",
            floor=None,
        )
    waiting = list(step.waiting)[:MAX_WAITING]
    if waiting:
        cv.layout.place(
            ctx.word("waiting"),
            x=WAIT_X,
            cy=SCENE_TOP + 6,
            role="label",
            size=SMALL_SIZE,
            floor=None,
        )
        for k, rid in enumerate(waiting):
            state = "freed" if rid in step.preempted else "new"
            cast.bean(
                cv,
                rid,
                WAIT_X,
                GRID_Y0 + 14 + k * 42,
                state,
                eid=f"wait-{rid}",
                focus=rid in ctx.focus,
            )
    used = total - free
    victims = ", ".join(step.preempted)
    if ctx.lang == "zh":
        desc = f"KV 块：第 {step.index} 步共 {total} 块，占用 {used} 块，空 {free} 块"
        desc += f"；{victims} 被抢占、块被释放。" if victims else "。"
    else:
        desc = f"KV blocks at step {step.index}: {used} of {total} blocks in use, {free} free"
        desc += f"; {victims} preempted and its blocks freed." if victims else "."
    return SceneResult(desc, True)


def _block(
    cv: Canvas,
    eid: str,
    x: float,
    y: float,
    w: float,
    bs: int,
    owner: str | None,
    kind: str,
    filled: int,
    reserved: int,
) -> None:
    rng = cv.rng(eid)
    slots = min(bs, 8)
    sw = w / slots
    per_slot = bs / slots
    if kind in ("running", "stored"):
        # one tint over the computed slots, one hatch over the reserved-but-unused ones
        full = sum(1 for k in range(slots) if filled >= (k + 1) * per_slot - 1e-9)
        held = sum(1 for k in range(slots) if reserved >= (k + 1) * per_slot - 1e-9)
        if full:
            cv.fill(poly_d(rough.rect_poly(x, y, full * sw, BLOCK_H)), colour(kind), TINT_OPACITY + 0.15)
        if held > full:
            poly = rough.rect_poly(x + full * sw, y, (held - full) * sw, BLOCK_H)
            cv.stroke(rough.hachure(rng, poly, HATCH_GAP), colour("idle"), width=0.9)
    if slots > 1 and kind != "free":
        # slot dividers: short straight ticks (cheap), slightly off vertical like a quick pen
        d = "".join(
            f"M{num(x + k * sw + rng.off(-0.4, 0.4, 1))} {num(y + 3)}"
            f"L{num(x + k * sw + rng.off(-0.4, 0.4, 1))} {num(y + BLOCK_H - 3)}"
            for k in range(1, slots)
        )
        cv.stroke(d, colour("idle"), width=0.8)
    box = rough.rect_poly(x, y, w, BLOCK_H)
    if kind == "freed":
        cv.stroke(rough.jitter_poly(rng, box), colour("freed"), width=1.6, dashed=True)
    elif kind == "free":
        cv.stroke(rough.jitter_poly(rng, box), colour("idle"), width=1.1)
    else:
        cv.stroke(rough.rect(rng, x, y, w, BLOCK_H, 0.5, 1), colour(kind), width=1.6)
    if owner:
        cv.layout.place(
            owner,
            x=x + w / 2,
            cy=y + BLOCK_H / 2,
            role="label",
            size=SMALL_SIZE + 0.5,
            floor=None,
            fill=INK,
        )
