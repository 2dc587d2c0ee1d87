"""sampling: parallel sampling (n > 1): the newcomer's children and the KV blocks they hold.

D forks into its n children (one row each). A child's blocks: its prompt (orange), its answer
(green). When the children share the prompt's blocks (prefix caching), those blocks are drawn
once, blue, before the fork, with a small `×n` count, and each row keeps only its own blocks.
The step is the one where the children hold the most blocks, over both of the card's runs when
the card has two (so the panels compare one moment); counts come from that step's
`blocks`/`tokens`, the sharing from each child's `prefix_hit_tokens`, the family from `parents`.
"""

from __future__ import annotations

import math

from pipeline.artifacts.trace import ParentView, StepView, TraceView
from pipeline.draw import cast, rough
from pipeline.draw.canvas import Canvas, poly_d
from pipeline.draw.key import KEY_GAP, SWATCH, swatch
from pipeline.draw.palette import INK, TINT_OPACITY, colour
from pipeline.errors import InputError
from pipeline.fields.serving.scenes.common import (
    KEY_CY,
    SCENE_X0,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    engine,
    partner_trace,
)

PARENT_X = 32.0
ROW_CY0, ROW_PITCH = 74.0, 38.0
MAX_ROWS = 3
BLOCK_W, BLOCK_H, BLOCK_PITCH = 30.0, 24.0, 34.0
SHARED_X = 64.0
FORK_GAP = 30.0
ROWS_X_ALONE = 76.0
SUMMARY_CY = 190.0
SUPERSCRIPTS = "¹²³"  # the hand font has these three
NAME_SIZE = 21.0  # large: the child's superscript must still read on a phone
TEXT = {
    "zh": {"shared": "共享 ×{n}", "reuse": "复用 {v} 个 token", "sum": "第 {i} 步：空 {f} 块",
           "prompt": "提示词", "answer": "回答", "cached": "共享"},
    "en": {"shared": "shared ×{n}", "reuse": "reuses {v} tokens", "sum": "step {i}: {f} blocks free",
           "prompt": "prompt", "answer": "answer", "cached": "shared"},
}


def family(ctx: SceneContext) -> tuple[str, ParentView]:
    """The parent request drawn: the first focus id that has children, else the first parent."""
    trace = ctx.trace
    assert trace is not None
    parents = trace.parents
    if not parents:
        scenario = trace.scenario.id if trace.scenario.id is not None else "?"
        raise InputError(
            f"sampling scene: trace of scenario {scenario!r} has no request with n > 1; draw it "
            "from the parallel_sampling scenario"
        )
    pid = next((f for f in ctx.focus if f in parents), next(iter(parents)))
    return pid, parents[pid]


def pick_step(trace: TraceView, children: tuple[str, ...],
              partner: TraceView | None = None) -> StepView:
    """The step in which the children hold the most blocks (the earliest of ties); with the
    card's other run, the step index both runs have at which the two together hold the most,
    so both panels draw the same moment."""
    def held(s: StepView | None) -> int:
        return 0 if s is None else sum(s.blocks.get(c, 0) for c in children)

    steps = list(trace.steps)
    if partner is not None:
        both = [s for s in steps if partner.step(s.index) is not None]
        if both:
            return max(both, key=lambda s: (held(s) + held(partner.step(s.index)), -s.index))
    return max(steps, key=lambda s: (held(s), -s.index))


def prompt_len(trace: TraceView, step: StepView, rid: str) -> int:
    """Prompt tokens: the step's token count minus the outputs emitted by its end."""
    req = trace.requests[rid]
    emitted = sum(1 for t in req.token_times if t <= step.end + 1e-9)
    return max(0, step.tokens.get(rid, 0) - emitted)


def _block(cv: Canvas, eid: str, x: float, cy: float, kind: str, bs: int) -> None:
    y = cy - BLOCK_H / 2
    poly = rough.rect_poly(x, y, BLOCK_W, BLOCK_H)
    cv.fill(poly_d(poly), colour(kind), TINT_OPACITY + 0.1)
    rng = cv.rng(eid)
    slots = min(bs, 8)
    if slots > 1:
        sw = BLOCK_W / slots
        cv.stroke("".join(rough.line(rng, (x + k * sw, y + 4), (x + k * sw, y + BLOCK_H - 4),
                                     0.2, 1) for k in range(1, slots)),
                  colour("idle"), width=0.8)
    cv.stroke(rough.jitter_poly(rng, poly, 0.6), colour(kind), width=1.5)


