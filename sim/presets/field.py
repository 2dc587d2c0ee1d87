"""Without/with scenario pairs for SIM-FIELD.md's techniques, on the page's cast (A, B, C old
requests decoding, D the newcomer): speculative decoding, FP8 KV cache, tensor parallelism,
disaggregated prefill/decode, and streaming. Each entry is (id, title, description, without,
with), as in `sim.presets.scenarios`.
"""

from __future__ import annotations

from typing import Any

from sim.presets.cast import cast_requests, comic_engine

# Accepted drafts per verify step, per cast member (k = 3): a drafter that is right about
# half the time, and differently for each request.
CAST_ACCEPT = {"A": [2, 0, 3], "B": [1], "C": [3, 1], "D": [2]}
# A comic linear cost (ms): a step costs 1 ms plus 0.25 ms per token, so a 12-token prefill
# step visibly outlasts a step of three decodes.
COMIC_LINEAR = {"kind": "linear", "c0": 1.0, "c_tok": 0.25, "c_kv": 0.0}
# Llama-3-8B on one H100 SXM at 0.9 with everything but 8 bf16 comic blocks (4 tokens x
# 128 KiB) reserved for other work: 72 GB - 16.06 GB - 55,935,804,696 B = 4,195,304 B of KV.
FP8_RESERVE_BYTES = 55_940_000_000 - 8 * 4 * 131072 - 1000
TRANSFER = {"latency": 0.0005, "bandwidth": 25e9}
# The calibrated cost times the fp8 pair in ms (about 7 ms a step): D arriving at 10 ms joins
# before step 3, as it does at t = 2 with the unit cost, so the comic keeps its schedule.
FP8_D_ARRIVAL_MS = 10.0


def _w(engine: dict[str, Any], cost: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "engine": engine,
        "cost": cost or {"kind": "unit"},
        "requests": cast_requests(),
        **extra,
    }


def _spec(k: int) -> dict[str, Any]:
    workload = _w(comic_engine(max_num_batched_tokens=16, num_speculative_tokens=k))
    if k == 0:
        del workload["engine"]["num_speculative_tokens"]
    for request in workload["requests"]:
        request["accept"] = CAST_ACCEPT[request["id"]]
    return workload


def _kv_dtype(dtype: str) -> dict[str, Any]:
    capacity = {
        "model": "llama-3-8b",
        "gpu": "h100-sxm",
        "kv_dtype": dtype,
        "reserve_bytes": FP8_RESERVE_BYTES,
    }
    engine = comic_engine(max_num_batched_tokens=16, capacity=capacity)
    del engine["num_blocks"]
    workload = _w(engine, {"kind": "calibrated"})
    workload["requests"] = cast_requests(d_arrival=FP8_D_ARRIVAL_MS)
    return workload


def _tensor_parallel(tp: int) -> dict[str, Any]:
    engine = comic_engine(
        max_num_batched_tokens=16, capacity={"model": "llama-3-70b", "gpu": "h100-sxm", "tp": tp}
    )
    del engine["num_blocks"]
    return _w(engine, {"kind": "calibrated"})


def _disagg(split: bool) -> dict[str, Any]:
    colocated = comic_engine(max_num_batched_tokens=64, enable_chunked_prefill=False)
    if not split:
        return _w({**colocated, "instances": 2}, COMIC_LINEAR)
    pool = comic_engine(max_num_batched_tokens=64)
    engine = {"policy": "disagg", "prefill": pool, "decode": pool, "transfer": TRANSFER}
    return _w(engine, COMIC_LINEAR)


FIELD_CATALOGUE: list[tuple[str, str, str, dict[str, Any], dict[str, Any]]] = [
    (
        "spec_decode",
        "Speculative decoding",
        "Budget 16, k = 3 draft tokens per decode (an n-gram drafter). Each verify step costs "
        "1 + 3 tokens of budget and emits the accepted drafts + 1: A accepts 2, 0, 3, ... in turn, "
        "B 1, C 3 then 1, D 2. The cast finishes in 6 steps instead of 8.",
        _spec(0),
        _spec(3),
    ),
    (
        "fp8_kv",
        "FP8 KV cache",
        "Llama-3-8B on one H100 with a small KV budget left (4.2 MB): in bf16 a 4-token block "
        "takes 512 KiB, so 8 blocks fit and requests preempt each other; in fp8 a block takes "
        "half, 16 blocks fit and nobody is preempted. Steps are timed by the calibrated cost "
        "model (an estimate fitted to published vLLM measurements).",
        _kv_dtype("bf16"),
        _kv_dtype("fp8"),
    ),
    (
        "tensor_parallel",
        "Tensor parallelism",
        "Llama-3-70B (141 GB of weights) does not fit one 80 GB H100. On 2 GPUs it fits with "
        "2.8 GB left for KV; on 4 the weights take a quarter each, the KV pool grows to 147 GB "
        "and each step reads a quarter of the weights per GPU, plus two all-reduces per layer. "
        "Steps are timed by the calibrated cost model (an estimate fitted to published vLLM "
        "measurements).",
        _tensor_parallel(2),
        _tensor_parallel(4),
    ),
    (
        "disaggregation",
        "Disaggregated prefill and decode",
        "Two GPUs either way (linear cost, ms). Colocated without chunking, D's 12-token prompt "
        "runs in a step of its own on B's instance and B's next token waits for it. "
        "Disaggregated, prompts run on the prefill GPU, their KV moves to the decode GPU "
        "(0.5 ms + bytes at 25 GB/s), and decodes keep an even pace.",
        _disagg(False),
        _disagg(True),
    ),
    (
        "streaming",
        "Streaming",
        "The same schedule, read two ways: without streaming a user sees nothing until the last "
        "token (the wait is E2EL); with streaming the first token shows at once (the wait is "
        "TTFT). summary.perceived_wait holds the wait each way.",
        _w(comic_engine(max_num_batched_tokens=16), streaming=False),
        _w(comic_engine(max_num_batched_tokens=16), streaming=True),
    ),
]
