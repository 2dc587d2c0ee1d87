"""`sim train` against the real implementations' goldens (tests/sim/golden_train/, recorded by
tests/sim/oracles/record_training_goldens.py from torch 2.13, DeepSpeed and nccl-tests), and
against Narayanan et al.'s bubble formula under the unit cost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sim import collectives
from sim.training.parse import parse_train_workload
from sim.training.run import run_training
from sim.training.schedules import rank_orders

GOLDEN = Path(__file__).resolve().parent / "golden_train"


def _golden(name: str) -> dict[str, Any]:
    return json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))


ORDERS = _golden("orders")
MEMORY = _golden("memory")
COLLECTIVES = _golden("collectives")


def _pipeline(schedule: str, pp: int, m: int, v: int, cost: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": {"layers": 48, "hidden": 64, "heads": 4, "kv_heads": 4, "ffn": 256, "vocab": 512},
        "hardware": {"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 1},
        "parallel": {"dp": 8 // pp, "pp": pp, "schedule": schedule, "virtual_stages": v},
        "batch": {"global_batch": m * (8 // pp), "micro_batch": 1, "seq_len": 32},
        "cost": cost,
    }


def test_the_goldens_cover_the_done_when_grid() -> None:
    grid = {(c["schedule"], c["pp"], c["m"] // c["pp"], c["v"]) for c in ORDERS["cases"]}
    for pp in (2, 4, 8):
        for k in (1, 2, 4):
            assert {("gpipe", pp, k, 1), ("1f1b", pp, k, 1)} <= grid
            assert {("interleaved_1f1b", pp, k, v) for v in (1, 2)} <= grid
    assert ORDERS["oracle"].startswith("torch 2.13")


@pytest.mark.parametrize(
    "case", ORDERS["cases"], ids=lambda c: f"{c['schedule']}-p{c['pp']}-m{c['m']}-v{c['v']}"
)
def test_orders_equal_torch(case: dict[str, Any]) -> None:
    ours = rank_orders(case["schedule"], case["pp"], case["m"], case["v"])
    for rank, torch_order in case["orders"].items():
        assert [list(a) for a in ours[int(rank)]] == torch_order, f"rank {rank}"


@pytest.mark.parametrize(
    "case", ORDERS["cases"][::3], ids=lambda c: f"{c['schedule']}-p{c['pp']}-m{c['m']}-v{c['v']}"
)
def test_the_cli_prints_torchs_order(case: dict[str, Any]) -> None:
    """The command's `pipeline_order` (not only the function) is torch's order."""
    out = run_training(
        _pipeline(case["schedule"], case["pp"], case["m"], case["v"], {"kind": "unit"})
    )
    assert out["pipeline_order"] == case["orders"]


@pytest.mark.parametrize("pp", [2, 4, 8])
@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize(
    ("schedule", "v"), [("gpipe", 1), ("1f1b", 1), ("interleaved_1f1b", 1), ("interleaved_1f1b", 2)]
)
@pytest.mark.parametrize("fb", [(1, 2), (1, 1)])
def test_unit_cost_bubble_is_narayanans(
    pp: int, k: int, schedule: str, v: int, fb: tuple[int, int]
) -> None:
    """(p-1)/(m+p-1) of the span, i.e. (p-1)/m of the ideal time; divided by v interleaved."""
    m = k * pp
    cost = {"kind": "unit", "forward": fb[0], "backward": fb[1]}
    out = run_training(_pipeline(schedule, pp, m, v, cost))
    expected = (pp - 1) / (v * m + pp - 1)
    assert out["bubble_fraction"] == pytest.approx(expected, rel=1e-12)
    ideal = m * sum(fb)
    assert out["span"] - ideal == pytest.approx((pp - 1) * sum(fb) / v, rel=1e-12)


def _zero_workload(model: str, per_node: int, nodes: int, zero: int) -> dict[str, Any]:
    gpus = per_node * nodes
    return {
        "model": model,
        "hardware": {"gpu": "h200", "gpus_per_node": per_node, "nodes": nodes},
        "parallel": {"dp": gpus, "zero": zero},
        "batch": {"global_batch": gpus, "micro_batch": 1, "seq_len": 128},
        "cost": {"kind": "unit"},
    }


def _model_states(out: dict[str, Any]) -> int:
    mem = out["memory"]["0"]
    return int(mem["total"]) - int(mem["activations"])


@pytest.mark.parametrize(
    "case", MEMORY["cases"], ids=lambda c: f"{c['model']}-{c['gpus_per_node']}x{c['nodes']}"
)
@pytest.mark.parametrize("zero", [2, 3])
def test_model_states_within_1pct_of_deepspeed(case: dict[str, Any], zero: int) -> None:
    out = run_training(_zero_workload(case["model"], case["gpus_per_node"], case["nodes"], zero))
    assert _model_states(out) == pytest.approx(case[f"zero{zero}"], rel=0.01)


def test_the_shape_counts_the_parameters_deepspeed_counts() -> None:
    """A model given by its shape: parameter count and largest layer exactly DeepSpeed's on the
    real module, and the GB its `_all_live` estimators print (2 decimals)."""
    live = MEMORY["live"]
    model = parse_train_workload(
        {**_zero_workload("llama-3-8b", 4, 1, 2), "model": live["model"]}
    ).model
    assert model.params == live["total_params"]
    assert model.largest_module_params == live["largest_layer_params"]
    for zero in (2, 3):
        out = run_training({**_zero_workload("llama-3-8b", 4, 1, zero), "model": live["model"]})
        assert _model_states(out) == pytest.approx(live[f"zero{zero}"], rel=0.01)
        assert _model_states(out) / 2**30 == pytest.approx(
            live["printed_gb"][f"zero{zero}"], abs=0.006
        )


def test_table_models_match_the_real_modules_parameter_counts() -> None:
    for case in MEMORY["cases"]:
        model = parse_train_workload(_zero_workload(case["model"], 1, 1, 0)).model
        assert model.params == pytest.approx(case["total_params"], rel=0.001)
        assert model.counted_params == pytest.approx(case["total_params"], rel=0.001)
        assert model.largest_module_params == case["largest_layer_params"]


_OPS = {
    "all_reduce": collectives.all_reduce_time,
    "all_gather": collectives.all_gather_time,
    "reduce_scatter": collectives.reduce_scatter_time,
}


@pytest.mark.parametrize("case", COLLECTIVES["cases"], ids=lambda c: f"{c['op']}-n{c['n']}")
def test_collective_times_are_nccl_tests_bus_bandwidth(case: dict[str, Any]) -> None:
    if case["op"] == "send_recv":
        ours = collectives.p2p_time(case["bytes"], case["bus_bandwidth"])
    else:
        ours = _OPS[case["op"]](case["bytes"], case["n"], case["bus_bandwidth"])
    assert ours == pytest.approx(case["time"], rel=1e-12)


def test_alpha_is_paid_once_per_ring_step() -> None:
    n, alpha = 8, 3e-6
    assert collectives.all_reduce_time(1e9, n, 1e11, alpha) == pytest.approx(
        collectives.all_reduce_time(1e9, n, 1e11) + 2 * (n - 1) * alpha
    )
    for op in (collectives.all_gather_time, collectives.reduce_scatter_time):
        assert op(1e9, n, 1e11, alpha) == pytest.approx(op(1e9, n, 1e11) + (n - 1) * alpha)
    assert collectives.all_reduce_time(1e9, 1, 1e11, alpha) == 0.0
