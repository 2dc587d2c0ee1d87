"""The typed, read-only view of one simulator trace (`sim/*.json`, contract: SIM.md and
`sim/trace.schema.json`): what the drawings, the walkthrough and the placeholder values read.

`TraceView.from_json` builds it once from the JSON: frozen dataclasses of tuples and mappings, so
no reader indexes dict keys. Fields the engine adds for speculative decoding and multi-instance
runs are optional (empty or None when absent).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

Json = Mapping[str, Any]


def _maybe_float(value: Any) -> float | None:
    return None if value is None else float(value)


def _ids(value: Iterable[str] | None) -> tuple[str, ...]:
    return tuple(value or ())


def _counts(value: Mapping[str, int] | None) -> Mapping[str, int]:
    return {rid: int(n) for rid, n in (value or {}).items()}


def _pairs(value: Iterable[tuple[str, int]] | None) -> Mapping[str, int]:
    """The trace's `[["A", 3], ...]` id-count lists, as a mapping in the same order."""
    return {rid: int(n) for rid, n in (value or ())}


@dataclass(frozen=True)
class EngineView:
    """The engine a trace was run with (`engine`, present with --detail); missing fields take
    SIM.md's defaults."""

    policy: str = "vllm"
    max_num_batched_tokens: int = 2048
    max_num_seqs: int = 256
    block_size: int = 16
    num_blocks: int = 10000
    max_model_len: int = 4096
    enable_chunked_prefill: bool = True
    enable_prefix_caching: bool = False
    long_prefill_token_threshold: int = 0
    kv_alloc: str = "paged"
    preemption: str = "recompute"
    num_speculative_tokens: int = 0
    instances: int = 1

    @classmethod
    def from_json(cls, data: Json) -> EngineView:
        d = cls()
        return cls(
            policy=str(data.get("policy", d.policy)),
            max_num_batched_tokens=int(data.get("max_num_batched_tokens", d.max_num_batched_tokens)),
            max_num_seqs=int(data.get("max_num_seqs", d.max_num_seqs)),
            block_size=int(data.get("block_size", d.block_size)),
            num_blocks=int(data.get("num_blocks", d.num_blocks)),
            max_model_len=int(data.get("max_model_len", d.max_model_len)),
            enable_chunked_prefill=bool(data.get("enable_chunked_prefill", d.enable_chunked_prefill)),
            enable_prefix_caching=bool(data.get("enable_prefix_caching", d.enable_prefix_caching)),
            long_prefill_token_threshold=int(
                data.get("long_prefill_token_threshold", d.long_prefill_token_threshold)
            ),
            kv_alloc=str(data.get("kv_alloc", d.kv_alloc)),
            preemption=str(data.get("preemption", d.preemption)),
            num_speculative_tokens=int(data.get("num_speculative_tokens") or 0),
            instances=int(data.get("instances") or 1),
        )


@dataclass(frozen=True)
class CostView:
    """The cost model that timed the steps (`cost`, with --detail): its kind and clock unit."""

    kind: str | None = None
    time_unit: str | None = None
    model: str | None = None  # the model and GPU a roofline or calibrated cost times
    gpu: str | None = None
    tp: int = 1  # GPUs the model is split over
    terms: Mapping[str, float] = field(default_factory=dict)  # linear: c0, c_tok, c_kv
    kv_dtype: str | None = None

    @classmethod
    def from_json(cls, data: Json) -> CostView:
        def text(key: str) -> str | None:
            value = data.get(key)
            return None if value is None else str(value)

        terms = {k: float(data[k]) for k in ("c0", "c_tok", "c_kv") if data.get(k) is not None}
        return cls(text("kind"), text("time_unit"), text("model"), text("gpu"),
                   int(data.get("tp") or 1), terms, text("kv_dtype"))


@dataclass(frozen=True)
class ScenarioView:
    """Which preset made the trace (`scenario`, with --detail)."""

    id: str | None = None
    variant: str | None = None
    title: str | None = None
    description: str | None = None

    @classmethod
    def from_json(cls, data: Json) -> ScenarioView:
        return cls(*(data.get(k) for k in ("id", "variant", "title", "description")))


