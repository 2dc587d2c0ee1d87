"""Properties of multi-instance runs (disagg and colocated) over random small workloads:
every request finishes with its outputs, token times only grow, a disaggregated request's
KV leaves after its first token and arrives before its second, and steps never overlap on
one instance."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from sim import run_workload


@st.composite
def cluster_workloads(draw: st.DrawFn) -> dict[str, Any]:
    def pool() -> dict[str, Any]:
        return {
            "max_num_batched_tokens": draw(st.integers(8, 32)),
            "max_num_seqs": draw(st.integers(1, 4)),
            "block_size": draw(st.sampled_from([2, 4, 16])),
            "num_blocks": 64,
            "max_model_len": 64,
            "instances": draw(st.integers(1, 2)),
            "enable_prefix_caching": draw(st.booleans()),
        }

    if draw(st.booleans()):
        engine = {
            "policy": "disagg",
            "prefill": pool(),
            "decode": pool(),
            "transfer": {"steps": draw(st.integers(0, 3))},
        }
    else:
        engine = {**pool(), "instances": draw(st.integers(2, 3))}
    requests = [
        {
            "id": f"R{i}",
            "arrival": draw(st.integers(0, 6)) / 2,
            "prompt_tokens": draw(st.integers(1, 24)),
            "max_tokens": draw(st.integers(1, 10)),
        }
        for i in range(draw(st.integers(1, 6)))
    ]
    return {"engine": engine, "requests": requests}


@settings(max_examples=60, deadline=None)
@given(cluster_workloads())
def test_cluster_runs_finish_and_keep_their_clocks(w: dict[str, Any]) -> None:
    trace = run_workload(w)
    assert not trace.get("stalled")
    for spec in w["requests"]:
        r = trace["requests"][spec["id"]]
        assert r["output_tokens"] == spec["max_tokens"] == len(r["token_times"])
        assert r["token_times"] == sorted(r["token_times"]) and r["ttft"] <= r["e2el"]
        if "transfer" in r:
            start, end = r["transfer"]
            assert r["first_token"] == start <= end <= r["token_times"][1]
        elif w["engine"].get("policy") == "disagg":
            assert spec["max_tokens"] == 1  # only a one-token request never moves
    last_end: dict[str, float] = {}
    for step in trace["steps"]:
        assert step["start"] >= last_end.get(step["instance"], 0.0)
        last_end[step["instance"]] = step["end"]
    assert [s["index"] for s in trace["steps"]] == list(range(1, len(trace["steps"]) + 1))
