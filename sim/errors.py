"""The simulator's exception tree; the CLI turns each into one line and an exit code.

SimError                    base class, never raised directly
├── WorkloadError           a workload (JSON or dict) is invalid; carries the JSON path
│   └── LimitExceeded       a workload passes a bound of `sim.limits` (requests, tokens, steps)
├── PresetNotFound          `run_preset` / `--preset` got an unknown name
└── SimulationError         the engine met a case vLLM itself refuses (padding under a small threshold)
"""

from __future__ import annotations


class SimError(Exception):
    """Base class of every error the simulator raises on purpose."""


class WorkloadError(SimError):
    """Raised when a workload is invalid: unknown field, bad type or value, duplicate id.

    `path` is a JSON path into the workload such as ``requests[2].prompt_tokens``.
    """

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class LimitExceeded(WorkloadError):
    """Raised when a workload passes a bound of `sim.limits`, before the work (or the step)
    that would pass it; the message names the bound."""


class PresetNotFound(SimError):
    """Raised when a preset name (``<scenario>/<variant>`` or ``golden-N``) is unknown."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"unknown preset {name!r}; known: {', '.join(known)}")
        self.name = name


class SimulationError(SimError):
    """Raised when a run reaches a state the real engine does not support: vLLM 0.32 fails an
    assertion when it pads a request to 1 + k tokens under a long-prefill threshold below 1 + k
    (SIM-specdecode.md). Step bounds are `LimitExceeded`."""
