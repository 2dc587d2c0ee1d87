"""The sim stage's work: run every simulator scenario the plan's panels name (with the knobs each
panel sets), plus the ruler's sweep.

Hands back a `SimResults` (`pipeline.artifacts.sim`, which also stores it under
`output/<name>/sim/`). Captions' placeholders (`{D.ttft}`) are filled from these traces, never typed.
Runs are cached in the process by their content (preset + knobs), and the sweep once, so the
validator, the repair loop and the stage can ask for the same runs without paying twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.artifacts.sim import SimResults, trace_key
from pipeline.errors import SimulationFailed
from pipeline.plan.model import Panel, Plan
from pipeline.simulate.cache import CacheStats, cached, sweep_key, workload_key

RUN_CACHE_SIZE = 256


@dataclass(frozen=True)
class Run:
    """One simulator run the page needs: a preset and the knobs set on it."""

    scenario: str
    variant: str
    knobs: tuple[tuple[str, float], ...] = ()

    @property
    def key(self) -> str:
        return trace_key(self.scenario, self.variant, dict(self.knobs))

    @property
    def preset(self) -> str:
        return f"{self.scenario}/{self.variant}"


def panel_run(panel: Panel, variant: str | None = None) -> Run | None:
    """The run that draws `panel` (or its scenario's other `variant`, same knobs)."""
    chosen = variant or panel.variant
    if panel.scenario is None or chosen is None:
        return None
    return Run(panel.scenario, chosen, tuple(sorted(panel.knob_values().items())))


def needed_runs(plan: Plan) -> list[Run]:
    """Every run the page draws: all panels, and both variants of the walkthrough concept's
    scenario with the knobs of the panel it is read from (its comparison table needs the pair)."""
    runs: set[Run] = set()
    for _path, _concept, panel in plan.panels():
        run = panel_run(panel)
        if run is not None:
            runs.add(run)
    stuck = plan.concept(plan.walkthrough.concept)
    if stuck is not None:
        for panel in (stuck.trouble, stuck.fix):
            for variant in ("without", "with"):
                run = panel_run(panel, variant)
                if run is not None:
                    runs.add(run)
    return sorted(runs, key=lambda r: r.key)


def runs_key(plan: Plan) -> list[str]:
    """The content of every workload the page needs (preset + knobs applied), for the stage's
    cache key: a changed preset or knob re-runs the stage, a renamed concept does not."""
    from sim.presets.knobs import apply_knobs
    from sim.presets.scenarios import preset_workload

    out = []
    for run in needed_runs(plan):
        try:
            workload = apply_knobs(
                run.scenario, run.variant, preset_workload(run.preset), dict(run.knobs)
            )
        except Exception as err:  # noqa: BLE001 - a bad run is reported by the stage itself
            workload = {"error": str(err)}
        out.append(json.dumps(workload, sort_keys=True))
    return out


def run_workload_json(run: Run) -> dict[str, Any]:
    """The workload of one run: the preset with the run's knobs applied."""
    from sim.presets.knobs import apply_knobs
    from sim.presets.scenarios import preset_workload

    return dict(
        apply_knobs(run.scenario, run.variant, preset_workload(run.preset), dict(run.knobs))
    )


# Results already read or simulated in this process, as JSON text by run (or "sweep"): the
# validator, the repair loop and the stage ask for the same runs. Later processes are served by
# the disk cache (`pipeline.simulate.cache`), keyed by the workload's content.
_MEMO: dict[Run | str, str] = {}
SWEEP = "sweep"


def _remembered(
    name: Run | str, key: Callable[[], str], compute: Callable[[], Any], stats: CacheStats | None
) -> Any:
    text = _MEMO.get(name)
    if text is None:
        text = json.dumps(cached(key(), compute, stats))
        if len(_MEMO) >= RUN_CACHE_SIZE:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[name] = text
    return json.loads(text)


def forget_runs() -> None:
    """Drop what this process remembers (the disk cache stays)."""
    _MEMO.clear()


def run_trace(run: Run, stats: CacheStats | None = None) -> dict[str, Any]:
    """The trace of one run (`SimError` if the simulator refuses it), cached by content: in
    this process, and on disk across builds."""
    from sim.presets.scenarios import run_preset

    return dict(
        _remembered(
            run,
            lambda: workload_key(f"preset:{run.scenario}", run_workload_json(run)),
            lambda: run_preset(run.preset, detail=True, knobs=dict(run.knobs)),
            stats,
        )
    )


def sweep_json(stats: CacheStats | None = None) -> dict[str, Any]:
    """The ruler's sweep, run once per process (and read from the disk cache across builds)."""
    from sim.presets.sweep import sweep

    return dict(_remembered(SWEEP, sweep_key, sweep, stats))


def run_sim(
    plan: Plan, out_dir: Path | None = None, *, stats: CacheStats | None = None
) -> SimResults:
    """Run the presets the plan needs and the ruler sweep, each read from the cache when the
    same workload ran before on the same simulator (`pipeline.simulate.cache`); save them under
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
        results = SimResults(traces, sweep_json(stats))
    except SimError as err:
        raise SimulationFailed(f"the simulator could not run {running}: {err}") from None
    if out_dir is not None:
        results.save(out_dir)
    return results
