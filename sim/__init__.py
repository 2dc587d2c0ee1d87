"""tujie's batching simulator: schedules like the vLLM V1 scheduler, step by step.

Public surface: `run_workload`, `load_workload_file` and the exceptions in `sim.errors`; the
page's presets (cast, scenarios, sweep) live in `sim.presets`. The training simulator is
`sim.training` (`sim.training.run.run_training`, `python -m sim train`), the communication
model both share `sim.collectives`. Everything else is internal.
"""

from sim.api import load_workload_file, run_workload
from sim.errors import LimitExceeded, PresetNotFound, SimError, SimulationError, WorkloadError

__all__ = [
    "LimitExceeded",
    "PresetNotFound",
    "SimError",
    "SimulationError",
    "WorkloadError",
    "load_workload_file",
    "run_workload",
]