@dataclass(frozen=True)
class StepView:
    """One engine step: who got how many tokens, the queues after it, its KV blocks.

    `blocks`/`reserved`/`computed`/`tokens` (per request) come with --detail; `drafts`/`accepted`/
    `emitted_tokens`/`padded` with speculative decoding; `instance`/`handoff` in multi-instance
    runs; `shared` with prefix caching; `block_table` (each holder's block ids) with paged KV and
    --detail. Absent ones are empty."""

    index: int
    start: float = 0.0
    end: float = 0.0
    scheduled: Mapping[str, int] = field(default_factory=dict)  # in scheduling order
    preempted: tuple[str, ...] = ()
    emitted: tuple[str, ...] = ()
    finished: tuple[str, ...] = ()
    free_blocks: int = 0
    running: tuple[str, ...] = ()
    waiting: tuple[str, ...] = ()
    blocks: Mapping[str, int] = field(default_factory=dict)
    reserved: Mapping[str, int] = field(default_factory=dict)
    computed: Mapping[str, int] = field(default_factory=dict)
    tokens: Mapping[str, int] = field(default_factory=dict)
    drafts: Mapping[str, int] = field(default_factory=dict)
    accepted: Mapping[str, int] = field(default_factory=dict)
    emitted_tokens: Mapping[str, int] = field(default_factory=dict)
    padded: tuple[str, ...] = ()
    instance: str | None = None
    handoff: tuple[str, ...] = ()
    shared: tuple[tuple[tuple[str, ...], int], ...] = ()  # (holders, blocks): one physical copy
    block_table: Mapping[str, tuple[int, ...]] = field(default_factory=dict)  # pool positions

    @property
    def duration(self) -> float:
        return self.end - self.start

    @property
    def total_tokens(self) -> int:
        return sum(self.scheduled.values())

    @classmethod
    def from_json(cls, data: Json, position: int) -> StepView:
        """`position` (1-based) stands in for a missing `index`."""
        instance = data.get("instance")
        return cls(
            index=int(data.get("index", position)),
            start=float(data.get("start", 0.0)),
            end=float(data.get("end", 0.0)),
            scheduled=_counts(data.get("scheduled")),
            preempted=_ids(data.get("preempted")),
            emitted=_ids(data.get("emitted")),
            finished=_ids(data.get("finished")),
            free_blocks=int(data.get("free_blocks", 0)),
            running=_ids(data.get("running")),
            waiting=_ids(data.get("waiting")),
            blocks=_counts(data.get("blocks")),
            reserved=_counts(data.get("reserved")),
            computed=_counts(data.get("computed")),
            tokens=_counts(data.get("tokens")),
            drafts=_pairs(data.get("drafts")),
            accepted=_pairs(data.get("accepted")),
            emitted_tokens=_pairs(data.get("emitted_tokens")),
            padded=_ids(data.get("padded")),
            instance=None if instance is None else str(instance),
            handoff=_ids(data.get("handoff")),
            shared=tuple(
                (_ids(g.get("owners")), int(g.get("blocks", 0))) for g in data.get("shared") or ()
            ),
            block_table={
                rid: tuple(int(b) for b in ids)
                for rid, ids in (data.get("block_table") or {}).items()
            },
        )


@dataclass(frozen=True)
class RequestView:
    """One request's life: arrival, every output token's time, the metrics derived from them.

    `meets_slo` is set when the workload gives SLOs; `transfer` (KV left the prefill instance,
    reached the decode pool) in disaggregated runs."""

    id: str
    arrival: float = 0.0
    first_token: float | None = None
    finish: float | None = None
    output_tokens: int = 0
    token_times: tuple[float, ...] = ()
    ttft: float | None = None
    tpot: float | None = None
    e2el: float | None = None
    preemptions: int = 0
    prefix_hit_tokens: int = 0
    meets_slo: bool | None = None
    transfer: tuple[float, float] | None = None

    @classmethod
    def from_json(cls, rid: str, data: Json) -> RequestView:
        transfer = data.get("transfer")
        meets = data.get("meets_slo")
        return cls(
            id=rid,
            arrival=float(data.get("arrival", 0.0)),
            first_token=_maybe_float(data.get("first_token")),
            finish=_maybe_float(data.get("finish")),
            output_tokens=int(data.get("output_tokens", 0)),
            token_times=tuple(float(t) for t in data.get("token_times") or ()),
            ttft=_maybe_float(data.get("ttft")),
            tpot=_maybe_float(data.get("tpot")),
            e2el=_maybe_float(data.get("e2el")),
            preemptions=int(data.get("preemptions", 0)),
            prefix_hit_tokens=int(data.get("prefix_hit_tokens", 0)),
            meets_slo=None if meets is None else bool(meets),
            transfer=None if transfer is None else (float(transfer[0]), float(transfer[1])),
        )

    @property
    def gaps(self) -> list[float]:
        """The time between each two consecutive output tokens (its ITL samples, in order)."""
        times = self.token_times
        return [b - a for a, b in zip(times, times[1:], strict=False)]


@dataclass(frozen=True)
class ParentView:
    """Parallel sampling (a request with n > 1): the parent's children and its span."""

    n: int
    children: tuple[str, ...]
    first_token: float | None
    finish: float | None


@dataclass(frozen=True)
class StatsView:
    mean: float
    median: float
    p90: float
    p99: float


@dataclass(frozen=True)
class CapacityView:
    """`summary.capacity` (engines sized from model, GPU and KV dtype): every term of the KV
    arithmetic, bytes as the simulator computed them."""

    model: str = ""
    gpu: str = ""
    tp: int = 1
    kv_dtype: str = "bf16"
    gpu_memory_utilization: float = 0.9
    hbm_bytes_per_gpu: float = 0.0
    usable_bytes: float = 0.0
    weight_bytes: float = 0.0
    weight_bytes_per_gpu: float = 0.0
    reserve_bytes: float = 0.0
    kv_budget_bytes: float = 0.0
    kv_bytes_per_token: int = 0
    tokens_fit: int = 0
    block_size: int = 0
    block_bytes: int = 0
    num_blocks: int = 0

    @classmethod
    def from_json(cls, data: Json) -> CapacityView:
        d = cls()
        return cls(**{k: type(getattr(d, k))(data.get(k, getattr(d, k))) for k in d.__dict__})


