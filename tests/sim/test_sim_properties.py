"""Property tests over random small workloads: SIM.md invariants, conservation, fast == plain."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from simprops import SETTINGS, SHARED

from sim import run_workload
from sim.trace import trace_hash
from sim.workload import parse_workload


@st.composite
def workloads(draw: st.DrawFn, policy: str = "vllm") -> dict[str, Any]:
    max_num_seqs = draw(st.integers(1, 4))
    chunked = draw(st.booleans()) if policy == "vllm" else True
    mml = draw(st.sampled_from([32, 64]))
    budget = draw(st.integers(max(max_num_seqs, 4), 48))
    if not chunked:
        budget = max(budget, mml)
    engine = {
        "policy": policy,
        "max_num_batched_tokens": budget,
        "max_num_seqs": max_num_seqs,
        "block_size": draw(st.sampled_from([1, 2, 4, 16])),
        "num_blocks": draw(st.integers(2, 40)),
        "max_model_len": mml,
        "enable_chunked_prefill": chunked,
        "enable_prefix_caching": draw(st.booleans()) if policy == "vllm" else False,
        "long_prefill_token_threshold": draw(st.sampled_from([0, 0, 3, 8])),
        "preemption": draw(st.sampled_from(["recompute", "recompute", "none"])),
    }
    requests = []
    for i in range(draw(st.integers(1, 6))):
        prompt = draw(st.integers(1, 30))
        item: dict[str, Any] = {
            "id": f"R{i}",
            "arrival": draw(st.integers(0, 6)) / 2,
            "max_tokens": draw(st.integers(1, 12)),
        }
        if draw(st.booleans()):
            shared = draw(st.integers(0, min(prompt, len(SHARED))))
            item["prompt_ids"] = SHARED[:shared] + [
                1000 * (i + 1) + j for j in range(prompt - shared)
            ]
        else:
            item["prompt_tokens"] = prompt
        requests.append(item)
    return {
        "engine": engine,
        "cost": {"kind": draw(st.sampled_from(["unit", "linear"]))},
        "requests": requests,
    }


def fits_alone(w: dict[str, Any], req: dict[str, Any]) -> bool:
    e = w["engine"]
    prompt = req.get("prompt_tokens") or len(req["prompt_ids"])
    need = -(-min(prompt + req["max_tokens"], e["max_model_len"]) // e["block_size"])
    return need <= e["num_blocks"]


def check_invariants(w: dict[str, Any], trace: dict[str, Any]) -> None:
    e = w["engine"]
    prev_running: list[str] = []
    for step in trace["steps"]:
        assert sum(step["scheduled"].values()) <= e["max_num_batched_tokens"]
        assert len(step["running"]) <= e["max_num_seqs"]
        if step["preempted"]:
            assert set(step["scheduled"]) <= set(prev_running), "admission in a preemption step"
        # a block several requests share (a cached prefix) is one physical block: `shared`
        # says how many each group of holders shares, so the pool always adds up
        copies = sum((len(g["owners"]) - 1) * g["blocks"] for g in step.get("shared", ()))
        assert step["free_blocks"] + sum(step["blocks"].values()) - copies == e["num_blocks"]
        if not e["enable_prefix_caching"]:
            assert "shared" not in step
        assert step["free_blocks"] >= 0
        check_block_table(e, step)
        prev_running = step["running"]


def check_block_table(e: dict[str, Any], step: dict[str, Any]) -> None:
    """Each holder's block table has one pool position per block it holds; positions lie in the
    pool; two holders share a position only where `shared` says a cached prefix is shared."""
    table = step.get("block_table", {})
    assert {r: len(ids) for r, ids in table.items()} == step["blocks"]
    holders: dict[int, list[str]] = {}
    for rid, ids in table.items():
        assert len(set(ids)) == len(ids)
        for bid in ids:
            assert 0 <= bid < e["num_blocks"]
            holders.setdefault(bid, []).append(rid)
    groups: dict[frozenset[str], int] = {}
    for ids in holders.values():
        if len(ids) > 1:
            groups[frozenset(ids)] = groups.get(frozenset(ids), 0) + 1
    assert groups == {frozenset(g["owners"]): g["blocks"] for g in step.get("shared", ())}
    assert len(holders) + step["free_blocks"] == e["num_blocks"]


def check_requests(w: dict[str, Any], trace: dict[str, Any]) -> None:
    e = w["engine"]
    lost: dict[str, int] = {r["id"]: 0 for r in w["requests"]}
    scheduled = dict.fromkeys(lost, 0)
    prev_computed: dict[str, int] = {}
    for step in trace["steps"]:
        for rid in step["preempted"]:
            lost[rid] += prev_computed.get(rid, 0)
        for rid, n in step["scheduled"].items():
            scheduled[rid] += n
        prev_computed = step["computed"]
    for spec in w["requests"]:
        r = trace["requests"][spec["id"]]
        prompt = spec.get("prompt_tokens") or len(spec["prompt_ids"])
        assert len(r["token_times"]) == r["output_tokens"]
        assert r["token_times"] == sorted(r["token_times"])
        if r["finish"] is None:
            continue
        assert r["output_tokens"] == min(spec["max_tokens"], max(e["max_model_len"] - prompt, 1))
        assert r["ttft"] <= r["e2el"]
        # Token conservation: everything scheduled, plus cache hits, minus KV thrown away by
        # preemption, is the final computed count = prompt + outputs - 1.
        final = prompt + r["output_tokens"] - 1
        assert scheduled[spec["id"]] + r["prefix_hit_tokens"] - lost[spec["id"]] == final


@SETTINGS
@given(workloads())
def test_vllm_invariants_and_conservation(w: dict[str, Any]) -> None:
    trace = run_workload(w, detail=True)
    check_invariants(w, trace)
    check_requests(w, trace)
    if w["engine"]["preemption"] == "recompute" and all(fits_alone(w, r) for r in w["requests"]):
        assert not trace.get("stalled")
        assert all(r["finish"] is not None for r in trace["requests"].values())


@SETTINGS
@given(workloads())
def test_prefix_caching_changes_work_not_outputs(w: dict[str, Any]) -> None:
    w["engine"]["preemption"] = "recompute"
    on, off = copy.deepcopy(w), copy.deepcopy(w)
    on["engine"]["enable_prefix_caching"] = True
    off["engine"]["enable_prefix_caching"] = False
    t_on, t_off = run_workload(on), run_workload(off)
    if not t_on.get("stalled") and not t_off.get("stalled"):
        out_on = {k: r["output_tokens"] for k, r in t_on["requests"].items()}
        assert out_on == {k: r["output_tokens"] for k, r in t_off["requests"].items()}


@SETTINGS
@given(workloads())
def test_fast_path_equals_plain_loop(w: dict[str, Any]) -> None:
    w["engine"]["enable_prefix_caching"] = False
    w["engine"]["preemption"] = "recompute"
    from sim.fast import fast_applies

    assert fast_applies(parse_workload(w))
    assert trace_hash(run_workload(w)) == trace_hash(run_workload(w, fast=False))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["static", "prefill_first", "no_kv_cache"]).flatmap(lambda p: workloads(p)))
def test_other_policies_finish_or_stall_cleanly(w: dict[str, Any]) -> None:
    w["engine"]["preemption"] = "recompute"
    trace = run_workload(w, detail=True)
    e = w["engine"]
    for step in trace["steps"]:
        assert len(step["running"]) <= e["max_num_seqs"]
        assert step["free_blocks"] >= 0
    if not trace.get("stalled"):
        for spec in w["requests"]:
            r = trace["requests"][spec["id"]]
            assert r["finish"] is not None and r["ttft"] <= r["e2el"]
