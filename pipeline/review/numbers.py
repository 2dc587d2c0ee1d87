"""The numbers the page shows from the simulator, each with where it is and what it is: for every
trace a panel draws, its requests' latencies and counts and the run's totals (the values a
caption may bind, `trace_values`); the walkthrough's without/with table; the ruler's cells. The
review lists those that changed since the last publish ("D's TTFT 8.8 → 9.6 ms").
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.artifacts.review import NumberChange, ShownNumber
from pipeline.artifacts.sim import SimResults, trace_values
from pipeline.config import PageConfig
from pipeline.plan.model import Plan
from pipeline.render.page import walkthrough_table
from pipeline.render.walkthrough import time_unit

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
}
RUN_LABELS = {
    "steps": "steps",
    "tokens": "tokens computed",
    "preempted": "preemptions",
    "duration": "duration",
    "throughput": "output throughput",
    "min_free_blocks": "fewest free KV blocks",
}
TIMED = frozenset({"arrival", "first_token", "finish", "ttft", "tpot", "e2el", "duration"})
UNIT_WORDS = {"step": "steps", "ms": "ms", "s": "s"}


def page_numbers(
    plan: Plan, sim: SimResults, config: PageConfig | None = None
) -> list[ShownNumber]:
    """Every simulator number on the page, in page order."""
    users: dict[str, list[str]] = {}
    for i, concept in enumerate(plan.concepts):
        for side, panel in (("trouble", concept.trouble), ("fix", concept.fix)):
            if sim.panel_trace(panel) is not None:
                name = f"{panel.scenario}/{panel.variant}"
                users.setdefault(name, []).append(f"card {i + 1} {concept.name} ({side})")
    out = []
    for name, where in users.items():
        trace = sim.traces[name]
        unit = UNIT_WORDS.get(time_unit(trace), "")
        place = f"{'; '.join(where)} · {name}"
        for key, value in trace_values(trace).items():
            out.append(
                ShownNumber(
                    key=f"{name}:{key}",
                    where=place,
                    label=_label(key),
                    value=value,
                    unit=_unit(key, unit),
                )
            )
    for row in walkthrough_table(plan, config or PageConfig(), sim):
        for side, value in (("without", row.without), ("with", row.with_)):
            out.append(
                ShownNumber(
                    key=f"walkthrough:{row.label}:{side}",
                    where="walkthrough table",
                    label=f"{row.label}, {side}",
                    value=value,
                )
            )
    out += _ruler_numbers(plan, sim)
    return out


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


def _ruler_numbers(plan: Plan, sim: SimResults) -> list[ShownNumber]:
    techniques = {t.id: t for t in (sim.sweep.techniques if sim.sweep else ())}
    out = []
    for concept in plan.concepts:
        tech = techniques.get(concept.technique or "")
        if tech is None:
            continue
        for metric in plan.ruler.metrics:
            pct = tech.change_pct.get(metric.id)
            if pct is not None:
                out.append(
                    ShownNumber(
                        key=f"ruler:{concept.id}:{metric.id}",
                        where="ruler",
                        label=f"{concept.name}: {metric.name}",
                        value=f"{pct:+.0f}%",
                    )
                )
    return out


def number_changes(
    before: Sequence[ShownNumber], after: Sequence[ShownNumber]
) -> list[NumberChange]:
    """The numbers whose value changed, appeared or went, in page order."""
    old = {n.key: n for n in before}
    new_keys = {n.key for n in after}
    out = [
        NumberChange(
            key=n.key,
            where=n.where,
            label=n.label,
            before=old[n.key].value if n.key in old else None,
            after=n.value,
            unit=n.unit,
        )
        for n in after
        if n.key not in old or old[n.key].value != n.value
    ]
    out += [
        NumberChange(
            key=n.key, where=n.where, label=n.label, before=n.value, after=None, unit=n.unit
        )
        for n in before
        if n.key not in new_keys
    ]
    return out
