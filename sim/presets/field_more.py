"""More without/with scenario pairs for SIM-FIELD.md, on the page's cast (A, B, C old requests,
D the newcomer): goodput under SLOs, parallel sampling and the latency-vs-load curve. (Streaming
is `sim.presets.field`'s.) Each entry is (id, title, description, without, with), as in
`sim.presets.scenarios`; `FIELD_MORE_FIGURES` computes the numbers a trace alone does not carry
(the SLO targets, the load sweep) into the trace's `figures`.
"""

from __future__ import annotations

import copy
from typing import Any

from sim.load_curve import load_curve
from sim.presets.cast import cast_requests, comic_engine

# A comic linear cost (ms): a step costs 1 ms plus 0.25 ms per token (as sim.presets.field).
COMIC_LINEAR = {"kind": "linear", "c0": 1.0, "c_tok": 0.25, "c_kv": 0.0}
# The objectives (ms): a first token within 6 ms of arrival, then at most 2.4 ms per token.
GOODPUT_SLO = {"ttft": 6.0, "tpot": 2.4}
# Parallel sampling: D asks for three answers to one 12-token prompt (three comic blocks).
SAMPLES = 3
D_PROMPT_IDS = [400 + i for i in range(12)]
# The load curve: one seeded comic-sized workload at each Poisson rate (requests per step),
# with few sequence slots (without) and more (with).
LOAD_SLOTS = {"without": 2, "with": 4}
LOAD_RATES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
LOAD_GENERATE = {
    "n": 80,
    "seed": 7,
    "arrival": {"kind": "poisson", "rate": 0.1},
    "prompt": {"kind": "uniform", "low": 2, "high": 12},
    "output": {"kind": "uniform", "low": 3, "high": 8},
}
# The knee: the first rate whose p99 TTFT is more than three times the p99 at the lightest load
# (the tail, as a load test watches it: the mean can look fine while p99 has already left).
KNEE_FACTOR = 3.0


def _w(engine: dict[str, Any], cost: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"engine": engine, "cost": cost or {"kind": "unit"}, "requests": cast_requests(), **extra}


def _goodput(chunked: bool) -> dict[str, Any]:
    policy = "vllm" if chunked else "prefill_first"
    engine = comic_engine(policy=policy, max_num_batched_tokens=16)
    return _w(engine, COMIC_LINEAR, slo=dict(GOODPUT_SLO))


def _sampling(share: bool) -> dict[str, Any]:
    engine = comic_engine(max_num_batched_tokens=32, max_num_seqs=8, enable_prefix_caching=share)
    workload = _w(engine)
    d = workload["requests"][3]
    del d["prompt_tokens"]
    d["prompt_ids"] = list(D_PROMPT_IDS)
    d["n"] = SAMPLES
    return workload


def _load_engine(variant: str) -> dict[str, Any]:
    return comic_engine(max_num_batched_tokens=16, max_num_seqs=LOAD_SLOTS[variant])


def _load(variant: str) -> dict[str, Any]:
    """The cast under the variant's slot limit (the walkthrough's trace); the curve itself is
    the figures' sweep of a generated workload on the same engine."""
    return _w(_load_engine(variant))


FIELD_MORE_CATALOGUE: list[tuple[str, str, str, dict[str, Any], dict[str, Any]]] = [
    (
        "goodput",
        "Goodput under SLOs",
        "SLOs: first token within 6 ms, then at most 2.4 ms per token (linear cost, budget 16). "
        "Prefill-first runs D's 12-token prompt in a step of its own and A, B, C's tokens wait: "
        "B and C miss the TPOT objective (2 of 4 meet both). Mixing the prefill into the decodes' "
        "steps (vLLM's chunked-prefill scheduling; D's 12 tokens fit the budget whole, so no "
        "chunk is cut) keeps the decodes going: 3 of 4 meet them at about the same throughput. Goodput counts only requests that "
        "meet every SLO.",
        _goodput(False),
        _goodput(True),
    ),
    (
        "parallel_sampling",
        "Parallel sampling (n = 3)",
        "D asks for 3 answers to one 12-token prompt: the engine runs 3 children with the same "
        "prompt. Without prefix caching each child computes and stores the prompt's 3 blocks "
        "itself; with it the later children reuse the first one's blocks (stored once, counted "
        "3 times) and only their own answers take new blocks.",
        _sampling(False),
        _sampling(True),
    ),
    (
        "load_curve",
        "Latency against load",
        "One seeded workload of 80 short requests at Poisson rates 0.1 to 0.8 per step (unit "
        "cost, budget 16): median and p99 TTFT per rate. With 2 sequence slots the p99 turns up "
        "from about 0.3 requests per step (the knee); with 4 slots it holds until about 0.5. "
        "The cast's own trace runs under the same slot limit.",
        _load("without"),
        _load("with"),
    ),
]


def goodput_figures(trace: dict[str, Any]) -> dict[str, float]:
    """The SLO targets the trace was judged against (the trace echoes only the verdicts)."""
    return {f"slo_{k}": float(v) for k, v in GOODPUT_SLO.items()}


def _sweep(variant: str) -> dict[str, Any]:
    workload = {
        "engine": _load_engine(variant),
        "cost": {"kind": "unit"},
        "generate": copy.deepcopy(LOAD_GENERATE),
    }
    return load_curve(workload, list(LOAD_RATES))


def load_figures(trace: dict[str, Any]) -> dict[str, float]:
    """Both slot limits' curves on the same rates (each panel draws both on the same axes):
    `rate_K`, `<variant>_p50_K`, `<variant>_p99_K` (TTFT, steps), `<variant>_knee`, `<variant>_slots`."""
    out: dict[str, float] = {}
    for variant in ("without", "with"):
        rows = _sweep(variant)["rates"]
        base = rows[0]["ttft"]["p99"]
        knee = next(
            (r["rate"] for r in rows if r["ttft"]["p99"] > KNEE_FACTOR * base), rows[-1]["rate"]
        )
        for k, row in enumerate(rows):
            out[f"rate_{k}"] = float(row["rate"])
            out[f"{variant}_p50_{k}"] = float(row["ttft"]["p50"])
            out[f"{variant}_p99_{k}"] = float(row["ttft"]["p99"])
        out[f"{variant}_knee"] = float(knee)
        out[f"{variant}_slots"] = float(LOAD_SLOTS[variant])
    return out


FIELD_MORE_FIGURES = {"goodput": goodput_figures, "load_curve": load_figures}
