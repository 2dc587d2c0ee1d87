"""Collective and point-to-point communication times: the ring alpha-beta model.

Small pure functions shared by the training simulator (`sim.training`) and the serving cost
model's tensor-parallel all-reduce (`sim.cost.collective`, which uses the same ring factor with a
per-call latency fitted to measurements). Sizes are bytes, bandwidths bytes/s, times seconds.

The bandwidth term follows nccl-tests' doc/PERFORMANCE.md: a collective on ``n`` ranks whose
links run at bus bandwidth ``B`` moves ``S`` bytes in ``t = S / B · factor``, with factor
``2(n-1)/n`` for all-reduce and ``(n-1)/n`` for all-gather and reduce-scatter, where ``S`` is
the size of the WHOLE array (for all-gather the gathered output, ``sendcount · n`` elements;
for reduce-scatter the input, ``recvcount · n``), exactly as nccl-tests' ``AllReduceGetBw``,
``AllGatherGetBw`` and ``ReduceScatterGetBw`` turn a measured time into "busbw". A send/recv
moves ``S`` bytes at the link's bandwidth (factor 1, ``SendRecvGetBw``).

The latency term is a ring's: every one of the ``2(n-1)`` (all-reduce) or ``(n-1)``
(all-gather, reduce-scatter) steps pays ``alpha`` once (SIM-TRAINING.md). A group whose members
sit on several nodes runs at the slowest link it crosses (`slowest`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Link:
    """One kind of link as a collective sees it: bus bandwidth (bytes/s, one direction, per
    GPU) and the latency of one ring step (seconds)."""

    name: str
    bandwidth: float
    alpha: float


def slowest(links: Iterable[Link]) -> Link:
    """The link that sets a group's time: the lowest bandwidth (then the highest latency)."""
    return min(links, key=lambda link: (link.bandwidth, -link.alpha))


def all_reduce_factor(n: int) -> float:
    """nccl-tests' bus-bandwidth factor of all-reduce on `n` ranks: 2(n-1)/n."""
    return 2.0 * (n - 1) / n


def gather_factor(n: int) -> float:
    """nccl-tests' factor of all-gather and reduce-scatter on `n` ranks: (n-1)/n."""
    return (n - 1) / n


def all_reduce_time(nbytes: float, n: int, bus_bandwidth: float, alpha: float = 0.0) -> float:
    """Ring all-reduce of an `nbytes` array on `n` ranks: 2(n-1)/n · S/B + 2(n-1)·alpha."""
    if n <= 1 or nbytes <= 0:
        return 0.0
    return all_reduce_factor(n) * nbytes / bus_bandwidth + 2 * (n - 1) * alpha


def all_gather_time(nbytes: float, n: int, bus_bandwidth: float, alpha: float = 0.0) -> float:
    """Ring all-gather whose gathered output is `nbytes`: (n-1)/n · S/B + (n-1)·alpha."""
    if n <= 1 or nbytes <= 0:
        return 0.0
    return gather_factor(n) * nbytes / bus_bandwidth + (n - 1) * alpha


def reduce_scatter_time(nbytes: float, n: int, bus_bandwidth: float, alpha: float = 0.0) -> float:
    """Ring reduce-scatter of an `nbytes` input: (n-1)/n · S/B + (n-1)·alpha (the all-reduce's
    first half: an all-reduce is a reduce-scatter then an all-gather)."""
    return all_gather_time(nbytes, n, bus_bandwidth, alpha)


def p2p_time(nbytes: float, bandwidth: float, alpha: float = 0.0) -> float:
    """One send/recv of `nbytes` over one link: S/B + alpha."""
    if nbytes <= 0:
        return 0.0
    return nbytes / bandwidth + alpha


def all_reduce_on(nbytes: float, n: int, link: Link) -> float:
    """`all_reduce_time` over `link`."""
    return all_reduce_time(nbytes, n, link.bandwidth, link.alpha)


def all_gather_on(nbytes: float, n: int, link: Link) -> float:
    """`all_gather_time` over `link`."""
    return all_gather_time(nbytes, n, link.bandwidth, link.alpha)


def reduce_scatter_on(nbytes: float, n: int, link: Link) -> float:
    """`reduce_scatter_time` over `link`."""
    return reduce_scatter_time(nbytes, n, link.bandwidth, link.alpha)


def p2p_on(nbytes: float, link: Link) -> float:
    """`p2p_time` over `link`."""
    return p2p_time(nbytes, link.bandwidth, link.alpha)
