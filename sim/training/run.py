"""One training step, end to end: parse, orders, timeline, memory, step time; the JSON output.

Output keys (SIM-TRAINING.md "Contract"; ranks are pipeline ranks, as strings):
``pipeline_order``, ``timeline``, ``bubble_fraction``, ``memory``, ``step``; and, for the
pictures, ``bubble_formula`` (Narayanan et al.'s ``(p-1)/(v·m + p-1)``), ``memory_peak``,
``collectives`` (each collective of rank 0's GPUs: op, group size, link, bytes, time, count per
step), ``links`` and the normalised ``workload``.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from sim.training.costs import COMM_KINDS, StepCosts, step_costs
from sim.training.memory import memory_per_rank
from sim.training.parse import parse_train_workload
from sim.training.schedules import Action, rank_orders
from sim.training.spec import TrainWorkload
from sim.training.timeline import Timeline, run_orders
from sim.training.topology import group_links


def model_flops_per_token(w: TrainWorkload) -> float:
    """The FLOPs MFU counts per token, recomputation excluded: 6 per matmul parameter (2 in
    the forward, 4 in the backward) plus attention's 12·L·h·s (PaLM, Chowdhery et al. 2022,
    appendix B). The matmul parameters are the blocks and the output layer: the spec's 6Ψ
    without the input embedding, a table lookup that multiplies nothing (Narayanan et al.
    2021, eq. 3, count the same), so MFU cannot exceed the roofline's efficiency."""
    m = w.model
    matmul = m.layers * m.layer_params + m.embedding_params
    return 6.0 * matmul + 12.0 * m.layers * m.hidden * w.batch.seq_len


def _timeline_json(orders: list[list[Action]], tl: Timeline) -> dict[str, list[dict[str, Any]]]:
    return {
        str(rank): [
            {"kind": k, "stage": s, "microbatch": mb, "start": start, "end": end}
            for (k, s, mb), start, end in zip(order, tl.starts[rank], tl.ends[rank], strict=True)
        ]
        for rank, order in enumerate(orders)
    }


def _step_json(w: TrainWorkload, costs: StepCosts, tl: Timeline) -> dict[str, Any]:
    finish = [
        (tl.ends[r][-1] if tl.ends[r] else 0.0) + costs.ranks[r].dp_tail
        for r in range(w.parallel.pp)
    ]
    critical = max(range(len(finish)), key=lambda r: finish[r])
    rc = costs.ranks[critical]
    rc.exposed["pp"] = tl.p2p_wait[critical]
    step_time = finish[critical]
    exposed = sum(rc.exposed[k] for k in COMM_KINDS)
    tokens = w.batch.global_batch * w.batch.seq_len
    unit = w.cost.kind == "unit"
    flops = model_flops_per_token(w)
    mfu = None
    if not unit and step_time > 0:
        mfu = flops * tokens / (step_time * w.hardware.gpus * w.hardware.peak_flops)
    return {
        "compute": rc.compute,
        "comm": {k: rc.comm[k] for k in COMM_KINDS},
        "exposed": {k: rc.exposed[k] for k in COMM_KINDS},
        "exposed_comm": exposed,
        "bubble": max(0.0, step_time - rc.compute - exposed),
        "step_time": step_time,
        "tokens": tokens,
        "tokens_per_s": tokens / step_time if step_time > 0 else 0.0,
        "mfu": mfu,
        "model_flops_per_token": flops,
        "critical_rank": critical,
        "time_unit": "unit" if unit else "s",
    }


def _workload_json(w: TrainWorkload) -> dict[str, Any]:
    out: dict[str, Any] = {
        "model": asdict(w.model),
        "hardware": {
            "gpu": w.hardware.gpu,
            "gpus_per_node": w.hardware.gpus_per_node,
            "nodes": w.hardware.nodes,
            "gpus": w.hardware.gpus,
            "peak_flops": w.hardware.peak_flops,
            "hbm": w.hardware.hbm_bytes,
        },
        "parallel": asdict(w.parallel),
        "batch": asdict(w.batch),
        "precision": w.precision,
        "recompute": w.recompute,
        "cost": asdict(w.cost),
        "accounting": w.accounting,
    }
    return out


def simulate_step(w: TrainWorkload) -> dict[str, Any]:
    """The output object for a parsed workload."""
    par, m = w.parallel, w.batch.microbatches
    orders = rank_orders(par.schedule, par.pp, m, par.virtual_stages)
    costs = step_costs(w)
    tl = run_orders(orders, m, costs.stages)
    memory = memory_per_rank(w, orders)
    peak = max(range(par.pp), key=lambda r: int(memory[r]["total"]))  # type: ignore[call-overload]
    links = group_links(par, w.hardware)
    p = par.pp
    out: dict[str, Any] = {
        "workload": _workload_json(w),
        "pipeline_order": {str(r): [list(a) for a in order] for r, order in enumerate(orders)},
        "timeline": _timeline_json(orders, tl),
        "span": tl.span,
        "bubble_fraction": tl.bubble_fraction,
        "bubble_formula": (p - 1) / (par.virtual_stages * m + p - 1),
        "memory": {str(r): mem for r, mem in enumerate(memory)},
        "memory_peak": {
            "rank": peak,
            "total": memory[peak]["total"],
            "hbm": w.hardware.hbm_bytes,
            "fits": all(bool(mem["fits"]) for mem in memory),
        },
        "links": {
            "tp": links.tp.name,
            "dp": links.dp.name,
            "pp": sorted({link.name for link in links.pp.values()}),
        },
        "collectives": costs.collectives,
        "step": _step_json(w, costs, tl),
    }
    if w.scenario is not None:
        out["scenario"] = w.scenario
    return out


def run_training(data: Any) -> dict[str, Any]:
    """Validate `data` (workload JSON), check its bounds, simulate one step; the output."""
    return simulate_step(parse_train_workload(data))
