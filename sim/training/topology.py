"""Where each GPU sits, and which link each parallel group's traffic crosses.

Ranks are laid out as Megatron-LM does by default (order ``tp-dp-pp``): tensor-parallel ranks
are neighbours, then data-parallel replicas, then pipeline stages, so global rank
``g = t + tp · (d + dp · p)``. GPU ``g`` is in node ``g // gpus_per_node``. A group whose
members are all in one node talks over NVLink; one spanning nodes is held to the network's
per-GPU bandwidth, the slower link it crosses (`sim.collectives.slowest`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.collectives import Link, slowest
from sim.training.spec import Hardware, Parallel


def _spans_nodes(first: int, last: int, gpus_per_node: int) -> bool:
    return first // gpus_per_node != last // gpus_per_node


def _group_link(starts: range | list[int], stride: int, size: int, hw: Hardware) -> Link:
    """The link of the slowest group of one kind (all of them run their collective at once)."""
    if size <= 1:
        return hw.nvlink
    last = (size - 1) * stride
    if any(_spans_nodes(s, s + last, hw.gpus_per_node) for s in starts):
        return slowest((hw.nvlink, hw.network))
    return hw.nvlink


@dataclass(frozen=True)
class GroupLinks:
    """The link each kind of group runs on."""

    tp: Link
    dp: Link
    pp: dict[tuple[int, int], Link]  # (from pipeline rank, to pipeline rank) -> link

    def p2p(self, src: int, dst: int) -> Link:
        return self.pp[(src, dst)]


def group_links(par: Parallel, hw: Hardware) -> GroupLinks:
    """Links of the tp groups, the dp groups and every pair of neighbouring pipeline ranks."""
    tp, dp, pp = par.tp, par.dp, par.pp
    tp_starts = range(0, tp * dp * pp, tp)
    dp_starts = [t + tp * dp * p for p in range(pp) for t in range(tp)]
    block = tp * dp  # GPUs per pipeline rank
    pairs: dict[tuple[int, int], Link] = {}
    for src in range(pp):
        for dst in {(src + 1) % pp, (src - 1) % pp}:
            if dst == src:
                continue
            shift = (dst - src) * block  # a GPU's partner on the other pipeline rank
            crosses = any(
                _spans_nodes(g, g + shift, hw.gpus_per_node)
                for g in range(src * block, (src + 1) * block)
            )
            pairs[(src, dst)] = slowest((hw.nvlink, hw.network)) if crosses else hw.nvlink
    return GroupLinks(
        tp=_group_link(tp_starts, 1, tp, hw),
        dp=_group_link(dp_starts, tp, dp, hw),
        pp=pairs,
    )
