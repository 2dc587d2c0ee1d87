"""The serving field's engine: the bundled vLLM-exact simulator (`sim/`), run on the page's
presets (`sim.presets`) with the knobs a panel sets, and the ruler's sweep. Results are cached
by content, in the process and on disk (`pipeline.fields.cache`)."""

from __future__ import annotations

from typing import Any

from pipeline.fields.base import Run, content_key
from pipeline.fields.cache import CacheStats, remembered, workload_key
from pipeline.plan.model import Panel

FIELD_ID = "serving"
SWEEP = "sweep"


def panel_run(panel: Panel, variant: str | None = None) -> Run | None:
    """The run that draws `panel` (or its scenario's other `variant`, same knobs)."""
    chosen = variant or panel.variant
    if panel.scenario is None or chosen is None:
        return None
    return Run(panel.scenario, chosen, tuple(sorted(panel.knob_values().items())))


def run_workload_json(run: Run) -> dict[str, Any]:
    """The workload of one run: the preset with the run's knobs applied."""
    from sim.presets.knobs import apply_knobs
    from sim.presets.scenarios import preset_workload

    return dict(
        apply_knobs(run.scenario, run.variant, preset_workload(run.preset), dict(run.knobs))
    )


def run_content(run: Run) -> str:
    """The run's workload as text, for the sim stage's key (a bad run is reported by the stage)."""
    return content_key(lambda: run_workload_json(run))


def run_trace(run: Run, stats: CacheStats | None = None) -> dict[str, Any]:
    """The trace of one run (`SimError` if the simulator refuses it), cached by content: in
    this process, and on disk across builds."""
    from sim.presets.scenarios import run_preset

    return dict(
        remembered(
            run,
            lambda: workload_key(f"preset:{run.scenario}", run_workload_json(run)),
            lambda: run_preset(run.preset, detail=True, knobs=dict(run.knobs)),
            stats,
        )
    )


def sweep_key() -> str:
    """The sweep's content: every named workload and technique pair (`sweep_spec`)."""
    from sim.presets.sweep import sweep_spec

    return workload_key("sweep", sweep_spec())


def sweep_json(stats: CacheStats | None = None) -> dict[str, Any]:
    """The ruler's sweep, run once per process (and read from the disk cache across builds)."""
    from sim.presets.sweep import sweep

    return dict(remembered((FIELD_ID, SWEEP), sweep_key, sweep, stats))
