"""Scheduling policies, chosen by name from `SCHEDULERS` (no if-chains in the engine)."""

from collections.abc import Callable

from sim.schedulers.base import Scheduler, SchedulerState, StepPlan
from sim.schedulers.no_kv_cache import NoKVCacheScheduler
from sim.schedulers.prefill_first import PrefillFirstScheduler
from sim.schedulers.static import StaticScheduler
from sim.schedulers.vllm import VllmScheduler

SCHEDULERS: dict[str, Callable[[], Scheduler]] = {
    "vllm": VllmScheduler,
    "static": StaticScheduler,
    "prefill_first": PrefillFirstScheduler,
    "no_kv_cache": NoKVCacheScheduler,
}

__all__ = ["SCHEDULERS", "Scheduler", "SchedulerState", "StepPlan"]
