"""The ruler's named workloads: each serving technique is measured where it matters (issue 21).

A workload is one or more *streams* of requests (a class of traffic: chats, long documents, ...)
on one engine setting, all on Llama-3-8B served by H100 GPUs and timed by the calibrated cost
model (`sim.cost.calibrated`: estimates fitted to published vLLM measurements). Each stream is a
seeded `sim.generators` spec, so the same workload always gives the same requests; the streams
are merged by arrival time. `describe` writes the one line a page shows under the ruler from the
same data that builds the requests, so the words cannot drift from the run.

Times are milliseconds (the cost model's clock): a rate in requests per second is drawn as
Poisson gaps on that clock.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from sim.generators import generate_requests, parse_generator

MS_PER_S = 1000.0
MODEL = "llama-3-8b"
MODEL_NAME = "Llama-3-8B"
GPU = "h100-sxm"
GPU_NAME = "H100"
# What vLLM would run with on one H100 (its KV pool sized from 90% of the GPU's memory).
ENGINE: dict[str, Any] = {
    "policy": "vllm",
    "max_num_batched_tokens": 2048,
    "max_num_seqs": 128,
    "block_size": 16,
    "max_model_len": 8192,
    "enable_chunked_prefill": True,
    "enable_prefix_caching": False,
    "long_prefill_token_threshold": 0,
    "capacity": {"model": MODEL, "gpu": GPU, "kv_dtype": "bf16"},
}
CALIBRATED: dict[str, Any] = {"kind": "calibrated"}


@dataclass(frozen=True)
class Stream:
    """One class of traffic: `n` requests, Poisson at `rate` per second (None: all waiting at
    the start), prompts uniform in `prompt`, outputs from `output` (a `sim.generators` length
    distribution), the first `shared_prefix` prompt tokens the same for every request."""

    name: str
    n: int
    rate: float | None
    prompt: tuple[int, int]
    output: dict[str, Any]
    shared_prefix: int = 0

    def spec(self, seed: int, scale: float = 1.0) -> dict[str, Any]:
        """The generator spec (`n` scaled, at least one request)."""
        spec: dict[str, Any] = {
            "n": max(1, round(self.n * scale)),
            "seed": seed,
            "prompt": {"kind": "uniform", "low": self.prompt[0], "high": self.prompt[1]},
            "output": dict(self.output),
        }
        if self.rate is not None:
            spec["arrival"] = {"kind": "poisson", "rate": self.rate / MS_PER_S, "seed": seed}
        if self.shared_prefix:
            spec["shared_prefix"] = self.shared_prefix
        return spec


@dataclass(frozen=True)
class RulerWorkload:
    """A named workload: its streams on `engine` (both sides of a technique start from it),
    optional SLOs (ms) for goodput, and every request's accepted drafts (spec decoding)."""

    id: str
    title: str
    streams: tuple[Stream, ...]
    engine: dict[str, Any] = field(default_factory=lambda: copy.deepcopy(ENGINE))
    slo: dict[str, float] | None = None
    accept: tuple[int, ...] | None = None

    def requests(self, seed: int = 1, scale: float = 1.0) -> list[dict[str, Any]]:
        """Every stream's requests (ids prefixed by the stream's initial), merged by arrival."""
        out: list[dict[str, Any]] = []
        for k, stream in enumerate(self.streams):
            for req in generate_requests(parse_generator(stream.spec(seed + 101 * k, scale))):
                req = dict(req, id=f"{stream.name[0].upper()}{req['id'][1:]}")
                if self.accept is not None:
                    req["accept"] = list(self.accept)
                out.append(req)
        out.sort(key=lambda r: (r["arrival"], r["id"]))
        return out

    def run_json(self, engine: dict[str, Any], seed: int = 1, scale: float = 1.0) -> dict[str, Any]:
        """The simulator workload of one side of a technique (its engine, the shared requests)."""
        workload: dict[str, Any] = {
            "engine": copy.deepcopy(engine),
            "cost": dict(CALIBRATED),
            "requests": self.requests(seed, scale),
        }
        if self.slo:
            workload["slo"] = dict(self.slo)
        return workload

    def facts(self) -> dict[str, Any]:
        """The workload as data (what a page localizes the description from)."""
        return {
            "id": self.id,
            "title": self.title,
            "model": MODEL_NAME,
            "gpu": GPU_NAME,
            "streams": [
                {"name": s.name, "n": s.n, "rate": s.rate, "prompt": list(s.prompt),
                 "output": dict(s.output), "shared_prefix": s.shared_prefix}
                for s in self.streams
            ],
            "slo": dict(self.slo) if self.slo else None,
            "accept": list(self.accept) if self.accept else None,
            "at_a_time": self.at_a_time(),
        }

    def at_a_time(self) -> int | None:
        """The sequence limit when it is lower than vLLM's usual (the workload is about it)."""
        seqs = int(self.engine["max_num_seqs"])
        return seqs if seqs < ENGINE["max_num_seqs"] else None


