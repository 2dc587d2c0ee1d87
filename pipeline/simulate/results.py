"""The sim stage: run every simulator scenario the plan's panels name, plus the ruler's sweep.

Writes one JSON trace per scenario variant under `output/<name>/sim/` and hands the drawing stages
a `SimResults`. Captions' placeholders (`{D.ttft}`) are filled from these traces, never typed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.atomic import write_atomic
from pipeline.errors import SimulationFailed
from pipeline.plan.model import Panel, Plan

Trace = dict[str, Any]

# Per-request trace fields a caption may name, e.g. `{D.ttft}`.
REQUEST_FIELDS = (
    "arrival",
    "first_token",
    "finish",
    "output_tokens",
    "ttft",
    "tpot",
    "e2el",
    "preemptions",
    "prefix_hit_tokens",
)


def scenario_catalogue() -> dict[str, str]:
    """Scenario id → one-line description, as the simulator defines them."""
    from sim.presets.scenarios import SCENARIOS

    return {sid: f"{s.title}: {s.description}" for sid, s in SCENARIOS.items()}


def format_number(value: float) -> str:
    """Whole numbers as integers, others with one decimal: small enough to check by hand."""
    if value is None:
        return "?"
    rounded = round(float(value), 1)
    return str(int(rounded)) if rounded == int(rounded) else f"{rounded:.1f}"


def trace_values(trace: Trace) -> dict[str, str]:
    """The placeholder values a trace offers: `X.field` per request, plus page-wide figures."""
    values: dict[str, str] = {}
    for rid, req in trace.get("requests", {}).items():
        for name in REQUEST_FIELDS:
            if req.get(name) is not None:
                values[f"{rid}.{name}"] = format_number(req[name])
        first_sched = next(
            (s["index"] for s in trace["steps"] if rid in s.get("scheduled", {})), None
        )
        if first_sched is not None:
            values[f"{rid}.first_step"] = str(first_sched)
            values[f"{rid}.wait"] = format_number(first_sched - 1 - req.get("arrival", 0.0))
    steps = trace.get("steps", [])
    values["steps"] = str(len(steps))
    values["tokens"] = str(sum(sum(s.get("scheduled", {}).values()) for s in steps))
    values["preempted"] = str(sum(len(s.get("preempted", [])) for s in steps))
    summary = trace.get("summary", {})
    if summary.get("duration") is not None:
        values["duration"] = format_number(summary["duration"])
    if summary.get("output_throughput") is not None:
        values["throughput"] = format_number(summary["output_throughput"])
    if "free_blocks" in (steps[0] if steps else {}):
        values["min_free_blocks"] = str(min(s["free_blocks"] for s in steps))
    for key, val in trace.get("figures", {}).items():
        if isinstance(val, int | float):
            values[key] = format_number(val)
    return values


@dataclass
class SimResults:
    """Traces by `scenario/variant`, and the ruler's sweep."""

    traces: dict[str, Trace] = field(default_factory=dict)
    sweep: dict[str, Any] | None = None

    def trace(self, scenario: str, variant: str) -> Trace | None:
        return self.traces.get(f"{scenario}/{variant}")

    def panel_trace(self, panel: Panel) -> Trace | None:
        if panel.scenario is None or panel.variant is None:
            return None
        return self.trace(panel.scenario, panel.variant)

    def values(self, panel: Panel) -> Mapping[str, str]:
        trace = self.panel_trace(panel)
        return trace_values(trace) if trace else {}


def needed_presets(plan: Plan) -> list[str]:
    """Every `scenario/variant` the page draws: all panels, and both variants of the
    walkthrough concept's scenario (its comparison table needs the pair)."""
    names: set[str] = set()
    for _path, _concept, panel in plan.panels():
        if panel.scenario and panel.variant:
            names.add(f"{panel.scenario}/{panel.variant}")
    stuck = plan.concept(plan.walkthrough.concept)
    if stuck is not None:
        for panel in (stuck.trouble, stuck.fix):
            if panel.scenario:
                names.update({f"{panel.scenario}/without", f"{panel.scenario}/with"})
    return sorted(names)


def run_sim(plan: Plan, out_dir: Path | None = None) -> SimResults:
    """Run the presets the plan needs and the ruler sweep; write them under `out_dir` if given.
    A simulator error becomes `SimulationFailed` naming what was being run."""
    from sim.errors import SimError
    from sim.presets.scenarios import run_preset
    from sim.presets.sweep import sweep

    results = SimResults()
    running = "the ruler's sweep"
    try:
        for running in needed_presets(plan):
            results.traces[running] = run_preset(running, detail=True)
        running = "the ruler's sweep"
        results.sweep = sweep()
    except SimError as err:
        raise SimulationFailed(f"the simulator could not run {running}: {err}") from None
    if out_dir is not None:
        write_results(results, out_dir)
    return results


def write_results(results: SimResults, out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, trace in results.traces.items():
        _write_json(out_dir / (name.replace("/", "--") + ".json"), trace)
    if results.sweep is not None:
        _write_json(out_dir / "sweep.json", results.sweep)


def load_results(out_dir: Path) -> SimResults:
    results = SimResults()
    for path in sorted(out_dir.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if path.name == "sweep.json":
            results.sweep = data
        else:
            results.traces[path.stem.replace("--", "/")] = data
    return results


def _write_json(path: Path, data: object) -> None:
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
