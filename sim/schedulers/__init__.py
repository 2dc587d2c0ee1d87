"""Scheduling policies, chosen by name from `SCHEDULERS` (no if-chains in the engine)."""

from collections.abc import Callable

from sim.config import EngineConfig
from sim.schedulers.base import Scheduler, SchedulerState, StepPlan
from sim.schedulers.no_kv_cache import NoKVCacheScheduler
from sim.schedulers.prefill_first import PrefillFirstScheduler
from sim.schedulers.spec_decode import SpecDecodeScheduler
from sim.schedulers.static import StaticScheduler
from sim.schedulers.vllm import VllmScheduler

SCHEDULERS: dict[str, Callable[[], Scheduler]] = {
    "vllm": VllmScheduler,
    "static": StaticScheduler,
    "prefill_first": PrefillFirstScheduler,
    "no_kv_cache": NoKVCacheScheduler,
    "vllm_spec": SpecDecodeScheduler,  # policy vllm with num_speculative_tokens > 0
}


def scheduler_name(config: EngineConfig) -> str:
    """The registry key for a resolved engine configuration."""
    if config.policy == "vllm" and config.num_speculative_tokens > 0:
        return "vllm_spec"
    return config.policy


__all__ = ["SCHEDULERS", "Scheduler", "SchedulerState", "StepPlan", "scheduler_name"]
