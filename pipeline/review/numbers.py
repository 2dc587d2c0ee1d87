"""The numbers the page shows from the simulator, each with where it is and what it is: for every
trace a panel draws, its requests' latencies and counts and the run's totals (the values a
caption may bind, `trace_values`); the walkthrough's without/with table; the ruler's cells and
the baselines and workloads listed under it. The review lists those that changed since the last
publish ("D's TTFT 8.8 → 9.6 ms").
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline import fields
from pipeline.artifacts.review import NumberChange, ShownNumber
from pipeline.artifacts.sim import SimResults
from pipeline.config import PageConfig
from pipeline.draw.ruler_rows import ruler_table
from pipeline.plan.model import Plan
from pipeline.render.page import walkthrough_table
from pipeline.render.ruler_runs import ruler_runs


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
    out += _ruler_numbers(plan, sim) + _ruler_run_numbers(plan, sim)
    return out


def _ruler_numbers(plan: Plan, sim: SimResults) -> list[ShownNumber]:
    """Each measured ruler cell: the change it prints, labelled with the statistic it shows,
    its baseline and workload, and the absolute numbers behind it ("P99 ITL 180.5 → 18.1 ms"),
    so a review sees what a moved percentage means."""
    if sim.sweep is None:
        return []
    units = _units(sim)
    out = []
    for row in ruler_table(plan, sim.sweep):
        tech = row.technique
        if tech is None:
            continue
        where = f"ruler · vs {tech.baseline_label or tech.label}"
        where += f" on {tech.workload}" if tech.workload else ""
        for cell in row.cells:
            key = tech.key(cell.metric.id)
            before, after = tech.absolute(cell.metric.id)
            shown = f"{cell.metric.name} {cell.note}".strip()
            if before is not None and after is not None:
                shown += f" ({before:g} → {after:g} {units.get(key.removesuffix('_p99'), '')})"
            out.append(
                ShownNumber(
                    key=f"ruler:{row.concept.id}:{cell.metric.id}",
                    where=where,
                    label=f"{row.concept.name}: {shown.strip()}",
                    value=cell.text,
                )
            )
    return out


def _ruler_run_numbers(plan: Plan, sim: SimResults) -> list[ShownNumber]:
    """The lines under the ruler: each row's baseline and each workload, whose numbers (request
    counts, rates, lengths, targets, a baseline's context) are the sweep's own inputs. Listed so
    the page's every number has a source and a review sees a workload that changed."""
    runs = ruler_runs(plan, sim.sweep) if sim.sweep is not None else None
    if runs is None:
        return []
    out = [ShownNumber(key=f"ruler-runs:row:{line.name}", where="under the ruler",
                       label=line.name, value=line.text) for line in runs.rows]
    out += [ShownNumber(key=f"ruler-runs:workload:{line.title}", where="under the ruler",
                        label=line.title, value=line.description) for line in runs.workloads]
    return out


def _units(sim: SimResults) -> dict[str, str]:
    workload = (sim.sweep_json or {}).get("workload")
    units = workload.get("units") if isinstance(workload, dict) else None
    return {str(k): str(v) for k, v in units.items()} if isinstance(units, dict) else {}


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
