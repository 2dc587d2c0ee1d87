"""What the serving field's scenes share: trace reading helpers and their words in two
languages (the scene area, sizes and context are the drawing library's, `pipeline.draw.scene`).

Trace helpers derive what a scene shows (prefill or decode, which step is interesting, who waits)
from the simulator's step records, so pictures and numbers always agree with `sim/`.
"""

from __future__ import annotations

from pipeline.artifacts.trace import EngineView, StepView, TraceView
from pipeline.draw.scene import (  # noqa: F401 - the serving scenes read them from here
    KEY_CY,
    MIN_PHONE_PX,
    MIN_TEXT,
    PHONE_PANEL_PX,
    SCENE_TOP,
    SCENE_X0,
    SCENE_X1,
    SCENE_Y0,
    SCENE_Y1,
    SMALL_SIZE,
    SceneContext,
    SceneResult,
    fmt,
)

MAX_LANES = 5
MAX_STEPS = 14

WORDS: dict[str, dict[str, str]] = {
    "zh": {
        "step": "步",
        "steps": "步骤",
        "waiting": "等待",
        "budget": "预算",
        "free": "空",
        "time": "时间",
        "prefill": "预填",
        "decode": "解码",
        "gpu": "GPU",
        "first": "首字",
        "wait_q": "排队",
        "q_running": "先跑老的",
        "q_budget": "预算够吗",
        "q_blocks": "块够吗",
        "q_slots": "有空位吗",
        "freed": "释放",
        "reserved": "预留",
        "stalled": "卡住了",
        "all_stop": "全停",
        "blocks": "KV 块",
        "tokens_per": "每步 token",
        "batch": "批",
        "ms": "毫秒",
        "tps": "token/毫秒",
        "memory": "读内存",
        "compute": "算",
        "per_step": "每步",
        "idle": "空闲",
        "recompute": "重算",
        "hit": "命中",
    },
    "en": {
        "step": "step",
        "steps": "steps",
        "waiting": "waiting",
        "budget": "budget",
        "free": "free",
        "time": "time",
        "prefill": "prefill",
        "decode": "decode",
        "gpu": "GPU",
        "first": "1st",
        "wait_q": "queue",
        "q_running": "running first",
        "q_budget": "budget left?",
        "q_blocks": "blocks free?",
        "q_slots": "slot free?",
        "freed": "freed",
        "reserved": "reserved",
        "stalled": "stalled",
        "all_stop": "stuck",
        "blocks": "KV blocks",
        "tokens_per": "tokens/step",
        "batch": "batch",
        "ms": "ms",
        "tps": "tok/ms",
        "memory": "memory",
        "compute": "compute",
        "per_step": "per step",
        "idle": "idle",
        "recompute": "recompute",
        "hit": "hit",
    },
}


# What a scene assumes of a trace run without --detail (no engine record): nothing is known.
UNKNOWN_ENGINE = EngineView(max_num_batched_tokens=0, max_num_seqs=0, num_blocks=0)


def cast_state(arrival: float) -> str:
    """A lane's or clock's bean in the cast's colour: orange for a later arrival (the newcomer),
    green for a request there from the start."""
    return "new" if arrival > 0 else "running"


def request_ids(trace: TraceView, limit: int = MAX_LANES) -> list[str]:
    return list(trace.requests)[:limit]


def steps(trace: TraceView, limit: int = MAX_STEPS) -> list[StepView]:
    return list(trace.steps)[:limit]


def phase(trace: TraceView, rid: str, step: StepView) -> str:
    """'prefill' until the request's first token has been emitted before this step, then
    'decode'; a recompute after preemption counts as prefill again."""
    req = trace.requests[rid]
    before = [t for t in req.token_times if t <= step.start + 1e-9]
    if not before:
        return "prefill"
    n = step.scheduled.get(rid, 0)
    return "decode" if n <= 1 else "prefill"


def preempted_at(trace: TraceView) -> list[int]:
    return [s.index for s in trace.steps if s.preempted]


def first_waiting_step(trace: TraceView) -> StepView | None:
    return next((s for s in trace.steps if s.waiting), None)


def engine(trace: TraceView) -> EngineView:
    return trace.engine if trace.engine is not None else UNKNOWN_ENGINE


def partner_trace(ctx: SceneContext) -> TraceView | None:
    """The card's other run of the same scenario (`SceneContext.partner`), when it is a trace."""
    return ctx.partner if isinstance(ctx.partner, TraceView) else None


def budget(trace: TraceView) -> int:
    return engine(trace).max_num_batched_tokens
