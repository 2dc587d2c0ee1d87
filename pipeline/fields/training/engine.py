"""The training field's engine: `sim train` (`sim/training/`) on the page's scenarios
(`sim.presets.training`) with the knobs a panel sets, and the ruler's sweep
(`sim.presets.training_sweep`). Results are cached by content, in the process and on disk
(`pipeline.fields.cache`), keyed by the workloads a run needs and the simulator's code."""

from __future__ import annotations

from typing import Any

from pipeline.fields.base import Run, content_key
from pipeline.fields.cache import CacheStats, remembered, workload_key
from pipeline.plan.model import Panel

FIELD_ID = "training"
SWEEP = "sweep"


def panel_run(panel: Panel, variant: str | None = None) -> Run | None:
    """The run that draws `panel` (or its scenario's other `variant`, same knobs)."""
    chosen = variant or panel.variant
    if panel.scenario is None or chosen is None:
        return None
    return Run(panel.scenario, chosen, tuple(sorted(panel.knob_values().items())), FIELD_ID)


def run_workloads(run: Run) -> list[dict[str, Any]]:
    """The `sim train` workloads of one run (a bad scenario or knob: the engine's KnobError)."""
    from sim.presets.training import scenario_workloads

    return scenario_workloads(run.scenario, run.variant, dict(run.knobs))


def run_content(run: Run) -> str:
    """The run's workloads as text, for the sim stage's key (a bad run is reported by the stage)."""
    return content_key(lambda: run_workloads(run))


def run_result(run: Run, stats: CacheStats | None = None) -> dict[str, Any]:
    """The `sim train` output of one run (`SimError` if the engine refuses it), cached by
    content: in this process, and on disk across builds."""
    from sim.presets.training import run_scenario

    return dict(
        remembered(
            (FIELD_ID, run),
            lambda: workload_key(f"training:{run.scenario}/{run.variant}", run_workloads(run)),
            lambda: run_scenario(run.scenario, run.variant, dict(run.knobs)),
            stats,
        )
    )


def sweep_key() -> str:
    """The sweep's content: every technique's pair of workloads."""
    from sim.presets.training_sweep import TECHNIQUES

    pairs = [{"id": t.id, "baseline": t.baseline(), "variant": t.variant()} for t in TECHNIQUES]
    return workload_key("training:sweep", pairs)


def sweep_json(stats: CacheStats | None = None) -> dict[str, Any]:
    """The ruler's sweep, run once per process (and read from the disk cache across builds)."""
    from sim.presets.training_sweep import training_sweep

    return dict(remembered((FIELD_ID, SWEEP), sweep_key, training_sweep, stats))