def _thousands(n: float) -> str:
    return f"{n:,.0f}" if n == int(n) else f"{n:g}"


def output_words(output: dict[str, Any]) -> str:
    """An output length distribution in words: '200-600' or 'median 128, up to 2,048'."""
    if output["kind"] == "uniform":
        return f"{_thousands(output['low'])}-{_thousands(output['high'])}"
    if output["kind"] == "fixed":
        return _thousands(output["value"])
    return f"median {_thousands(output['median'])}, up to {_thousands(output['max'])}"


def _stream_words(s: Stream) -> str:
    when = f"at {s.rate:g}/s" if s.rate is not None else "all waiting at the start"
    prompt = f"prompts {_thousands(s.prompt[0])}-{_thousands(s.prompt[1])} tokens"
    if s.shared_prefix:
        prompt += f" sharing their first {_thousands(s.shared_prefix)}"
    return f"{s.n} {s.name}s {when}, {prompt}, answers {output_words(s.output)} tokens"


def describe(workload: RulerWorkload) -> str:
    """The workload in one line (English), from the data that builds its requests."""
    line = " + ".join(_stream_words(s) for s in workload.streams)
    if workload.at_a_time() is not None:
        line += f"; {workload.at_a_time()} at a time"
    if workload.accept:
        line += f"; drafts accepted {', '.join(map(str, workload.accept))} in turn"
    if workload.slo:
        line += "; targets " + ", ".join(f"{k.upper()} {_thousands(v)} ms"
                                        for k, v in workload.slo.items())
    return line


def _long_requests(n: int) -> Stream:
    """`n` requests waiting at the start with ~20k-token prompts and ~2k-token answers."""
    return Stream("request", n, None, (17000, 23000), {"kind": "uniform", "low": 1700,
                                                         "high": 2300})


def _long_engine(at_a_time: int) -> dict[str, Any]:
    return {**copy.deepcopy(ENGINE), "max_num_batched_tokens": 8192, "max_num_seqs": at_a_time,
            "max_model_len": 32768}


CHAT_OUTPUT = {"kind": "long_tail", "median": 128, "sigma": 1.0, "max": 2048}
CHATS = Stream("chat", 160, 14.0, (100, 1000), CHAT_OUTPUT)
MIXED = (
    Stream("chat", 100, 4.5, (50, 300), {"kind": "uniform", "low": 200, "high": 600}),
    Stream("document", 55, 2.5, (3000, 6000), {"kind": "uniform", "low": 20, "high": 100}),
)

WORKLOADS: dict[str, RulerWorkload] = {
    w.id: w
    for w in (
        # Answers of very different lengths: a static batch waits for its longest one.
        RulerWorkload("busy_chat", "busy chat", (CHATS,)),
        # Long prompts among streaming chats: a whole 3-6k-token prefill stalls every decode.
        RulerWorkload("long_prompts", "long prompts among chats", MIXED),
        # The same mix at twice the rate for two GPUs, with latency targets (DistServe's regime).
        RulerWorkload(
            "mixed_slo",
            "long prompts among chats, with targets",
            tuple(Stream(s.name, s.n, 2 * (s.rate or 0.0), s.prompt, s.output) for s in MIXED),
            slo={"ttft": 500.0, "tpot": 15.0},
        ),
        # One system prompt shared by every request.
        RulerWorkload(
            "shared_prompt",
            "one shared system prompt",
            (Stream("chat", 160, 10.0, (1100, 1500),
                    {"kind": "long_tail", "median": 128, "sigma": 0.8, "max": 1024},
                    shared_prefix=1024),),
        ),
        # Low load: one or two requests in flight, where a decode step is a bare weight read.
        RulerWorkload(
            "low_load",
            "low load",
            (Stream("chat", 30, 1.0, (200, 800), {"kind": "uniform", "low": 128, "high": 384}),),
            accept=(2, 0, 3, 1),
        ),
        # The vLLM FP8 KV-cache blog's load test, smaller: ~20k-token prompts, 8 at a time.
        RulerWorkload("long_context", "long context", (_long_requests(24),),
                      engine=_long_engine(8)),
        # The same long prompts, more of them in flight than a bf16 cache holds: the regime
        # where an fp8 cache pays (its capacity binds), as the FP8 blog measures it.
        RulerWorkload("long_context_full", "long context, more than the cache holds",
                      (_long_requests(48),), engine=_long_engine(48)),
    )
}
