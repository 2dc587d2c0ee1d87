"""kv_blocks: the KV cache as a grid of blocks at one telling step, coloured by owner and state.

Slots holding computed tokens are green (blue when they came from the prefix cache), reserved but
unused slots are hatched grey, blocks freed in that step are red dashed where they now lie free;
a prefix block several requests share is drawn once, labelled with all of them, and in the run
without a cache the copies it would save are outlined dashed blue. The pool's size and block size
head the grid. Right of it: who waits (and how many blocks it needs when blocks are the reason),
who sits out for want of a block, when a preempted request is recomputed, when a run stalls.
Both panels of a card on one scenario show the same step (`pick_step`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pipeline.artifacts.trace import StepView, TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.key import COPY_OFFSET, draw_key
from pipeline.draw.palette import INK, TINT_OPACITY, colour
from pipeline.draw.svg import num
from pipeline.fields.serving.scenes.common import (
    SCENE_TOP,
    SCENE_X0,
    SCENE_X1,
    SCENE_Y1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    engine,
    partner_trace,
)

PER_ROW = 6
MAX_BLOCKS = 18
GRID_X1 = 296.0
BLOCK_H = 26.0
ROW_PITCH = 44.0
NUMBER_DY = BLOCK_H + 9  # a block's number, in the gap below it
MAX_TABLES = 2  # requests whose block lists the picture writes out
GRID_Y0 = SCENE_TOP + 22
WAIT_X = 340.0
MAX_WAITING = 3
HATCH_GAP = 4.5


def _sat_out(step: StepView) -> list[str]:
    """Requests in the running set the step did not schedule (no block for their next token)."""
    return [r for r in step.running if r not in step.scheduled]


def _tells(step: StepView) -> tuple[object, ...]:
    """What a reader compares between two runs at one step: who waits, who sits out, who is
    preempted."""
    return (tuple(step.waiting), tuple(_sat_out(step)), tuple(step.preempted))


def pick_step(
    trace: TraceView, partner: TraceView | None = None, focus: Sequence[str] = ()
) -> StepView:
    """The step the panel shows. With the card's other run of the same scenario, both panels
    show ONE step: the first preemption in either, else the first step where the runs differ in
    who waits or sits out (the first where a `focus` request is among them, when there is one:
    the card is about that request), else the step where the two hold the most blocks together.
    Alone: the first preemption, else the last step of a stalled run, else the fullest step."""
    all_steps = trace.steps
    if partner is not None:
        both = [(s, o) for s in all_steps if (o := partner.step(s.index)) is not None]
        evicted = next((s for s, o in both if s.preempted or o.preempted), None)
        differing = [(s, o) for s, o in both if _tells(s) != _tells(o)]
        held_up = [s for s, o in differing if any(
            rid in (*x.waiting, *_sat_out(x)) for rid in focus for x in (s, o))]
        differ = evicted or next(iter(held_up + [s for s, _o in differing]), None)
        if differ is not None:
            return differ
        if both:
            return min(both, key=lambda p: (p[0].free_blocks + p[1].free_blocks, p[0].index))[0]
    hit = next((s for s in all_steps if s.preempted), None)
    if hit is not None:
        return hit
    if trace.stalled:
        return all_steps[-1]
    return min(all_steps, key=lambda s: (s.free_blocks, s.index))


def _owners_word(owners: tuple[str, ...]) -> str:
    return "".join(owners) if len(owners) <= 4 else f"{owners[0]}+{len(owners) - 1}"


class Cell(NamedTuple):
    """One physical block as drawn: its holder's word, kind, filled and reserved slots, and its
    place in the pool when the run has block tables (paged runs), else None."""

    owner: str | None
    kind: str
    filled: int
    reserved: int
    pos: int | None = None


def pool_cells(
    trace: TraceView,
    step: StepView,
    partner_step: StepView | None,
    bs: int,
    limit: int = MAX_BLOCKS,
) -> list[Cell]:
    """The pool at `step`, one cell per physical block (at most `limit`): a shared block once
    (labelled with all its holders), the blocks a preemption freed where they now lie free
    (dashed red), the free blocks. With block tables every block sits at its place in the pool,
    so a request's blocks lie where the allocator put them and stay there step after step;
    without (a reservation is one run) each request's blocks are drawn together."""
    if any(s.block_table for s in trace.steps):
        return _placed_cells(trace, step, partner_step, bs, limit)
    cells: list[Cell] = []
    shared_of: dict[str, int] = {}
    for owners, n in step.shared:
        cells.extend(Cell(_owners_word(owners), "stored", bs, bs) for _ in range(n))
        for rid in owners:
            shared_of[rid] = shared_of.get(rid, 0) + n
    copies = _copies(step, partner_step)
    for rid, n in step.blocks.items():
        cells.extend(
            _held(trace, step, rid, b, bs, copies) for b in range(shared_of.get(rid, 0), n)
        )
    prev = trace.step(step.index - 1)
    freed = sum(
        n for rid, n in (prev.blocks if prev is not None else {}).items() if rid in step.preempted
    )
    victim = ", ".join(step.preempted)
    shown_freed = min(freed, step.free_blocks)
    cells.extend(Cell(victim, "freed", 0, 0) for _ in range(shown_freed))
    rest = max(0, min(step.free_blocks - shown_freed, limit - len(cells)))
    cells.extend(Cell(None, "free", 0, 0) for _ in range(rest))
    return cells


