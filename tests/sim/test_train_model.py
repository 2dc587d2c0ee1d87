"""The training cost and memory model against the formulas it cites, worked by hand:
Korthikanti et al.'s activations, the ZeRO paper's 16Ψ, FSDP's 1.5× DP volume, MFU, links."""

from __future__ import annotations

from typing import Any

import pytest

from sim.cost.data import gpu_table
from sim.training.memory import layer_activation_bytes
from sim.training.parse import parse_train_workload
from sim.training.presets import train_preset
from sim.training.run import run_training
from sim.training.topology import group_links

GPT3_LAYER = {
    "layers": 96,
    "hidden": 12288,
    "heads": 96,
    "kv_heads": 96,
    "ffn": 49152,
    "vocab": 50257,
}


def workload(**edits: Any) -> dict[str, Any]:
    w: dict[str, Any] = {
        "model": "llama-3-8b",
        "hardware": {"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 1},
        "parallel": {"dp": 8},
        "batch": {"global_batch": 8, "micro_batch": 1, "seq_len": 2048},
        "cost": {"kind": "roofline", "efficiency": 0.5, "overlap": False},
    }
    w.update(edits)
    return w


@pytest.mark.parametrize(
    ("tp", "sp", "recompute", "per_sbh"),
    [
        (1, False, "none", 34 + 80),  # 5·a·s/h = 5·96·2048/12288 = 80
        (8, False, "none", 10 + 24 / 8 + 80 / 8),
        (8, True, "none", 114 / 8),
        (8, False, "selective", 10 + 24 / 8),
        (8, True, "selective", 34 / 8),
        (1, False, "full", 2),
        (8, True, "full", 2 / 8),
    ],
)
def test_activations_are_korthikantis(tp: int, sp: bool, recompute: str, per_sbh: float) -> None:
    w = parse_train_workload(
        workload(
            model=GPT3_LAYER,
            hardware={"gpu": "a100-80gb", "gpus_per_node": 8, "nodes": 1},
            parallel={"tp": tp, "dp": 8 // tp, "sequence_parallel": sp},
            recompute=recompute,
        )
    )
    assert layer_activation_bytes(w) == pytest.approx(per_sbh * 2048 * 1 * 12288)


def test_1f1b_holds_pp_minus_rank_microbatches_gpipe_all() -> None:
    one = run_training(train_preset("pipeline-1f1b"))
    gpipe = run_training(train_preset("pipeline-gpipe"))
    assert [one["memory"][r]["microbatches_held"] for r in "0123"] == [4, 3, 2, 1]
    assert [gpipe["memory"][r]["microbatches_held"] for r in "0123"] == [8] * 4
    per_layer = one["memory"]["0"]["activation_per_layer"]
    assert one["memory"]["0"]["activations"] == pytest.approx(4 * 8 * per_layer, abs=1)


@pytest.mark.parametrize(
    ("zero", "paper", "deepspeed"),
    [(0, 16, 20), (1, 4 + 12 / 8, 4 + 16 / 8), (2, 2 + 14 / 8, 2 + 18 / 8), (3, 16 / 8, 18 / 8)],
)
def test_model_states_per_parameter(zero: int, paper: float, deepspeed: float) -> None:
    """ZeRO paper: 2Ψ + 2Ψ + 12Ψ sharded by stage; DeepSpeed adds the fp32 gradient partition."""
    for accounting, per_param in (("zero_paper", paper), ("deepspeed", deepspeed)):
        w = workload(parallel={"dp": 8, "zero": zero}, accounting=accounting)
        mem = run_training(w)["memory"]["0"]
        states = mem["params"] + mem["grads"] + mem["optimizer"]
        assert states == pytest.approx(per_param * mem["param_count"], rel=1e-9)
        assert mem["buffers"] == (
            0 if zero < 3 or accounting == "zero_paper" else 4 * 128256 * 4096
        )


def test_mfu_equals_the_efficiency_when_nothing_else_costs() -> None:
    w = workload(
        parallel={"dp": 1},
        hardware={"gpu": "h100-sxm", "gpus_per_node": 1, "nodes": 1},
        batch={"global_batch": 4, "micro_batch": 1, "seq_len": 2048},
    )
    step = run_training(w)["step"]
    assert step["step_time"] == pytest.approx(step["compute"])
    assert step["mfu"] == pytest.approx(0.5, rel=1e-12)
    full = run_training({**w, "recompute": "full"})["step"]
    assert full["mfu"] < step["mfu"]  # recomputation costs time, not model FLOPs


def test_dp_all_reduce_and_fsdps_volume() -> None:
    gpu = gpu_table("h100-sxm")
    plain = run_training(workload())
    psi = plain["memory"]["0"]["param_count"]
    n, bus, alpha = 8, gpu["link_bandwidth"], gpu["nvlink_ring_step_latency"]
    expected = 2 * (n - 1) / n * 2 * psi / bus + 2 * (n - 1) * alpha
    assert plain["step"]["comm"]["dp"] == pytest.approx(expected, rel=1e-12)
    assert plain["step"]["exposed"]["dp"] == pytest.approx(expected)  # overlap off
    fsdp = run_training(workload(parallel={"dp": 8, "zero": 3}))
    assert fsdp["step"]["comm"]["dp"] == 0
    assert fsdp["step"]["comm"]["fsdp"] == pytest.approx(1.5 * expected, rel=1e-9)


def test_overlap_hides_dp_traffic_behind_the_last_backward() -> None:
    hidden = run_training(workload(cost={"kind": "roofline", "efficiency": 0.5}))["step"]
    assert hidden["exposed"]["dp"] == 0 and hidden["comm"]["dp"] > 0
    assert hidden["step_time"] == pytest.approx(hidden["compute"])


def test_links_follow_the_tp_dp_pp_layout() -> None:
    w = parse_train_workload(
        workload(
            hardware={"gpu": "h100-sxm", "gpus_per_node": 8, "nodes": 2},
            parallel={"tp": 2, "dp": 2, "pp": 4},
            batch={"global_batch": 8, "micro_batch": 1, "seq_len": 2048},
        )
    )
    links = group_links(w.parallel, w.hardware)
    assert (links.tp.name, links.dp.name) == ("nvlink", "nvlink")
    # pipeline ranks hold GPUs 0-3, 4-7 | 8-11, 12-15: only ranks 1 and 2 cross the node border
    assert {pair: link.name for pair, link in links.pp.items()} == {
        (0, 1): "nvlink",
        (1, 0): "nvlink",
        (1, 2): "network",
        (2, 1): "network",
        (2, 3): "nvlink",
        (3, 2): "nvlink",
        (3, 0): "network",
        (0, 3): "network",
    }
    assert links.dp.bandwidth == 450e9 and links.p2p(1, 2).bandwidth == 50e9


def test_tp_all_reduces_four_per_layer_per_microbatch() -> None:
    out = run_training(train_preset("llama-3-70b-64xh100"))
    (tp,) = [c for c in out["collectives"] if c["kind"] == "tp"]
    assert tp["op"] == "all_reduce" and tp["group"] == 8 and tp["link"] == "nvlink"
    assert tp["per_step"] == 4 * (80 // 4) * 32
    assert tp["bytes"] == 2 * 1 * 8192 * 8192
