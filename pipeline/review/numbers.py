"""The numbers the page shows from the simulator, each with where it is and what it is: for every
trace a panel draws, its requests' latencies and counts and the run's totals (the values a
caption may bind, `trace_values`); the walkthrough's without/with table; the ruler's cells. The
review lists those that changed since the last publish ("D's TTFT 8.8 → 9.6 ms").
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline import fields
from pipeline.artifacts.review import NumberChange, ShownNumber
from pipeline.artifacts.sim import SimResults
from pipeline.config import PageConfig
from pipeline.plan.model import Plan
from pipeline.render.page import walkthrough_table


def page_numbers(
    plan: Plan, sim: SimResults, config: PageConfig | None = None
) -> list[ShownNumber]:
    """Every simulator number on the page, in page order."""
    users: dict[str, list[str]] = {}
    runs: dict[str, fields.Run] = {}
    for i, concept in enumerate(plan.concepts):
        for side, panel in (("trouble", concept.trouble), ("fix", concept.fix)):
            run = fields.panel_run(plan, concept, panel)
            if run is not None and run.key in sim.trace_json:
                runs[run.key] = run
                users.setdefault(run.key, []).append(f"card {i + 1} {concept.name} ({side})")
    out = []
    for name, where in users.items():
        place = f"{'; '.join(where)} · {name}"
        shown = fields.field(runs[name].field).numbers(sim.trace_json[name])
        for key, label, value, unit in shown:
            out.append(ShownNumber(key=f"{name}:{key}", where=place, label=label, value=value,
                                   unit=unit))
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
