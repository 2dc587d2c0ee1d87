"""The serving field's numbers as the review lists them: for a trace a panel draws, its
requests' latencies and counts and the run's totals (the values a caption may bind), each with a
label and a unit ("D's TTFT 8.8 ms"), and the terms of an illustrative linear step cost."""

from __future__ import annotations

from pipeline.artifacts.sim import trace_values
from pipeline.artifacts.trace import Json, TraceView
from pipeline.fields.serving.walkthrough import step_time, time_unit

REQUEST_LABELS = {
    "arrival": "arrival",
    "first_token": "first token at",
    "finish": "finish",
    "output_tokens": "output tokens",
    "ttft": "TTFT",
    "tpot": "TPOT",
    "e2el": "end-to-end latency",
    "preemptions": "preemptions",
    "prefix_hit_tokens": "prefix-cache hit tokens",
    "first_step": "first step",
    "wait": "steps waited",
    "prefill_steps": "steps reading its prompt",
}
RUN_LABELS = {
    "steps": "steps",
    "tokens": "tokens computed",
    "preempted": "preemptions",
    "duration": "duration",
    "throughput": "output throughput",
    "min_free_blocks": "fewest free KV blocks",
}
COST_LABELS = {
    "c0": "step cost: fixed part",
    "c_tok": "step cost per token computed",
    "c_kv": "step cost per token of KV read",
}
TIMED = frozenset({"arrival", "first_token", "finish", "ttft", "tpot", "e2el", "duration"})
UNIT_WORDS = {"step": "steps", "ms": "ms", "s": "s"}


def _label(key: str) -> str:
    request, _, field = key.rpartition(".")
    if request:
        return f"{request}'s {REQUEST_LABELS.get(field, field)}"
    return RUN_LABELS.get(key, key)


def _unit(key: str, unit: str) -> str:
    field = key.rpartition(".")[2]
    if field in TIMED:
        return unit
    if key == "throughput" and unit:
        return f"tokens per {unit.rstrip('s')}"
    return ""




def shown_numbers(result: Json) -> list[tuple[str, str, str, str]]:
    """(key, label, value, unit) of every number a panel's trace offers the page."""
    trace = TraceView.from_json(result)
    unit = UNIT_WORDS.get(time_unit(trace), "")
    out = [
        (key, _label(key), value, _unit(key, unit)) for key, value in trace_values(trace).items()
    ]
    # each step's time in a timed run (the walkthrough writes them, "用时 1.75 毫秒")
    if unit == "ms":
        out += [(f"step.{s.index}.time", f"step {s.index}'s time", step_time(s), "ms")
                for s in trace.steps]
    # the comic's step cost, which the card's clock line spells out (`clock.clock_note`, in the panel note)
    out += [
        (f"cost.{term}", COST_LABELS[term], f"{value:g}", "ms")
        for term, value in trace.cost.terms.items()
    ]
    return out
