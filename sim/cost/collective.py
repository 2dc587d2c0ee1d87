"""The time of one all-reduce, the only collective the serving simulator needs.

Alpha-beta form: a fixed latency per call plus the ring's ``2 (n - 1) / n`` share of the
message over the link's bandwidth (nccl-tests' PERFORMANCE.md relates this bus bandwidth to
the algorithm bandwidth). The training simulator's ring collectives are to call this same
function once both land; keep it the one place an all-reduce is priced.
"""

from __future__ import annotations

from collections.abc import Mapping


def allreduce_seconds(nbytes: float, n_gpus: int, link: Mapping[str, float]) -> float:
    """Seconds for one all-reduce of `nbytes` over `n_gpus` joined by `link`
    (``{"latency": s, "bandwidth": bytes/s}``); nothing to do on one GPU."""
    if n_gpus <= 1:
        return 0.0
    share = 2.0 * (n_gpus - 1) / n_gpus
    return float(link["latency"]) + share * nbytes / float(link["bandwidth"])
