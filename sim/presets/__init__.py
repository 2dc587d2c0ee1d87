"""Presets: the workloads the page draws, built on the engine but unknown to it.

`cast` is the fixed comic cast (A, B, C old requests, D the newcomer), `scenarios` the
without/with pairs and `golden-N` presets, `sweep` the ruler's seeded workload and techniques.
The engine (`sim.engine`, `sim.schedulers`, `sim.kv`, `sim.cost`, ...) never imports this package.
"""