@dataclass(frozen=True)
class SummaryView:
    """The run's metrics (`vllm bench serve` definitions); the optional ones as the schema says."""

    duration: float | None = None
    output_throughput: float | None = None
    request_throughput: float | None = None
    ttft: StatsView | None = None
    tpot: StatsView | None = None
    itl: StatsView | None = None
    e2el: StatsView | None = None
    goodput: float | None = None
    good_requests: int | None = None
    slo_attainment: float | None = None
    drafts_verified: int | None = None
    drafts_accepted: int | None = None
    acceptance_rate: float | None = None
    mean_accepted_length: float | None = None
    capacity: CapacityView | None = None
    perceived_wait: StatsView | None = None  # with `streaming` given (SIM-FIELD.md 6)
    streaming: bool | None = None

    @classmethod
    def from_json(cls, data: Json) -> SummaryView:
        def stats(key: str) -> StatsView | None:
            s = data.get(key)
            keys = ("mean", "median", "p90", "p99")
            if not isinstance(s, Mapping) or any(s.get(k) is None for k in keys):
                return None
            return StatsView(*(float(s[k]) for k in keys))

        def count(key: str) -> int | None:
            v = data.get(key)
            return None if v is None else int(v)

        def number(key: str) -> float | None:
            return _maybe_float(data.get(key))

        return cls(
            duration=number("duration"),
            output_throughput=number("output_throughput"),
            request_throughput=number("request_throughput"),
            ttft=stats("ttft"),
            tpot=stats("tpot"),
            itl=stats("itl"),
            e2el=stats("e2el"),
            goodput=number("goodput"),
            good_requests=count("good_requests"),
            slo_attainment=number("slo_attainment"),
            drafts_verified=count("drafts_verified"),
            drafts_accepted=count("drafts_accepted"),
            acceptance_rate=number("acceptance_rate"),
            mean_accepted_length=number("mean_accepted_length"),
            capacity=CapacityView.from_json(cap) if isinstance(cap := data.get("capacity"), Mapping)
            else None,
            perceived_wait=stats("perceived_wait"),
            streaming=(data.get("perceived_wait") or {}).get("streaming"),
        )


@dataclass(frozen=True)
class TraceView:
    """One simulator run, read-only: its steps in order, its requests in the trace's order."""

    steps: tuple[StepView, ...] = ()
    requests: Mapping[str, RequestView] = field(default_factory=dict)
    summary: SummaryView = field(default_factory=SummaryView)
    engine: EngineView | None = None  # None: run without --detail
    cost: CostView = field(default_factory=CostView)
    scenario: ScenarioView = field(default_factory=ScenarioView)
    figures: Mapping[str, float] = field(default_factory=dict)  # preset-computed numbers
    stalled: bool = False  # no request could progress
    parents: Mapping[str, ParentView] = field(default_factory=dict)

    def step(self, index: int) -> StepView | None:
        return next((s for s in self.steps if s.index == index), None)

    def first_scheduled(self, rid: str) -> StepView | None:
        """The step `rid` is first scheduled in (None: never)."""
        return next((s for s in self.steps if rid in s.scheduled), None)

    def prompt_steps(self, rid: str) -> tuple[StepView, ...]:
        """The steps that read `rid`'s prompt: scheduled up to and including the one that
        emits its first token (a recomputed prompt after preemption counts again)."""
        out: list[StepView] = []
        for s in self.steps:
            if rid in s.scheduled:
                out.append(s)
            if rid in s.emitted:
                return tuple(out)
        return ()

    @classmethod
    def from_json(cls, data: Json) -> TraceView:
        engine = data.get("engine")
        return cls(
            steps=tuple(StepView.from_json(s, i + 1) for i, s in enumerate(data.get("steps", []))),
            requests={
                rid: RequestView.from_json(rid, r) for rid, r in data.get("requests", {}).items()
            },
            summary=SummaryView.from_json(data.get("summary") or {}),
            engine=EngineView.from_json(engine) if engine is not None else None,
            cost=CostView.from_json(data.get("cost") or {}),
            scenario=ScenarioView.from_json(data.get("scenario") or {}),
            figures={
                k: v for k, v in (data.get("figures") or {}).items() if isinstance(v, int | float)
            },
            stalled=bool(data.get("stalled", False)),
            parents={
                pid: ParentView(
                    int(p["n"]),
                    _ids(p.get("children")),
                    _maybe_float(p.get("first_token")),
                    _maybe_float(p.get("finish")),
                )
                for pid, p in (data.get("parents") or {}).items()
            },
        )
