"""The time of one tensor-parallel all-reduce, the only collective the serving simulator needs,
priced with the shared ring factor (`sim.collectives.all_reduce_factor`): a fixed latency per
call (fitted to measured small all-reduces, which NCCL runs with algorithms whose latency barely
grows with n) plus the ring's ``2 (n - 1) / n`` share of the message over the link's bandwidth (nccl-tests' PERFORMANCE.md
relates this bus bandwidth to the algorithm bandwidth).
"""

from __future__ import annotations

from collections.abc import Mapping


def allreduce_seconds(nbytes: float, n_gpus: int, link: Mapping[str, float]) -> float:
    """Seconds for one all-reduce of `nbytes` over `n_gpus` joined by `link`
    (``{"latency": s, "bandwidth": bytes/s}``); nothing to do on one GPU."""
    from sim.collectives import all_reduce_factor

    if n_gpus <= 1:
        return 0.0
    # `nbytes` may be an array (the fit prices every measurement at once)
    return float(link["latency"]) + all_reduce_factor(n_gpus) * nbytes / float(link["bandwidth"])
