"""The sim stage's artifact (`sim/*.json`): one trace per `scenario/variant` (and per set of knobs a
panel gives, `scenario/variant+knob=value`) and the ruler's sweep,
with their typed views (`pipeline.artifacts.trace.TraceView`, `SweepView`) and the placeholder
values captions are filled from (`{D.ttft}` → `trace_values`).

The JSON is kept as the simulator wrote it, so `save` writes back the same bytes `load` read;
everything else reads the views.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.artifacts.trace import Json, TraceView
from pipeline.atomic import write_atomic
from pipeline.numfmt import one_decimal
from pipeline.plan.model import Panel

SWEEP_FILE = "sweep.json"

# Per-request trace fields a caption may name, e.g. `{D.ttft}`.
REQUEST_FIELDS = (
    "arrival",
    "first_token",
    "finish",
    "output_tokens",
    "ttft",
    "tpot",
    "e2el",
    "preemptions",
    "prefix_hit_tokens",
)


PERCENTILE_SUFFIX = "_p99"


@dataclass(frozen=True)
class TechniqueView:
    """One technique of the ruler's sweep: its measured change per metric, in percent, and
    (a sweep of named workloads) what it is compared with, on which workload, and which
    statistic of each metric the ruler shows (`shown`: metric id -> key, e.g. `itl_p99`)."""

    id: str
    label: str = ""
    change_pct: Mapping[str, float | None] = field(default_factory=dict)
    baseline_label: str = ""
    workload: str = ""
    workload_description: str = ""
    statistic: str = "mean"
    shown: Mapping[str, str] = field(default_factory=dict)
    baseline: Mapping[str, float] = field(default_factory=dict)
    variant: Mapping[str, float] = field(default_factory=dict)
    baseline_engine: Mapping[str, object] = field(default_factory=dict)
    fits: tuple[bool | None, bool | None] = (None, None)  # baseline, variant in GPU memory

    def key(self, metric: str) -> str:
        """The result key the ruler shows for `metric` (the metric itself unless the sweep
        says another statistic or metric tells this technique's story)."""
        return self.shown.get(metric, metric)

    def shown_pct(self, metric: str) -> float | None:
        """The shown key's change in percent: from the two measured values when the sweep
        gives them (its `change_pct` is already rounded to 0.1: 9.47 there is 9.5, which a
        whole-percent cell would round again to 10), else the sweep's own figure."""
        before, after = self.absolute(metric)
        if before and after is not None:
            return (after - before) / before * 100
        return self.change_pct.get(self.key(metric))

    def shown_as(self, metric: str) -> tuple[str, bool]:
        """(the metric shown in `metric`'s place, whether it is the p99): ("tpot", False)."""
        key = self.key(metric)
        return key.removesuffix(PERCENTILE_SUFFIX), key.endswith(PERCENTILE_SUFFIX)

    def absolute(self, metric: str) -> tuple[float | None, float | None]:
        """The shown key's baseline and variant values (None when the sweep gives none)."""
        key = self.key(metric)
        return self.baseline.get(key), self.variant.get(key)

    def measured_summary(self, metrics: tuple[str, ...] | list[str]) -> str:
        """The shown change of each metric in words: "throughput +44%, itl (as itl_p99) -90%"."""
        parts = []
        for m in metrics:
            pct, key = self.shown_pct(m), self.key(m)
            if pct is not None:
                parts.append(f"{m if key == m else f'{m} (as {key})'} {round(pct):+d}%")
        return ", ".join(parts)

    @classmethod
    def from_json(cls, t: Json) -> TechniqueView:
        workload = t.get("workload")
        # a sweep that writes the row's workload as a line of its own (training) names none
        workload = (workload if isinstance(workload, Mapping)
                    else {"description": workload} if isinstance(workload, str) else {})
        return cls(
            str(t["id"]),
            str(t.get("label", "")),
            {m: None if v is None else float(v) for m, v in (t.get("change_pct") or {}).items()},
            baseline_label=str(t.get("baseline_label", "")),
            workload=str(workload.get("id", "")),
            workload_description=str(workload.get("description", "")),
            statistic=str(t.get("statistic", "mean")),
            shown={str(m): str(k) for m, k in (t.get("shown") or {}).items()},
            baseline=_numbers(t.get("baseline")),
            variant=_numbers(t.get("variant")),
            baseline_engine=dict((t.get("baseline") or {}).get("engine") or {}),
            fits=(_fits(t.get("baseline")), _fits(t.get("variant"))),
        )


@dataclass(frozen=True)
class WorkloadView:
    """One named workload of the sweep: its title, its one line (English, from the same data
    that built its requests) and that data (`facts`: streams, model, GPU, SLOs), from which a
    page writes the line in its own language."""

    id: str
    title: str = ""
    description: str = ""
    facts: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class SweepView:
    """The ruler's sweep (`sim.presets.sweep`): every technique's effect, each on its workload."""

    techniques: tuple[TechniqueView, ...] = ()
    metrics: tuple[str, ...] = ()
    description: str = ""
    workloads: Mapping[str, WorkloadView] = field(default_factory=dict)
    units: Mapping[str, str] = field(default_factory=dict)  # metric key -> unit words

    def technique(self, tid: str) -> TechniqueView | None:
        return next((t for t in self.techniques if t.id == tid), None)

    @classmethod
    def from_json(cls, data: Json) -> SweepView:
        workload = data.get("workload")
        named = data.get("workloads")
        units = workload.get("units") if isinstance(workload, Mapping) else None
        return cls(
            techniques=tuple(TechniqueView.from_json(t) for t in data.get("techniques", [])),
            metrics=tuple(str(m) for m in data.get("metrics", [])),
            description=str(workload.get("description", "")) if isinstance(workload, Mapping) else "",
            workloads={
                str(wid): WorkloadView(str(wid), str(w.get("title", "")),
                                       str(w.get("description", "")), dict(w))
                for wid, w in (named.items() if isinstance(named, Mapping) else ())
            },
            units={str(k): str(v) for k, v in units.items()} if isinstance(units, Mapping) else {},
        )


def _fits(side: object) -> bool | None:
    """Whether a run's memory fits its GPUs (`fits`, from sweeps that check it)."""
    value = side.get("fits") if isinstance(side, Mapping) else None
    return value if isinstance(value, bool) else None


def _numbers(side: object) -> dict[str, float]:
    """A run's measured numbers (its `engine` and anything not a number left out)."""
    if not isinstance(side, Mapping):
        return {}
    return {str(k): float(v) for k, v in side.items()
            if isinstance(v, int | float) and not isinstance(v, bool)}


def format_number(value: float | None) -> str:
    """Whole numbers as integers, others with one decimal: small enough to check by hand."""
    return "?" if value is None else one_decimal(value)


def trace_key(scenario: str, variant: str, knobs: Mapping[str, float] | None = None) -> str:
    """The name a trace is stored under: `scenario/variant`, plus `+knob=value,...` (sorted)
    when the panel sets knobs, so each knobbed run is its own file."""
    base = f"{scenario}/{variant}"
    if not knobs:
        return base
    return base + "+" + ",".join(f"{k}={format_knob(v)}" for k, v in sorted(knobs.items()))


def format_knob(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(float(value))


def trace_values(trace: TraceView) -> dict[str, str]:
    """The placeholder values a trace offers: `X.field` per request, plus page-wide figures."""
    values: dict[str, str] = {}
    for rid, req in trace.requests.items():
        for name in REQUEST_FIELDS:
            value = getattr(req, name)
            if value is not None:
                values[f"{rid}.{name}"] = format_number(value)
        first = trace.first_scheduled(rid)
        first_sched = first.index if first is not None else None
        if first_sched is not None:
            values[f"{rid}.first_step"] = str(first_sched)
            # steps that ran after it arrived, before its first (any clock: steps or ms)
            waited = sum(
                1 for s in trace.steps if s.index < first_sched and s.start >= req.arrival - 1e-9
            )
            values[f"{rid}.wait"] = str(waited)
        read = trace.prompt_steps(rid)
        if read:
            values[f"{rid}.prefill_steps"] = str(len(read))
    steps = trace.steps
    values["steps"] = str(len(steps))
    values["tokens"] = str(sum(s.total_tokens for s in steps))
    values["preempted"] = str(sum(len(s.preempted) for s in steps))
    # A stalled run never finishes: it has no duration or throughput to quote (its summary's
    # zeros are not measurements), so a caption cannot say "took 0"
    if trace.summary.duration is not None and not trace.stalled:
        values["duration"] = format_number(trace.summary.duration)
    if trace.summary.output_throughput is not None and not trace.stalled:
        values["throughput"] = format_number(trace.summary.output_throughput)
    if steps:
        values["min_free_blocks"] = str(min(s.free_blocks for s in steps))
    for key, val in trace.figures.items():
        values[key] = format_number(val)
    return values


@dataclass(frozen=True)
class SimResults:
    """The sim stage's artifact: trace JSON by `scenario/variant`, and the ruler's sweep, as the
    simulator wrote them; `traces` and `sweep` are their typed views."""

    trace_json: Mapping[str, Json] = field(default_factory=dict)
    sweep_json: Json | None = None
    traces: Mapping[str, TraceView] = field(init=False, repr=False, compare=False)
    sweep: SweepView | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        views = {name: TraceView.from_json(t) for name, t in self.trace_json.items()}
        object.__setattr__(self, "traces", views)
        sweep = SweepView.from_json(self.sweep_json) if self.sweep_json is not None else None
        object.__setattr__(self, "sweep", sweep)

    def trace(
        self, scenario: str, variant: str, knobs: Mapping[str, float] | None = None
    ) -> TraceView | None:
        return self.traces.get(trace_key(scenario, variant, knobs))

    def panel_trace(self, panel: Panel) -> TraceView | None:
        if panel.scenario is None or panel.variant is None:
            return None
        return self.trace(panel.scenario, panel.variant, panel.knob_values())

    def values(self, panel: Panel) -> Mapping[str, str]:
        trace = self.panel_trace(panel)
        return trace_values(trace) if trace is not None else {}

    def save(self, out_dir: Path) -> None:
        """One `<scenario>--<variant>.json` per trace, and `sweep.json`."""
        out_dir.mkdir(parents=True, exist_ok=True)
        for name, trace in self.trace_json.items():
            _write_json(out_dir / (name.replace("/", "--") + ".json"), trace)
        if self.sweep_json is not None:
            _write_json(out_dir / SWEEP_FILE, self.sweep_json)

    @classmethod
    def load(cls, out_dir: Path) -> SimResults:
        traces: dict[str, Json] = {}
        sweep: Json | None = None
        for path in sorted(out_dir.glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            if path.name == SWEEP_FILE:
                sweep = data
            else:
                traces[path.stem.replace("--", "/")] = data
        return cls(traces, sweep)


def _write_json(path: Path, data: object) -> None:
    write_atomic(path, json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