def _copies(step: StepView, partner_step: StepView | None) -> dict[str, int]:
    """Per request, the leading blocks a prefix cache would hold once (as the other run shares
    them): drawn as copies in a trouble panel."""
    copies: dict[str, int] = {}
    if partner_step is not None and not step.shared:
        for owners, n in partner_step.shared:
            for rid in owners[1:]:
                copies[rid] = copies.get(rid, 0) + n
    return copies


def _held(
    trace: TraceView, step: StepView, rid: str, b: int, bs: int, copies: dict[str, int],
    pos: int | None = None,
) -> Cell:
    """Block `b` of `rid`'s own (unshared) blocks: its computed and reserved slots."""
    computed = step.computed.get(rid, 0)
    reserved = step.reserved.get(rid, step.blocks.get(rid, 0) * bs)
    req = trace.requests.get(rid)
    hits = (req.prefix_hit_tokens if req is not None else 0) // bs
    filled = max(0, min(bs, computed - b * bs))
    kind = "stored" if b < hits else "copy" if b < copies.get(rid, 0) else "running"
    return Cell(rid, kind, filled, max(0, min(bs, reserved - b * bs)), pos)


def _placed_cells(
    trace: TraceView, step: StepView, partner_step: StepView | None, bs: int, limit: int
) -> list[Cell]:
    """Cells in pool order from the block tables; past `limit`, the free blocks at the end of
    the pool are left out first (the picture counts them)."""
    holders: dict[int, list[str]] = {}
    for rid, ids in step.block_table.items():
        for pos in ids:
            holders.setdefault(pos, []).append(rid)
    groups = {frozenset(owners): owners for owners, _n in step.shared}
    copies = _copies(step, partner_step)
    placed: dict[int, Cell] = {}
    for rid, ids in step.block_table.items():
        for b, pos in enumerate(ids):
            owners = holders[pos]
            if len(owners) > 1:
                word = _owners_word(groups.get(frozenset(owners), tuple(owners)))
                placed[pos] = Cell(word, "stored", bs, bs, pos)
            else:
                placed[pos] = _held(trace, step, rid, b, bs, copies, pos)
    prev = trace.step(step.index - 1)
    for rid in step.preempted:
        for pos in prev.block_table.get(rid, ()) if prev is not None else ():
            placed.setdefault(pos, Cell(rid, "freed", 0, 0, pos))
    total = engine(trace).num_blocks
    free = (p for p in range(total) if p not in placed)
    while len(placed) < min(limit, total):
        pos = next(free)
        placed[pos] = Cell(None, "free", 0, 0, pos)
    return [placed[p] for p in sorted(placed)][:limit]


def _needs(trace: TraceView, rid: str) -> int:
    """The blocks `rid` takes when it is let in (its reservation, or its prompt's blocks)."""
    first = next((s for s in trace.steps if rid in s.scheduled and rid in s.blocks), None)
    return first.blocks[rid] if first is not None else 0


