"""tujie's batching simulator: schedules like the vLLM V1 scheduler, step by step.

Public surface: `run_workload`, `run_preset`, `SCENARIOS`, `PRESETS`, `sweep`, and the
exceptions in `sim.errors`. Everything else is internal.
"""

from sim.api import load_workload_file, run_workload
from sim.errors import PresetNotFound, SimError, SimulationError, WorkloadError

__all__ = [
    "PresetNotFound",
    "SimError",
    "SimulationError",
    "WorkloadError",
    "load_workload_file",
    "run_workload",
]
