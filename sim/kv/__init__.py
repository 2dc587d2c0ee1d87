"""KV-cache managers: paged blocks (with or without prefix caching), reserve-max, none."""

from sim.kv.managers import KV_MANAGERS, KVManager, build_kv_manager

__all__ = ["KV_MANAGERS", "KVManager", "build_kv_manager"]
