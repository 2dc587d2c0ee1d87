"""Under the ruler (P22): for every row, what it is compared with and on which workload, in the
page's language, plus one line saying how the cells were measured ("P99" marks a percentile).

The words come from the sweep: English pages show its own workload lines (`description`) and
baseline labels; Chinese pages write the same lines from the sweep's data (`facts`: streams,
rates, lengths, targets; the baseline's engine for its numbers), so both languages carry the
same numbers and neither can drift from the run. A row a source states instead (cited
effects) says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pipeline import fields
from pipeline.artifacts.sim import SweepView, TechniqueView, WorkloadView
from pipeline.draw.ruler_rows import Row, p99_word, ruler_table
from pipeline.plan.model import Plan

# The techniques' baselines in Chinese; {key} is the baseline engine's value of that key.
BASELINES_ZH = {
    "continuous_batching": "静态批处理（一批写完才换下一批）",
    "paged_kv": "每个请求预留整段 {max_model_len} 个 token 的上下文",
    "chunked_prefill": "不切块（整段预填充和解码挤在同一步）",
    "prefix_caching": "不开前缀缓存",
    "token_budget": "每步 {max_num_batched_tokens} 个 token 的预算",
    "spec_decode": "不做投机解码（这里用 n-gram 猜测，猜本身不花时间，所以是收益的上限）",
    "fp8_kv": "bf16 的 KV cache",
    "tensor_parallel": "一张 GPU",
    "disaggregation": "两张 GPU 各自兼做预填充和解码",
}
WORKLOAD_TITLES_ZH = {
    "busy_chat": "繁忙的聊天",
    "long_prompts": "聊天中夹着长提示词",
    "mixed_slo": "聊天中夹着长提示词，带延迟目标",
    "shared_prompt": "共用一段系统提示词",
    "low_load": "低负载",
    "long_context": "长上下文",
    "long_context_full": "长上下文，多于缓存装得下的",
}
STREAMS_ZH = {"chat": "聊天请求", "document": "长文档请求", "request": "请求"}
WORDS = {
    "zh": {
        "vs": "对比{baseline}，负载：{workload}",
        "cited": "文献所说，不是模拟测的",
        "machine": "{model}，{gpu} GPU，耗时由校准过的代价模型估算",
        "how": "数值是模拟器测的（{machine}）；没有标注的格子是平均值",
        "p99": "；标 {p99} 的是第 99 百分位，即最慢那 1% 的值",
        "tpot": "；标 TPOT 的是首字之后平均每个 token 的时间：一步写出好几个 token 时它变小，"
                "出字间隔却把这几个 token 算作一次间隔，所以这一格写 TPOT",
        "end": "。",
        "sep": "：",
        "small": "卡片若画的是更小的算例，数字就和这里的不同。",
        "how_field": "数值是模拟器测的（{machine}）",
        "numbers": "：{cells}",
        "cell": "{name} {before} → {after}{unit}",
        "join": "，",
        "no_fit_baseline": "；基线放不进 GPU 显存，其实跑不起来：表中它的显存是它需要的量，时间是装得下时它要花的",
        "no_fit_variant": "；这一招的这次运行也放不进 GPU 显存",
        "slo": "；两项目标都达到的请求 {before}% → {after}%",
    },
    "en": {
        "vs": "vs {baseline}, on {workload}",
        "cited": "a source's claim, not simulated",
        "machine": "{model} on {gpu} GPUs, step times estimated by the calibrated cost model",
        "how": "The numbers are the simulator's ({machine}); unmarked cells are means",
        "p99": "; {p99} marks the 99th percentile, what the slowest 1% see",
        "tpot": "; TPOT is the mean time per output token after the first: a step that writes "
                "several tokens at once lowers it, where the inter-token gap counts those tokens "
                "as one gap, so the cell shows TPOT",
        "end": ".",
        "sep": ": ",
        "small": " Where a card draws a smaller example, its numbers differ from these.",
        "how_field": "The numbers are the simulator's ({machine})",
        "numbers": ": {cells}",
        "cell": "{name} {before} → {after}{unit}",
        "join": ", ",
        "no_fit_baseline": "; the baseline does not fit in GPU memory, so it cannot run: its "
                           "memory is what it would need, its times what it would take if it fit",
        "no_fit_variant": "; this run of the technique does not fit in GPU memory either",
        "slo": "; requests meeting both targets {before}% → {after}%",
    },
}


@dataclass(frozen=True)
class RunLine:
    """One ruler row under the chart: its name and what it is compared with, on what."""

    name: str
    text: str


@dataclass(frozen=True)
class WorkloadLine:
    title: str
    description: str


@dataclass(frozen=True)
class RulerRuns:
    how: str
    rows: tuple[RunLine, ...]
    workloads: tuple[WorkloadLine, ...]


def _count(n: Any) -> str:
    value = float(n)
    return f"{value:,.0f}" if value == int(value) else f"{value:g}"


def _output_zh(output: Mapping[str, Any]) -> str:
    if output.get("kind") == "uniform":
        return f"{_count(output['low'])}-{_count(output['high'])}"
    if output.get("kind") == "fixed":
        return _count(output["value"])
    return f"中位 {_count(output['median'])}、最长 {_count(output['max'])}"


def _stream_zh(stream: Mapping[str, Any]) -> str:
    kind = STREAMS_ZH.get(str(stream["name"]), str(stream["name"]))
    rate = stream.get("rate")
    when = f"每秒 {float(rate):g} 个" if rate is not None else "开始时全部在排队"
    low, high = stream["prompt"]
    prompt = f"提示词 {_count(low)}-{_count(high)} 个 token"
    if stream.get("shared_prefix"):
        prompt += f"，前 {_count(stream['shared_prefix'])} 个人人相同"
    return f"{stream['n']} 个{kind}，{when}，{prompt}，回答 {_output_zh(stream['output'])} 个 token"


def workload_words(workload: WorkloadView, lang: str) -> str:
    """The workload's one line: the sweep's own (en), or the same data in Chinese."""
    if lang != "zh":
        return workload.description
    facts: Mapping[str, Any] = workload.facts
    parts = ["；另有 ".join(_stream_zh(s) for s in facts.get("streams") or [])]
    if facts.get("at_a_time"):
        parts.append(f"每次最多 {facts['at_a_time']} 个同时跑")
    if facts.get("accept"):
        parts.append("草稿依次被接受 " + "、".join(map(str, facts["accept"])) + " 个")
    slo = facts.get("slo")
    if isinstance(slo, Mapping) and slo:
        parts.append("目标 " + "、".join(f"{k.upper()} ≤ {_count(v)} ms" for k, v in slo.items()))
    return "；".join(parts)


def workload_title(workload: WorkloadView, lang: str) -> str:
    return WORKLOAD_TITLES_ZH.get(workload.id, workload.title) if lang == "zh" else workload.title


def baseline_words(tech: TechniqueView, lang: str) -> str:
    """What the technique is compared with: the sweep's label (en), the Chinese words with the
    baseline engine's numbers filled in (zh)."""
    zh = BASELINES_ZH.get(tech.id)
    if lang != "zh" or zh is None:
        return tech.baseline_label or tech.label
    numbers = {k: _count(v) for k, v in tech.baseline_engine.items() if isinstance(v, int | float)}
    return zh.format(**numbers)


