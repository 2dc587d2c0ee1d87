"""The `Catalogue` (`pipeline.plan.catalogue`) filled with what only the simulator knows: every
scenario's title and description, its knobs and their preset values, the value each placeholder
takes in each preset variant (`trace_values` of the preset's trace), and the ruler sweep's
techniques. Built once per process; the prompt, the validator and the renderer read it.
"""

from __future__ import annotations

from functools import cache

from pipeline.artifacts.sim import trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.plan.catalogue import (
    DRAWN_BY,
    Catalogue,
    KnobEntry,
    ScenarioEntry,
    TechniqueEntry,
    placeholder_entries,
)
from pipeline.simulate.results import Run, run_trace

VARIANTS = ("without", "with")


def time_unit(trace: TraceView) -> str:
    """The scenario's clock as the prompt names it: ms for timed cost models, else steps."""
    return "ms" if trace.cost.time_unit == "ms" else "steps"


@cache
def catalogue() -> Catalogue:
    """Every scenario and technique the simulator offers, with the registry's data."""
    from sim.presets.scenarios import SCENARIOS
    from sim.presets.sweep import FIELD_TECHNIQUES, METRICS, TECHNIQUES

    scenarios: dict[str, ScenarioEntry] = {}
    for sid, scenario in SCENARIOS.items():
        traces = {v: TraceView.from_json(run_trace(Run(sid, v))) for v in VARIANTS}
        values = {v: trace_values(t) for v, t in traces.items()}
        order = list(dict.fromkeys(r for t in traces.values() for r in t.requests))
        unit = time_unit(traces["with"])
        knobs = tuple(
            KnobEntry(
                k.id,
                k.meaning,
                k.unit,
                k.low,
                k.high,
                k.integer,
                k.variants,
                (k.preset_value(scenario.variants["without"]),
                 k.preset_value(scenario.variants["with"])),
            )
            for k in scenario.knobs
        )
        scenarios[sid] = ScenarioEntry(
            sid,
            scenario.title,
            scenario.description,
            DRAWN_BY.get(sid, ()),
            unit,
            placeholder_entries(values, order, unit),
            knobs,
        )
    techniques = tuple(TechniqueEntry(tid, label) for tid, label, _b, _v in TECHNIQUES)
    techniques += tuple(TechniqueEntry(t.id, t.label) for t in FIELD_TECHNIQUES)
    return Catalogue(scenarios, techniques, tuple(METRICS))
