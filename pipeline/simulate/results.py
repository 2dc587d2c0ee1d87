"""The sim stage's work: every engine run the plan's panels need (with the knobs each panel
sets, by each concept's field: `pipeline.fields`), plus the ruler's sweep.

Hands back a `SimResults` (`pipeline.artifacts.sim`, which also stores it under
`output/<name>/sim/`). Captions' placeholders (`{D.ttft}`) are filled from these results, never
typed. Runs are cached by content (`pipeline.fields.cache`), so the validator, the repair loop
and the stage can ask for the same runs without paying twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline import fields
from pipeline.artifacts.sim import SimResults
from pipeline.errors import SimulationFailed
from pipeline.fields import Run
from pipeline.fields.cache import CacheStats, forget_runs
from pipeline.plan.model import Plan

__all__ = ["Run", "forget_runs", "needed_runs", "run_sim", "run_trace", "runs_key", "sweep_json"]


def needed_runs(plan: Plan) -> list[Run]:
    """Every run the page draws: all panels, and both variants of the walkthrough concept's
    scenario with the knobs of the panel it is read from (its comparison table needs the pair)."""
    runs: set[Run] = set()
    for _path, concept, panel in plan.panels():
        run = fields.panel_run(plan, concept, panel)
        if run is not None:
            runs.add(run)
    stuck = plan.concept(plan.walkthrough.concept)
    if stuck is not None:
        for panel in (stuck.trouble, stuck.fix):
            for variant in ("without", "with"):
                run = fields.panel_run(plan, stuck, panel, variant)
                if run is not None:
                    runs.add(run)
    return sorted(runs, key=lambda r: r.key)


def runs_key(plan: Plan) -> list[str]:
    """The content of every run the page needs (preset + knobs applied) and whose sweep the
    ruler reads, for the stage's cache key: a changed preset, knob or ruler field re-runs the
    stage, a renamed concept does not."""
    runs = [fields.field(run.field).run_content(run) for run in needed_runs(plan)]
    return [*runs, "sweep:" + ",".join(sweep_fields(plan))]


def run_trace(run: Run, stats: CacheStats | None = None) -> dict[str, Any]:
    """The result of one run (its engine's error if the engine refuses it), cached by content."""
    return dict(fields.run_result(run, stats))


def sweep_json(stats: CacheStats | None = None, plan: Plan | None = None) -> dict[str, Any]:
    """The ruler's sweep, run once per process and cached on disk: that of the field whose
    cards name techniques, since a training card's technique is measured only by the training
    sweep (serving's without a plan, or when no card names one; several fields' merged)."""
    owners: list[str | None] = [*sweep_fields(plan)] if plan is not None else []
    measured = [m for fid in owners or [None] if (m := fields.field(fid).sweep(stats))]
    if len(measured) == 1:
        return dict(measured[0])
    return _merged(measured)


def sweep_fields(plan: Plan) -> list[str]:
    """The fields whose sweep the ruler reads: those of the cards that name a technique."""
    return [fid for fid in fields.page_fields(plan)
            if any(c.technique and fields.concept_field(c) == fid for c in plan.concepts)]


def _merged(sweeps: list[Any]) -> dict[str, Any]:
    """One sweep holding every technique and metric of `sweeps` (a page mixing fields)."""
    if not sweeps:
        return {}
    metrics = [m for s in sweeps for m in s.get("metrics", [])]
    return {
        **dict(sweeps[0]),
        "metrics": list(dict.fromkeys(metrics)),
        "techniques": [t for s in sweeps for t in s.get("techniques", [])],
    }


def run_sim(
    plan: Plan, out_dir: Path | None = None, *, stats: CacheStats | None = None
) -> SimResults:
    """Run the presets the plan needs and the ruler sweep, each read from the cache when the
    same workload ran before on the same simulator (`pipeline.fields.cache`); save them under
    `out_dir` if given. `stats` counts cache hits and simulations. A simulator error becomes
    `SimulationFailed` naming what was being run."""
    from sim.errors import SimError

    running = "the ruler's sweep"
    try:
        traces = {}
        for run in needed_runs(plan):
            running = run.key
            traces[run.key] = run_trace(run, stats)
        running = "the ruler's sweep"
        results = SimResults(traces, sweep_json(stats, plan))
    except SimError as err:
        raise SimulationFailed(f"the simulator could not run {running}: {err}") from None
    if out_dir is not None:
        results.save(out_dir)
    return results