def _value(x: float) -> str:
    """Three significant figures: what a reader compares, not the sweep's full precision."""
    return f"{float(f'{x:.3g}'):,g}" if abs(x) < 1e6 else f"{x:,.0f}"


def _short_unit(unit: str) -> str:
    """A sweep unit's first word ("GB on the fullest GPU" -> " GB"; "%..." -> "%")."""
    word = unit.split()[0] if unit.split() else ""
    if not word or word == "output":
        word = unit.split()[1] if len(unit.split()) > 1 else ""
    return word if word.startswith("%") else f" {word}" if word else ""


def _absolutes(row: Row, units: Mapping[str, str], words: Mapping[str, str]) -> str:
    """The numbers behind the row's percentages ("memory 191 → 78.8 GB"), and whether its
    baseline or its own run fits in GPU memory (a sweep that checks it)."""
    tech = row.technique
    if tech is None:
        return ""
    cells = []
    for cell in row.cells:
        before, after = tech.absolute(cell.metric.id)
        if before is None or after is None:
            continue
        unit = _short_unit(units.get(tech.key(cell.metric.id).removesuffix("_p99"), ""))
        name = f"{cell.metric.name} {cell.note}" if cell.note else cell.metric.name
        cells.append(words["cell"].format(name=name, before=_value(before),
                                          after=_value(after), unit=unit))
    text = words["numbers"].format(cells=words["join"].join(cells)) if cells else ""
    met = (tech.baseline.get("slo_attainment"), tech.variant.get("slo_attainment"))
    if met[0] is not None and met[1] is not None:  # a workload with targets: who met them
        text += words["slo"].format(before=_value(100 * met[0]), after=_value(100 * met[1]))
    if tech.fits[0] is False:
        text += words["no_fit_baseline"]
    if tech.fits[1] is False:
        text += words["no_fit_variant"]
    return text


