"""How long each pipeline action takes, and the communication a step needs, under a cost model.

`unit` (comics and conformance): F and B of a rank's micro-batch take ``forward`` and
``backward`` (split evenly over its virtual stages; full recomputation adds one forward to each
B), a cross-rank transfer ``p2p``; no other communication.

`roofline` (a model on real GPUs):
- compute: F of a stage = its matmul FLOPs (2 per parameter per token: its blocks, plus the
  output layer on the last stage) plus attention's ``4·b·s²·h`` per layer, divided by tp, at
  ``efficiency`` × the GPU's dense bf16 peak; B = 2 F; full recomputation adds an F to every
  B, selective the attention part of one (Korthikanti et al. 2022);
- tp (Megatron-LM): two all-reduces of the ``b·s·h`` bf16 activations per layer in F, two in
  B (two more when full recomputation re-runs the forward); never hidden behind compute;
- pp: the activations (forward) or their gradients (backward), ``2·b·s·h/tp`` bytes (split over
  tp ranks, as Megatron's scatter-gather and sequence parallelism do), over the link between
  the two ranks;
- dp, once per step: ZeRO-0/1 all-reduce the bf16 grads (2Ψ bytes); ZeRO-2 reduce-scatters
  them in every B (they are sharded, so each micro-batch's must be reduced, as DeepSpeed does)
  and all-gathers the updated params after the step;
- fsdp (ZeRO-3), per micro-batch: all-gather the params in F and again in B, reduce-scatter the
  grads in B (1.5× the DP volume per micro-batch).
With ``overlap`` (default), traffic that real engines overlap is hidden behind the compute it
overlaps with and only the excess shows: ZeRO-2/3 traffic behind its own F or B, the
once-per-step dp traffic behind the rank's last B. Without it, all of it is exposed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sim.collectives import Link, all_gather_on, all_reduce_on, p2p_on, reduce_scatter_on
from sim.training.memory import BF16, stage_params
from sim.training.spec import TrainWorkload
from sim.training.timeline import StageCosts
from sim.training.topology import group_links

COMM_KINDS = ("dp", "fsdp", "tp", "pp")


@dataclass
class RankCosts:
    """One pipeline rank's totals over a step (seconds, or units under the unit cost):
    `comm` all of each kind's traffic, `exposed` the part not hidden behind compute (pp's is
    filled in from the timeline's waits)."""

    compute: float = 0.0
    comm: dict[str, float] = field(default_factory=lambda: dict.fromkeys(COMM_KINDS, 0.0))
    exposed: dict[str, float] = field(default_factory=lambda: dict.fromkeys(COMM_KINDS, 0.0))
    dp_tail: float = 0.0  # exposed once-per-step dp traffic after the rank's last B


@dataclass(frozen=True)
class StepCosts:
    """Durations for the timeline, per-rank totals, and the collectives of pipeline rank 0's
    GPUs (every rank runs the same kinds)."""

    stages: StageCosts
    ranks: list[RankCosts]
    collectives: list[dict[str, object]]


def _recv_flags(stages: int, pp: int) -> tuple[list[bool], list[bool]]:
    """Whether stage s's F input (from s-1) and B input (from s+1) cross ranks."""
    if pp == 1:
        return [False] * stages, [False] * stages
    return [s > 0 for s in range(stages)], [s < stages - 1 for s in range(stages)]


def _unit(w: TrainWorkload) -> StepCosts:
    par, cost, m = w.parallel, w.cost, w.batch.microbatches
    v, stages = par.virtual_stages, par.stages
    f = cost.forward / v
    b = (cost.backward + (cost.forward if w.recompute == "full" else 0.0)) / v
    cross_f, cross_b = _recv_flags(stages, par.pp)
    recv_f = [cost.p2p if c else 0.0 for c in cross_f]
    recv_b = [cost.p2p if c else 0.0 for c in cross_b]
    ranks = [RankCosts(compute=m * v * (f + b)) for _ in range(par.pp)]
    for s in range(stages):
        ranks[s % par.pp].comm["pp"] += m * (recv_f[s] + recv_b[s])
    return StepCosts(StageCosts([f] * stages, [b] * stages, recv_f, recv_b), ranks, [])


def _collective(
    kind: str, op: str, n: int, link: Link, nbytes: float, seconds: float, per_step: int
) -> dict[str, object]:
    return {
        "kind": kind,
        "op": op,
        "group": n,
        "link": link.name,
        "bus_bandwidth": link.bandwidth,
        "bytes": round(nbytes),
        "time": seconds,
        "per_step": per_step,
    }


def _hidden(comm: float, window: float, overlap: bool) -> float:
    """The part of `comm` left exposed when it can overlap a `window` of compute."""
    return max(0.0, comm - window) if overlap else comm


