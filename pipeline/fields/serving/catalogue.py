"""The serving field's registry data: what each of its scene kinds draws (`SCENE_SHOWS`), which
scenes can draw each simulator scenario (`DRAWN_BY`, read off `scenes/*.py`), what every
placeholder means and its unit, and `build_catalogue`, which fills a `Catalogue` with what only
the simulator knows (each scenario's title and knobs, the value every placeholder takes in each
preset variant, the sweep's techniques and metrics).

A new scenario is one `DRAWN_BY` entry (and its knobs in `sim.presets.knobs`); a new scene kind
is one `SCENE_SHOWS` entry, its module under `scenes/` and the scenarios it draws in `DRAWN_BY`;
a new placeholder is one `*_MEANINGS` entry.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

from pipeline.artifacts.sim import SweepView, TechniqueView, trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.plan.catalogue import (
    OFFERED_REQUESTS,
    Catalogue,
    KnobEntry,
    PlaceholderEntry,
    ScenarioEntry,
    TechniqueEntry,
)
from pipeline.plan.model import Panel

FIELD_ID = "serving"
VARIANTS: tuple[Literal["without", "with"], ...] = ("without", "with")

# What each scene kind draws and what it needs of a trace (read off pipeline/draw/scenes).
SCENE_SHOWS: dict[str, str] = {
    "timeline": "steps left to right, one lane per request (at most 5 lanes, 14 steps): who "
    "prefills, decodes, waits or is preempted in each step; one engine's steps",
    "budget": "one bar per step split into each request's tokens against the token-budget "
    "line; one engine's steps",
    "kv_blocks": "the KV cache as a grid of at most 18 blocks at the telling step (first "
    "preemption, else the fullest), slots held, reserved, cached or freed; a small block pool",
    "queue": "the waiting line, the scheduler's questions (budget, blocks, slots) with ticks "
    "and crosses, the batch and the GPU at the first step someone waits",
    "clock": "one request on a time axis: arrival, time to first token, then the gaps between "
    "its tokens (focus picks the request, else D)",
    "clock_total": "the clock of one request read as ONE number: arrival to last token as a "
    "single bracket, the split into first token and gaps not shown (what an end-to-end figure "
    "alone tells; beside a clock panel of the same run)",
    "clock_mean": "the clock of one request read as its AVERAGE: the tokens after the first "
    "spaced evenly at their mean gap (what a mean TPOT alone tells; beside a clock panel of the "
    "same run, which labels its longest gap)",
    "roofline": "one decode step's memory read against its arithmetic, from the roofline "
    "figures only the arithmetic scenario computes",
    "bars": "one decode step as a time bar with the batch riding on it, and tokens per unit "
    "of time",
    "drafts": "speculative decoding: one lane per request, each verify step's draft cells "
    "accepted, rejected or the bonus token; tokens per step, TPOT and drafts kept",
    "kv_capacity": "the GPU's memory as one bar (weights, reserved, KV), the KV blocks at byte "
    "scale and the requests that fit, with the capacity arithmetic (its scenarios compute the "
    "pool from a model, a GPU and a KV dtype)",
    "tp_shards": "the GPUs each holding a slice of the weights and a decode step split into "
    "memory, all-reduce and arithmetic; needs the tensor-parallel figures",
    "disagg": "a prefill GPU and a decode GPU (or two colocated ones) on one time axis, D's KV "
    "transfer and B's token gaps; a two-instance run",
    "slo": "each request's tokens against the TTFT and TPOT targets, meets or misses, "
    "throughput against goodput; needs a run with SLO targets",
    "throughput": "the same lanes as slo with no targets, every request counted: requests and "
    "tokens per unit of time, what a throughput figure alone tells (slow requests count as "
    "much as fast ones; beside an slo panel of the same run)",
    "itl_pool": "every gap between two tokens of the run, pooled over all requests and sorted "
    "shortest to longest, each bar named by its request; the mean as a line and P50 and P99 "
    "read off the row where they fall (what a percentile is; beside a clock_mean panel of the "
    "same run)",
    "streaming": "what each user sees: a blank screen until the whole answer, or the first "
    "token and then a trickle; the perceived wait",
    "sampling": "n answers to one prompt: the prompt's blocks (shared once with prefix caching) "
    "and each answer's own; needs a parallel-sampling run",
    "load_curve": "latency (p50, p99) against request rate for two settings, the knee marked; "
    "needs the load-curve sweep figures",
}

# Scenario id -> the scene kinds that draw it meaningfully (every pair is rendered by a test).
# roofline needs the arithmetic scenario's figures; the disaggregated run interleaves two
# engines' steps, which only the clock (one request's token times) reads correctly; kv_blocks
# needs a pool small enough to see.
DRAWN_BY: dict[str, tuple[str, ...]] = {
    "kv_cache": ("timeline", "budget", "kv_blocks"),
    "batching": ("timeline", "budget", "queue", "clock", "clock_total", "clock_mean", "itl_pool"),
    "kv_alloc": ("kv_blocks", "timeline", "queue"),
    "preemption": ("kv_blocks", "timeline"),
    "chunked_prefill": ("budget", "timeline", "clock", "clock_total", "clock_mean", "itl_pool"),
    "prefix_cache": ("kv_blocks", "budget", "timeline"),
    "admission": ("queue", "timeline"),
    "metrics": ("clock", "clock_total", "clock_mean", "timeline", "itl_pool"),
    "arithmetic": ("roofline", "bars"),
    "spec_decode": ("drafts", "timeline", "budget", "clock", "clock_total", "clock_mean"),
    "fp8_kv": ("kv_capacity", "kv_blocks", "timeline"),
    "tensor_parallel": ("tp_shards", "bars", "clock", "clock_total", "clock_mean", "timeline"),
    "disaggregation": ("disagg", "clock", "clock_total", "clock_mean"),
    "streaming": ("streaming", "clock", "clock_total", "clock_mean", "timeline"),
    "goodput": ("slo", "throughput", "itl_pool", "clock", "clock_total", "clock_mean",
                "timeline"),
    "parallel_sampling": ("sampling",),
    "load_curve": ("load_curve",),
}

# Units: TIME is the scenario's clock (steps with the unit cost model, else ms), PER its unit.
TIME, PER = "{time}", "{per}"
# Per-request placeholders `{X.field}` (X a request id of the trace): meaning, unit.
REQUEST_MEANINGS: dict[str, tuple[str, str]] = {
    "arrival": ("when X arrives", TIME),
    "first_token": ("when X's first output token appears", TIME),
    "finish": ("when X's last output token appears", TIME),
    "output_tokens": ("output tokens X writes", "tokens"),
    "ttft": ("X's time to first token (first token minus arrival)", TIME),
    "tpot": ("X's time per output token after the first", TIME),
    "e2el": ("X's end-to-end latency (last token minus arrival)", TIME),
    "preemptions": ("times X is preempted", "times"),
    "prefix_hit_tokens": ("prompt tokens X reuses from the prefix cache", "tokens"),
    "first_step": ("the step X is first scheduled in", "step number"),
    "wait": ("steps X waits between arriving and first being scheduled", "steps"),
    "prefill_steps": ("steps X's prompt is read over, up to its first token", "steps"),
}
# Whole-run placeholders `{name}`: meaning, unit.
RUN_MEANINGS: dict[str, tuple[str, str]] = {
    "steps": ("engine steps in the run", "steps"),
    "tokens": ("tokens computed over all steps", "tokens"),
    "preempted": ("preemptions over the run", "times"),
    "duration": ("first arrival to last finish", TIME),
    "throughput": ("output tokens per unit of time", "tokens per " + PER),
    "min_free_blocks": ("fewest free KV blocks after any step", "blocks"),
    "batch": ("requests decoding together in one step", "requests"),
    "decode_step_ms": ("time of one decode step", "ms"),
    "decode_weights_peak_ms": ("reading the weights once at the GPU's peak memory bandwidth",
                               "ms"),
    "decode_compute_ms": ("arithmetic part of a decode step", "ms"),
    "decode_memory_ms": ("memory-read part of a decode step", "ms"),
    "decode_overhead_ms": ("fixed overhead of a step", "ms"),
    "decode_tokens_per_s": ("tokens decoded per second", "tokens/s"),
    "decode_allreduce_ms": ("all-reduce part of a decode step (tensor parallelism)", "ms"),
    "tp": ("GPUs the model is split over (tensor parallelism)", "GPUs"),
    "slo_ttft": ("the time-to-first-token target (SLO)", TIME),
    "slo_tpot": ("the time-per-output-token target (SLO)", TIME),
    "with_knee": ("request rate where latency turns up (the knee), with the technique",
                  "requests per " + PER),
    "without_knee": ("request rate where latency turns up (the knee), without it",
                     "requests per " + PER),
    "with_slots": ("sequence slots (max_num_seqs) of the setting with the technique", "slots"),
    "without_slots": ("sequence slots (max_num_seqs) of the setting without it", "slots"),
}
# Indexed run figures (a load sweep's points): pattern -> (meaning, unit); {i} is the index.
RUN_PATTERNS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"^rate_(?P<i>\d+)$"), "the load sweep's request rate number {i}",
     "requests per " + PER),
    (re.compile(r"^(?P<side>with|without)_p(?P<q>50|99)_(?P<i>\d+)$"),
     "p{q} time to first token at the sweep's rate number {i}, {side} the technique", TIME),
)
UNDOCUMENTED = ("a number of this scenario's run", "")


def placeholder_meaning(name: str, time_unit: str = "steps") -> tuple[str, str]:
    """(meaning, unit) of a placeholder name; `time_unit` replaces the "time" unit."""
    rid, dot, fieldname = name.partition(".")
    meaning, unit = REQUEST_MEANINGS.get(fieldname, UNDOCUMENTED) if dot else _run_meaning(name)
    if dot:
        meaning = meaning.replace("X's", f"{rid}'s").replace("X ", f"{rid} ")
    per = "step" if time_unit == "steps" else time_unit
    return meaning, unit.replace(TIME, time_unit).replace(PER, per)


def _run_meaning(name: str) -> tuple[str, str]:
    if name in RUN_MEANINGS:
        return RUN_MEANINGS[name]
    for pattern, meaning, unit in RUN_PATTERNS:
        found = pattern.match(name)
        if found:
            return meaning.format(**found.groupdict()), unit
    return UNDOCUMENTED


def documented(name: str) -> bool:
    rid, dot, fieldname = name.partition(".")
    return fieldname in REQUEST_MEANINGS if dot else _run_meaning(name) != UNDOCUMENTED


def placeholder_entries(
    values: Mapping[str, Mapping[str, str]],
    request_order: Sequence[str],
    time_unit: str,
) -> tuple[PlaceholderEntry, ...]:
    """The placeholders a scenario offers from its preset values by variant (`trace_values` of
    each preset): whole-run ones first, then per request (the first `OFFERED_REQUESTS`) by field."""
    names = {n for by in values.values() for n in by}
    shown = list(request_order)[:OFFERED_REQUESTS]
    run = sorted((n for n in names if "." not in n), key=_run_order)
    per_request = [
        f"{rid}.{f}" for f in REQUEST_MEANINGS for rid in shown if f"{rid}.{f}" in names
    ]
    undocumented = sorted(
        n for n in names if "." in n and n.partition(".")[0] in shown and n not in per_request
    )
    out = []
    for name in [*run, *per_request, *undocumented]:
        meaning, unit = placeholder_meaning(name, time_unit)
        out.append(
            PlaceholderEntry(
                name,
                meaning,
                unit,
                values.get("without", {}).get(name),
                values.get("with", {}).get(name),
            )
        )
    return tuple(out)


def _run_order(name: str) -> tuple[int, str]:
    order = list(RUN_MEANINGS)
    return (order.index(name) if name in order else len(order), name)


@dataclass(frozen=True)
class PlaceholderGroup:
    """Placeholders that share a meaning (one field over the requests), as the prompt lists them."""

    label: str
    meaning: str
    unit: str
    items: tuple[PlaceholderEntry, ...]


def grouped_placeholders(entry: ScenarioEntry) -> list[PlaceholderGroup]:
    """The scenario's placeholders by meaning: each whole-run one alone, each request field
    once for all requests (`X.ttft` = X's time to first token, then A's, B's, ... values)."""
    groups: dict[str, list[PlaceholderEntry]] = {}
    for p in entry.placeholders:
        _rid, dot, fieldname = p.name.partition(".")
        groups.setdefault(f"X.{fieldname}" if dot else p.name, []).append(p)
    out = []
    for label, items in groups.items():
        meaning, unit = placeholder_meaning(label, entry.time_unit)
        out.append(PlaceholderGroup(label, meaning, unit, tuple(items)))
    return out


def time_unit(trace: TraceView) -> str:
    """The scenario's clock as the prompt names it: ms for timed cost models, else steps."""
    return "ms" if trace.cost.time_unit == "ms" else "steps"


@cache
def build_catalogue() -> Catalogue:
    """Every scenario and technique the simulator offers, with the registry's data (runs each
    preset once: the traces are cached by content)."""
    from pipeline.fields.serving.engine import Run, run_trace, sweep_json
    from pipeline.fields.serving.stories import story
    from sim.presets.scenarios import SCENARIOS
    from sim.presets.sweep import METRICS, TECHNIQUES

    scenarios: dict[str, ScenarioEntry] = {}
    for sid, scenario in SCENARIOS.items():
        traces = {v: TraceView.from_json(run_trace(Run(sid, v))) for v in VARIANTS}
        values: dict[str, Mapping[str, str]] = {v: trace_values(t) for v, t in traces.items()}
        order = list(dict.fromkeys(r for t in traces.values() for r in t.requests))
        unit = time_unit(traces["with"])
        knobs = tuple(
            KnobEntry(
                k.id,
                k.meaning,
                k.unit,
                k.low,
                k.high,
                k.integer,
                k.variants,
                (k.preset_value(scenario.variants["without"]),
                 k.preset_value(scenario.variants["with"])),
            )
            for k in scenario.knobs
        )
        scenarios[sid] = ScenarioEntry(
            sid,
            scenario.title,
            scenario.description,
            DRAWN_BY.get(sid, ()),
            unit,
            placeholder_entries(values, order, unit),
            knobs,
            {v: story(t) for v, t in traces.items()},
        )
    measured = SweepView.from_json(sweep_json())
    techniques = tuple(TechniqueEntry(t.id, _measured_line(t.line(), measured.technique(t.id)))
                       for t in TECHNIQUES)
    return Catalogue(scenarios, techniques, tuple(METRICS), scene_shows=SCENE_SHOWS,
                     field=FIELD_ID)


def _measured_line(line: str, measured: TechniqueView | None) -> str:
    """A technique's prompt line with what the sweep measured (the model writes the ruler's
    sentence from these directions)."""
    from sim.presets.sweep import METRICS

    if measured is None:
        return line
    return f"{line}; measured: {measured.measured_summary(METRICS)}"


def fallback_catalogue(
    scenarios: Mapping[str, str], values_for: Callable[[Panel], Mapping[str, str]] | None
) -> Catalogue:
    """A catalogue from scenario descriptions alone (callers without the simulator's): the
    registry's scenes, and the placeholders `values_for` fills for each variant."""
    entries = {}
    for sid in sorted(scenarios):
        values: dict[str, Mapping[str, str]] = {}
        for variant in VARIANTS:
            if values_for is not None:
                probe = Panel(caption="-", scene="timeline", scenario=sid, variant=variant)
                values[variant] = values_for(probe)
        order = sorted({n.partition(".")[0] for by in values.values() for n in by if "." in n})
        entries[sid] = ScenarioEntry(
            sid,
            scenarios[sid],
            "",
            DRAWN_BY.get(sid, ()),
            "steps",
            placeholder_entries(values, order, "steps"),
        )
    return Catalogue(entries, scene_shows=SCENE_SHOWS, field=FIELD_ID)