def _back_at(trace: TraceView, rid: str, after: int) -> int | None:
    """The step a preempted request is scheduled again (its recompute), if the run shows it."""
    return next((s.index for s in trace.steps if s.index > after and rid in s.scheduled), None)


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    partner = partner_trace(ctx)
    step = pick_step(trace, partner, ctx.focus)
    partner_step = partner.step(step.index) if partner is not None else None
    bs = engine(trace).block_size
    total = engine(trace).num_blocks
    free = step.free_blocks
    cells = pool_cells(trace, step, partner_step, bs)
    kinds = ["held"]
    kinds += ["stored"] if any(c[1] == "stored" for c in cells) else []
    kinds += ["copy"] if any(c[1] == "copy" for c in cells) else []
    # hatched slots: a reservation's, or (paged) the unwritten rest of a request's last block
    hatch = "reserved" if engine(trace).kv_alloc != "paged" else "unused"
    kinds += [hatch] if not any(c[1] in ("stored", "copy") for c in cells) else []
    kinds += ["freed"] if any(c[1] == "freed" for c in cells) else []
    draw_key(cv, ctx, kinds[:3])
    if ctx.lang == "zh":
        head = f"第 {step.index} 步：共 {total} 块，每块 {bs} 个 token"
    else:
        head = f"step {step.index}: {total} blocks of {bs} tokens"
    cv.layout.place(
        head,
        x=SCENE_X0,
        cy=SCENE_TOP + 6,
        role="label",
        size=SMALL_SIZE,
        anchor="start",
        floor=None,
    )
    pitch = (GRID_X1 - SCENE_X0) / PER_ROW
    # the whole pool drawn in pool order: number the blocks, so where each one lies can be read
    numbered = len(cells) == total and all(c.pos is not None for c in cells)
    with cv.batch():
        for i, (owner, kind, filled, reserved, _pos) in enumerate(cells[:MAX_BLOCKS]):
            x = SCENE_X0 + (i % PER_ROW) * pitch
            y = GRID_Y0 + (i // PER_ROW) * ROW_PITCH
            _block(cv, f"blk-{i}", x, y, pitch - 6, bs, owner, kind, filled, reserved)
    if numbered:
        for row in range(0, len(cells), PER_ROW):
            numbers = [
                (str((cell.pos or 0) + 1), SCENE_X0 + k * pitch + (pitch - 6) / 2)
                for k, cell in enumerate(cells[row : row + PER_ROW])
            ]
            cy = GRID_Y0 + (row // PER_ROW) * ROW_PITCH + NUMBER_DY
            cv.layout.place_row(numbers, cy=cy, role="label", size=SMALL_SIZE, fill=colour("idle"))
        _tables(cv, ctx, step, cells)
    shown_free = sum(1 for c in cells[:MAX_BLOCKS] if c[1] in ("free", "freed"))
    rest = free - shown_free
    if rest > 0:
        rows = (len(cells[:MAX_BLOCKS]) + PER_ROW - 1) // PER_ROW
        more = f"空块共 {free} 个" if ctx.lang == "zh" else f"{free} free blocks in all"
        cv.layout.place(
            more,
            x=SCENE_X0,
            cy=GRID_Y0 + rows * ROW_PITCH - 4,
            role="label",
            size=SMALL_SIZE,
            anchor="start",
            floor=None,
        )
    _side_column(cv, ctx, trace, step)
    used = total - free
    victims = ", ".join(step.preempted)
    if ctx.lang == "zh":
        desc = f"KV 块：第 {step.index} 步共 {total} 块（每块 {bs} 个 token），占用 {used} 块，空 {free} 块"
        desc += f"；{victims} 被抢占、块被释放。" if victims else "。"
        if numbered:
            desc += "块号：" + "；".join(
                f"{r} " + "、".join(str(b + 1) for b in ids) for r, ids in step.block_table.items()
            ) + "。"
    else:
        desc = (
            f"KV blocks at step {step.index}: {used} of {total} blocks ({bs} tokens each) in use, "
            f"{free} free"
        )
        desc += f"; {victims} preempted and its blocks freed." if victims else "."
        if numbered:
            desc += " Block numbers: " + "; ".join(
                f"{r} " + ", ".join(str(b + 1) for b in ids) for r, ids in step.block_table.items()
            ) + "."
    return SceneResult(desc, True)


def _runs(ids: tuple[int, ...]) -> int:
    """How many separate runs of neighbouring blocks a block list makes."""
    return sum(1 for i, b in enumerate(ids) if i == 0 or b != ids[i - 1] + 1)


def _tables(cv: Canvas, ctx: SceneContext, step: StepView, cells: list[Cell]) -> None:
    """Under a numbered pool, the block lists (block tables) of the requests in focus, else of
    the most scattered holders: the numbers of its blocks, which need not be neighbours. Only
    where a row of the grid is free for it."""
    rows = (len(cells) + PER_ROW - 1) // PER_ROW
    cy = GRID_Y0 + rows * ROW_PITCH + 13
    if cy > SCENE_Y1 - 6:
        return
    table = step.block_table
    order = sorted(table, key=lambda r: (r not in ctx.focus, -_runs(table[r]), r))
    picked = [r for r in order if r in ctx.focus or _runs(table[r]) > 1][:MAX_TABLES]
    if not picked:
        return
    if ctx.lang == "zh":
        text = "；".join(f"{r} 的块：" + "、".join(str(b + 1) for b in table[r]) for r in picked)
    else:
        text = "; ".join(f"{r}'s blocks: " + ", ".join(str(b + 1) for b in table[r]) for r in picked)
    cv.layout.place(text, x=SCENE_X0, cy=cy, role="label", size=SMALL_SIZE, anchor="start",
                    max_width=SCENE_X1 - SCENE_X0, floor=None)


def _side_column(cv: Canvas, ctx: SceneContext, trace: TraceView, step: StepView) -> None:
    """Right of the pool: who waits (and, when blocks are the reason, how many it needs), who
    sits out for want of a block, a preempted request's recompute step, a stall to come."""
    zh = ctx.lang == "zh"
    sat_out = [r for r in _sat_out(step) if r not in step.preempted]
    waiting = list(step.waiting)
    beans = [(r, "freed" if r in step.preempted else "new") for r in waiting]
    beans += [(r, "idle") for r in sat_out]
    beans = beans[:MAX_WAITING]
    if not beans:
        return
    head = ctx.word("waiting") if waiting else ctx.word("stalled")
    cv.layout.place(head, x=WAIT_X, cy=SCENE_TOP + 6, role="label", size=SMALL_SIZE, floor=None)
    y = GRID_Y0 + 14
    for rid, state in beans:
        cast.bean(cv, rid, WAIT_X, y, state, eid=f"wait-{rid}", focus=rid in ctx.focus)
        note = ""
        if rid in step.preempted:
            back = _back_at(trace, rid, step.index)
            if back is not None:
                note = f"第 {back} 步重算" if zh else f"redone at {back}"
        elif rid in waiting:
            need = _needs(trace, rid)
            if need > step.free_blocks:
                note = f"要 {need} 块，空 {step.free_blocks}" if zh else f"needs {need}, {step.free_blocks} free"
        if note:
            cv.layout.place(
                note,
                x=WAIT_X,
                cy=y + 30,
                role="label",
                size=SMALL_SIZE,
                max_width=SCENE_X1 - GRID_X1 - 4,
                max_lines=2,
                floor=None,
            )
            y += 14
        y += 46
    if trace.stalled and (sat_out or step is trace.steps[-1]):
        stop = trace.steps[-1].index + 1
        cv.layout.place(
            f"到第 {stop} 步全停" if zh else f"all stop by {stop}",
            x=WAIT_X,
            cy=min(y, SCENE_Y1 - 30),
            role="label",
            size=SMALL_SIZE,
            max_width=SCENE_X1 - GRID_X1 - 4,
            max_lines=2,
            floor=None,
        )


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
    if kind in ("running", "stored", "copy"):
        # one tint over the computed slots, one hatch over the reserved-but-unused ones
        full = sum(1 for k in range(slots) if filled >= (k + 1) * per_slot - 1e-9)
        held = sum(1 for k in range(slots) if reserved >= (k + 1) * per_slot - 1e-9)
        if full:
            tint = colour("running" if kind == "copy" else kind)
            cv.fill(poly_d(rough.rect_poly(x, y, full * sw, BLOCK_H)), tint, TINT_OPACITY + 0.15)
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
    elif kind == "copy":  # the block again, a second copy stacked behind (key.COPY_OFFSET)
        cv.stroke(rough.jitter_poly(rng, box, 0.6), colour("running"), width=1.6)
        o = COPY_OFFSET
        cv.stroke(rough.polyline(rng, [(x + o, y), (x + o, y - o), (x + w + o, y - o),
                                       (x + w + o, y + BLOCK_H - o), (x + w, y + BLOCK_H - o)],
                                 0.2, passes=1), INK, width=1.4)
    elif kind == "free":
        cv.stroke(rough.jitter_poly(rng, box), colour("idle"), width=1.1)
    else:  # a jittered outline: half the bytes of a sketched rectangle, on up to 18 blocks
        cv.stroke(rough.jitter_poly(rng, box, 0.6), colour(kind), width=1.6)
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
