"""The sim stage's work: run every simulator scenario the plan's panels name, plus the ruler's sweep.

Hands back a `SimResults` (`pipeline.artifacts.sim`, which also stores it under
`output/<name>/sim/`). Captions' placeholders (`{D.ttft}`) are filled from these traces, never typed.
"""

from __future__ import annotations

import functools
from pathlib import Path

from pipeline.artifacts.sim import SimResults
from pipeline.errors import SimulationFailed
from pipeline.plan.model import Plan
from pipeline.simulate.cache import CacheStats, cached, preset_key, sweep_key


def scenario_catalogue() -> dict[str, str]:
    """Scenario id → one-line description, as the simulator defines them."""
    from sim.presets.scenarios import SCENARIOS

    return {sid: f"{s.title}: {s.description}" for sid, s in SCENARIOS.items()}


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


def run_sim(
    plan: Plan, out_dir: Path | None = None, *, stats: CacheStats | None = None
) -> SimResults:
    """Run the presets the plan needs and the ruler sweep, each read from the cache when the
    same workload ran before on the same simulator (`pipeline.simulate.cache`); save them under
    `out_dir` if given. `stats` counts cache hits and simulations. A simulator error becomes
    `SimulationFailed` naming what was being run."""
    from sim.errors import SimError
    from sim.presets.scenarios import run_preset
    from sim.presets.sweep import sweep

    running = "the ruler's sweep"
    try:
        traces = {}
        for running in needed_presets(plan):
            run = functools.partial(run_preset, running, detail=True)
            traces[running] = cached(preset_key(running), run, stats)
        running = "the ruler's sweep"
        results = SimResults(traces, cached(sweep_key(), sweep, stats))
    except SimError as err:
        raise SimulationFailed(f"the simulator could not run {running}: {err}") from None
    if out_dir is not None:
        results.save(out_dir)
    return results