def _row_line(
    row: Row, sweep: SweepView, words: Mapping[str, str], lang: str, units: Mapping[str, str]
) -> RunLine:
    tech = row.technique
    if tech is None:
        return RunLine(row.name(lang), words["cited"])
    workload = sweep.workloads.get(tech.workload)
    title = workload_title(workload, lang) if workload is not None else tech.workload
    text = words["vs"].format(baseline=baseline_words(tech, lang), workload=title)
    return RunLine(row.name(lang), text + _absolutes(row, units, words))


def _machine(used: list[WorkloadView], words: Mapping[str, str]) -> str:
    machines = {(w.facts.get("model"), w.facts.get("gpu")) for w in used}
    if len(machines) == 1:
        model, gpu = next(iter(machines))
        if model and gpu:
            return words["machine"].format(model=model, gpu=gpu)
    return ""


def _with_machine(sentence: str, machine: str) -> str:
    """The sentence with its machine in brackets, or without the brackets when none is known."""
    return sentence.format(machine=machine).replace("（）", "").replace(" ()", "")


def _how(rows: list[Row], machine: str, plan: Plan, words: Mapping[str, str]) -> str:
    how = _with_machine(words["how"], machine)
    notes = [c.note for r in rows for c in r.cells if c.note]
    p99 = p99_word(plan)
    if any(p99 in n for n in notes):
        how += words["p99"].format(p99=p99)
    if any("TPOT" in n for n in notes):
        how += words["tpot"]
    return how + words["end"]


def ruler_runs(plan: Plan, sweep: SweepView) -> RulerRuns | None:
    """The list under the ruler, or None when no row was measured on a named workload (an old
    sweep, or a ruler of cited rows only)."""
    lang = plan.lang
    words = WORDS["zh" if lang == "zh" else "en"]
    rows = ruler_table(plan, sweep)
    measured = [r.technique for r in rows if r.technique is not None]
    if not measured:
        return None
    if not all(t.workload in sweep.workloads for t in measured):
        return _field_runs(rows, plan, words, sweep.units)
    used = [sweep.workloads[wid] for wid in dict.fromkeys(t.workload for t in measured)]
    return RulerRuns(
        how=_how(rows, _machine(used, words), plan, words),
        rows=tuple(_row_line(r, sweep, words, lang, sweep.units) for r in rows),
        workloads=tuple(WorkloadLine(workload_title(w, lang), workload_words(w, lang))
                        for w in used),
    )


def _field_runs(
    rows: list[Row], plan: Plan, words: Mapping[str, str], units: Mapping[str, str]
) -> RulerRuns | None:
    """The same list for a sweep that writes each row's workload as a line of its own (the
    training sweep): the row's field gives its baseline and workload words in the page's
    language; None when it gives none for some row."""
    lang = plan.lang
    lines: list[RunLine] = []
    workloads: dict[str, WorkloadLine] = {}
    machines: set[str] = set()
    for row in rows:
        if row.technique is None:
            lines.append(RunLine(row.name(lang), words["cited"]))
            continue
        owner = fields.field(fields.concept_field(row.concept))
        said = owner.ruler_row_words(row.technique, lang)
        if said is None:
            return None
        baseline, title, description = said
        text = words["vs"].format(baseline=baseline, workload=title)
        lines.append(RunLine(row.name(lang), text + _absolutes(row, units, words)))
        workloads.setdefault(title, WorkloadLine(title, description))
        machines.add(owner.ruler_machine(lang))
    machine = next(iter(machines)) if len(machines) == 1 else ""
    how = _with_machine(words["how_field"], machine)
    return RulerRuns(how=how + words["end"] + words["small"], rows=tuple(lines),
                     workloads=tuple(workloads.values()))
