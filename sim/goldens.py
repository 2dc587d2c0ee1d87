"""The 11 golden scenarios of SIM.md as workloads (block_size 16, FCFS, unit cost).

Each was verified against the real vLLM 0.32 scheduler by the spec's authors; the tests in
`tests/sim/test_goldens.py` hold the per-step expectations.
"""

from __future__ import annotations

from typing import Any


def _req(rid: str, prompt: int, max_tokens: int, arrival: float = 0.0) -> dict[str, Any]:
    return {"id": rid, "arrival": arrival, "prompt_tokens": prompt, "max_tokens": max_tokens}


def _ids(rid: str, ids: list[int], max_tokens: int, arrival: float = 0.0) -> dict[str, Any]:
    return {"id": rid, "arrival": arrival, "prompt_ids": ids, "max_tokens": max_tokens}


def _golden(
    n: int, title: str, engine: dict[str, Any], requests: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "engine": engine,
        "cost": {"kind": "unit"},
        "requests": requests,
        "scenario": {"id": f"golden-{n}", "title": title},
    }


def golden_workloads() -> dict[str, dict[str, Any]]:
    """`golden-1` .. `golden-11` -> workload dict."""
    x_ids, u_ids = list(range(1, 41)), list(range(101, 133))
    g10 = {"max_num_batched_tokens": 64, "max_num_seqs": 4, "num_blocks": 4}
    items = [
        (
            "Chunked prefill joins running decodes under budget 8",
            {"max_num_batched_tokens": 8, "max_num_seqs": 4},
            [_req("A", 1, 10), _req("B", 1, 10), _req("C", 1, 10), _req("D", 10, 5, arrival=1.0)],
        ),
        (
            "Long-prefill threshold 400 caps each chunk",
            {"max_num_batched_tokens": 1024, "long_prefill_token_threshold": 400},
            [_req("X", 800, 5), _req("Y", 800, 5), _req("Z", 800, 5)],
        ),
        (
            "Threshold not applied to a lone request",
            {"max_num_batched_tokens": 1024, "long_prefill_token_threshold": 400},
            [_req("X", 800, 5)],
        ),
        (
            "Decode preempts a partially prefilled request",
            {"max_num_batched_tokens": 100, "max_num_seqs": 4, "num_blocks": 10},
            [_req("R0", 80, 20), _req("R1", 80, 5)],
        ),
        (
            "Two victims in one step go to the front of waiting",
            {"max_num_batched_tokens": 64, "max_num_seqs": 4, "num_blocks": 3},
            [_req("A", 16, 4), _req("B", 16, 4), _req("C", 16, 4)],
        ),
        (
            "max_num_seqs 2 holds C back",
            {"max_num_batched_tokens": 64, "max_num_seqs": 2},
            [_req("A", 4, 2), _req("B", 4, 2), _req("C", 4, 2)],
        ),
        (
            "Prefix cache hits, capped at tokens - 1",
            {"max_num_batched_tokens": 256, "max_num_seqs": 4, "enable_prefix_caching": True},
            [
                _ids("X", x_ids, 1),
                _ids("U", u_ids, 1),
                _ids("Y", x_ids, 1, 1.0),
                _ids("V", u_ids, 1, 1.0),
            ],
        ),
        (
            "Whole-sequence admission gate prevents thrashing",
            {"max_num_batched_tokens": 32, "max_num_seqs": 4, "num_blocks": 8},
            [_req("A", 64, 30), _req("B", 96, 5)],
        ),
        (
            "Head-of-line blocking with chunked prefill off",
            {
                "max_num_batched_tokens": 64,
                "max_num_seqs": 4,
                "max_model_len": 64,
                "enable_chunked_prefill": False,
            },
            [_req("A", 50, 5), _req("B", 20, 5), _req("C", 10, 5)],
        ),
        ("Preemption by recompute", g10, [_req("A", 30, 8), _req("B", 30, 20)]),
        (
            "Preemption by recompute with prefix caching",
            {**g10, "enable_prefix_caching": True},
            [_req("A", 30, 8), _req("B", 30, 20)],
        ),
    ]
    return {
        f"golden-{i}": _golden(i, title, engine, reqs)
        for i, (title, engine, reqs) in enumerate(items, start=1)
    }