def _roofline(w: TrainWorkload) -> StepCosts:
    par, model, hw = w.parallel, w.model, w.hardware
    links = group_links(par, hw)
    m, pp, tp, dp, zero = w.batch.microbatches, par.pp, par.tp, par.dp, par.zero
    overlap, full = w.cost.overlap, w.recompute == "full"
    tokens = w.batch.micro_batch * w.batch.seq_len
    rate = hw.peak_flops * w.cost.efficiency
    act_bytes = BF16 * tokens * model.hidden  # one micro-batch's activations, bf16
    attention = 4.0 * w.batch.micro_batch * w.batch.seq_len**2 * model.hidden / tp / rate
    tp_ar = all_reduce_on(act_bytes, tp, links.tp)
    cross_f, cross_b = _recv_flags(par.stages, pp)
    stages = stage_params(model, par.stages)
    fwd: list[float] = []
    bwd: list[float] = []
    recv_f: list[float] = []
    recv_b: list[float] = []
    ranks = [RankCosts() for _ in range(pp)]
    collectives: list[dict[str, object]] = []
    tp_per_layer = 4 + (2 if full else 0)
    if tp > 1:
        count = tp_per_layer * sum(stages[k * pp].layers for k in range(par.virtual_stages)) * m
        collectives.append(_collective("tp", "all_reduce", tp, links.tp, act_bytes, tp_ar, count))
    for s, st in enumerate(stages):
        rank, rc = s % pp, ranks[s % pp]
        head = model.embedding_params if s == par.stages - 1 else 0
        f_compute = 2.0 * tokens * (st.layers * model.layer_params + head) / tp / rate
        f_compute += st.layers * attention
        b_compute = 2.0 * f_compute + (f_compute if full else 0.0)
        if w.recompute == "selective":
            b_compute += st.layers * attention
        tp_f = 2 * st.layers * tp_ar
        tp_b = (tp_per_layer - 2) * st.layers * tp_ar
        shard = BF16 * st.params / tp  # this stage's bf16 params (or grads) on one tp rank
        gather = all_gather_on(shard, dp, links.dp) if zero >= 3 else 0.0
        scatter = reduce_scatter_on(shard, dp, links.dp) if zero >= 2 else 0.0
        exp_f = _hidden(gather, f_compute, overlap)
        exp_b = _hidden(gather + scatter, b_compute, overlap)
        fwd.append(f_compute + tp_f + exp_f)
        bwd.append(b_compute + tp_b + exp_b)
        p2p_bytes = act_bytes / tp
        recv_f.append(p2p_on(p2p_bytes, links.p2p((s - 1) % pp, rank)) if cross_f[s] else 0.0)
        recv_b.append(p2p_on(p2p_bytes, links.p2p((s + 1) % pp, rank)) if cross_b[s] else 0.0)
        rc.compute += m * (f_compute + b_compute)
        rc.comm["tp"] += m * (tp_f + tp_b)
        rc.exposed["tp"] += m * (tp_f + tp_b)
        rc.comm["pp"] += m * (recv_f[-1] + recv_b[-1])
        sharded = "fsdp" if zero >= 3 else "dp"
        rc.comm[sharded] += m * (2 * gather + scatter)
        rc.exposed[sharded] += m * (exp_f + exp_b)
        if rank == 0 and zero >= 2 and dp > 1:
            if zero >= 3:
                collectives.append(
                    _collective("fsdp", "all_gather", dp, links.dp, shard, gather, 2 * m)
                )
            collectives.append(
                _collective(sharded, "reduce_scatter", dp, links.dp, shard, scatter, m)
            )
    for rank, rc in enumerate(ranks):
        own = range(rank, par.stages, pp)
        grad_bytes = sum(BF16 * stages[s].params / tp for s in own)
        step = 0.0
        if dp > 1 and zero <= 2:
            collective = all_reduce_on if zero <= 1 else all_gather_on
            step = collective(grad_bytes, dp, links.dp)
            if rank == 0:
                op = "all_reduce" if zero <= 1 else "all_gather"
                collectives.append(_collective("dp", op, dp, links.dp, grad_bytes, step, 1))
        rc.comm["dp"] += step
        # The once-per-step traffic can hide behind the last backward the rank runs.
        rc.dp_tail = _hidden(step, bwd[own[0]], overlap)
        rc.exposed["dp"] += rc.dp_tail
    if pp > 1:
        p2p_bytes = act_bytes / tp
        link = links.p2p(0, 1 % pp)
        count = m * sum(cross_f[s] + cross_b[s] for s in range(0, par.stages, pp))
        collectives.append(
            _collective("pp", "send_recv", 2, link, p2p_bytes, p2p_on(p2p_bytes, link), count)
        )
    return StepCosts(StageCosts(fwd, bwd, recv_f, recv_b), ranks, collectives)


def step_costs(w: TrainWorkload) -> StepCosts:
    """Durations and communication of one step under the workload's cost model."""
    return _unit(w) if w.cost.kind == "unit" else _roofline(w)