def draw(cv: Canvas, ctx: SceneContext) -> SceneResult:
    trace = ctx.trace
    assert trace is not None
    words = TEXT[ctx.lang]
    pid, parent = family(ctx)
    children = parent.children[:MAX_ROWS]
    step = pick_step(trace, children, partner_trace(ctx))
    bs = engine(trace).block_size or 1
    hits = {c: trace.requests[c].prefix_hit_tokens // bs for c in children}
    shared = max(hits.values(), default=0)
    prompt_blocks = {c: math.ceil(prompt_len(trace, step, c) / bs) for c in children}
    kinds = ["new", "running", "stored"] if shared else ["new", "running"]
    _key(cv, ctx, kinds)

    rows_cy = [ROW_CY0 + k * ROW_PITCH for k in range(len(children))]
    mid = rows_cy[len(rows_cy) // 2] if rows_cy else ROW_CY0
    cast.bean(cv, pid, PARENT_X, mid - 2, "new", eid=f"parent-{pid}", focus=pid in ctx.focus)
    fork_x = PARENT_X + 16
    if shared:
        cv.stroke(rough.line(cv.rng("trunk"), (fork_x, mid), (SHARED_X - 3, mid), 0.3, 1),
                  width=1.5)
        for k in range(shared):
            _block(cv, f"shared-{k}", SHARED_X + k * BLOCK_PITCH, mid, "stored", bs)
        cv.layout.place(words["shared"].format(n=parent.n), x=SHARED_X, cy=mid - BLOCK_H / 2 - 10,
                        role="label", size=SMALL_SIZE, anchor="start", floor=None)
        fork_x = SHARED_X + shared * BLOCK_PITCH - 4
    rows_x = fork_x + FORK_GAP if shared else ROWS_X_ALONE
    details: list[str] = []
    for k, (rid, cy) in enumerate(zip(children, rows_cy, strict=False)):
        cv.stroke(rough.curve(cv.rng(f"fork-{rid}"),
                              [(fork_x, mid), ((fork_x + rows_x) / 2, (mid + cy) / 2 + 0),
                               (rows_x - 4, cy)], 0.3, 1), width=1.4)
        own_prompt = max(0, prompt_blocks[rid] - shared)
        answer = max(0, step.blocks.get(rid, 0) - prompt_blocks[rid])
        cells = ["new"] * own_prompt + ["running"] * answer
        with cv.batch():
            for j, kind in enumerate(cells):
                _block(cv, f"blk-{rid}-{j}", rows_x + j * BLOCK_PITCH, cy, kind, bs)
        x_end = rows_x + len(cells) * BLOCK_PITCH + 6
        name = pid + SUPERSCRIPTS[k % len(SUPERSCRIPTS)]
        placed = cv.layout.place(name, x=x_end, cy=cy, role="name", size=NAME_SIZE,
                                 anchor="start", floor=None, fill=INK)
        if shared:
            reuse = trace.requests[rid].prefix_hit_tokens
            cv.layout.place(words["reuse"].format(v=reuse), x=placed.box.x1 + 8, cy=cy,
                            role="label", size=SMALL_SIZE, anchor="start", floor=None)
        details.append(f"{name} {len(cells)}")
    line = words["sum"].format(i=step.index, f=step.free_blocks)
    cv.layout.place(line, x=SCENE_X0, cy=SUMMARY_CY, role="label", size=SMALL_SIZE + 0.5,
                    anchor="start", floor=None)
    if ctx.lang == "zh":
        how = (f"前 {shared} 块提示词只存一份、{parent.n} 个共用" if shared
               else "每个孩子各存一份提示词")
        desc = (f"并行采样：{pid} 分成 {parent.n} 个回答；{how}；第 {step.index} 步各自的块："
                f"{'，'.join(details)}；空 {step.free_blocks} 块。")
    else:
        how = (f"the first {shared} prompt blocks are stored once and shared by {parent.n}"
               if shared else "each child stores its own copy of the prompt")
        desc = (f"Parallel sampling: {pid} forks into {parent.n} answers; {how}; own blocks at "
                f"step {step.index}: {', '.join(details)}; {step.free_blocks} blocks free.")
    return SceneResult(desc, True)


def _key(cv: Canvas, ctx: SceneContext, kinds: list[str]) -> None:
    """The key with this scene's words (prompt / answer / shared) on the usual swatches."""
    words = TEXT[ctx.lang]
    names = {"new": words["prompt"], "running": words["answer"], "stored": words["cached"]}
    x = SCENE_X0
    for kind in kinds:
        swatch(cv, kind, x, KEY_CY)
        placed = cv.layout.place(names[kind], x=x + SWATCH + 3, cy=KEY_CY, role="label",
                                 size=SMALL_SIZE, anchor="start", floor=None)
        x = placed.box.x1 + KEY_GAP
