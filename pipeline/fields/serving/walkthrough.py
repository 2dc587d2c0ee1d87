"""The zero-background walkthrough's words (P9): one plain sentence per simulator step, and the
without-vs-with comparison table, both computed from traces (never written by the LLM).

Every number here is read or counted from a trace, so the section can carry the 示意值 tag.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipeline.artifacts.sim import format_number
from pipeline.artifacts.trace import StepView, TraceView
from pipeline.fields.base import CompareRow
from pipeline.fields.serving.steps import instance_label

SENTENCES: Mapping[str, Mapping[str, str]] = {
    "zh": {
        "decode": "{who} 各写 1 个字",
        "decode_one": "{who} 写 1 个字",
        "prefill": "{who} 预填充 {n} 个 token，还没出字",
        "first": "{who} 算完最后 {n} 个提示词 token，吐出第一个字",
        "first_whole": "{who} 一步算完整段 {n} 个 token 的提示词，吐出第一个字",
        "recompute": "{who} 重算 {n} 个 token 后接着写",
        "stalled": "{who} 这一步没分到 token，干等",
        "waiting": "{who} 还在排队",
        "preempted": "{who} 被抢占，KV 块被收回",
        "finished": "{who} 写完离场，释放 KV 块",
        "idle": "这一步没人被调度",
        "verify": "{who} 验证 {k} 个草稿、接受 {a} 个，写出 {n} 个字",
        "verify_last": "{who} 验证 {k} 个草稿、接受 {a} 个，只写出最后 {n} 个字（回答到了长度上限，没有加的那一个）",
        "handoff": "{who} 的 KV 搬到解码 GPU（用时 {t} {unit}）",
        "on": "{where} 上：",
        "took": "{who} 多占 {n} 块",
        "free": "KV 块还空 {n} 块",
        "total": "本步共 {n} 个 token",
        "budget": "（预算 {cap}）",
        "took_time": "，用时 {t} {unit}",
        "join": "；",
        "end": "。",
        "sep": "、",
    },
    "en": {
        "decode": "{who} each write 1 token",
        "decode_one": "{who} writes 1 token",
        "prefill": "{who} prefills {n} prompt tokens, no output yet",
        "first": "{who} computes its last {n} prompt tokens and emits its first token",
        "first_whole": "{who} computes its whole {n}-token prompt and emits its first token",
        "recompute": "{who} recomputes {n} tokens, then writes on",
        "stalled": "{who} get no tokens this step and wait",
        "stalled_one": "{who} gets no tokens this step and waits",
        "waiting": "{who} still wait in the queue",
        "waiting_one": "{who} still waits in the queue",
        "preempted": "{who} are preempted and lose their KV blocks",
        "preempted_one": "{who} is preempted and loses its KV blocks",
        "finished": "{who} finish and free their KV blocks",
        "finished_one": "{who} finishes and frees its KV blocks",
        "idle": "nobody is scheduled this step",
        "verify": "{who} verifies {k} drafts, accepts {a} and writes {n} tokens",
        "verify_one": "{who} verifies {k} drafts, accepts {a} and writes 1 token",
        "verify_last": "{who} verifies {k} drafts, accepts {a} and writes its last {n} tokens "
        "(its answer reaches its length: no extra token)",
        "verify_last_one": "{who} verifies {k} drafts, accepts {a} and writes its last token "
        "(its answer reaches its length: no extra token)",
        "handoff": "{who}'s KV moves to the decode GPU (takes {t} {unit})",
        "on": "on {where}: ",
        "took": "{who} takes {n} more KV blocks",
        "took_one": "{who} takes 1 more KV block",
        "free": "{n} KV blocks stay free",
        "free_one": "1 KV block stays free",
        "the": "the ",
        "total": "{n} tokens in this step",
        "budget": " (budget {cap})",
        "took_time": ", taking {t} {unit}",
        # English singulars (n == 1); Chinese needs none.
        "prefill_one": "{who} prefills 1 prompt token, no output yet",
        "first_one": "{who} computes its last prompt token and emits its first token",
        "first_whole_one": "{who} computes its 1-token prompt and emits its first token",
        "recompute_one": "{who} recomputes 1 token, then writes on",
        "total_one": "1 token in this step",
        "join": "; ",
        "end": ".",
        "sep": ", ",
    },
}

TABLE_ROWS: Mapping[str, Mapping[str, str]] = {
    "zh": {
        "ttft": "{who} 的首字延迟（{unit}）",
        "steps": "总步数",
        "max_step_tokens": "单步最多 token",
        "max_gap": "老请求最长出字间隔（{unit}）",
        "stalls": "老请求干等的次数",
        "preempted": "被抢占次数",
        "throughput": "吞吐（token/{unit_one}）",
        "good": "满足全部服务目标的请求数",
        "perceived": "看到第一批字前的平均等待（{unit}）",
        "accepted_len": "平均接受长度（每次验证：1 + 接受的猜测数）",
    },
    "en": {
        "ttft": "{who}'s time to first token ({unit})",
        "steps": "Steps in total",
        "max_step_tokens": "Most tokens in one step",
        "max_gap": "Longest gap between tokens, old requests ({unit})",
        "stalls": "Times an old request waited",
        "preempted": "Preemptions",
        "throughput": "Throughput (tokens per {unit_one})",
        "good": "Requests meeting every SLO",
        "perceived": "Average wait before the first words ({unit})",
        "accepted_len": "Mean acceptance length (1 + guesses accepted per check)",
    },
}

# The trace's clock: the unit cost model counts engine steps, the linear and roofline models
# milliseconds (the trace's `cost.time_unit`). (plural label, per-one label) per language.
TIME_UNITS: Mapping[str, Mapping[str, tuple[str, str]]] = {
    "zh": {"step": ("步", "步"), "ms": ("毫秒", "毫秒"), "s": ("秒", "秒")},
    "en": {"step": ("steps", "step"), "ms": ("ms", "ms"), "s": ("s", "s")},
}
COST_KIND_UNITS: Mapping[str, str] = {"unit": "step", "linear": "ms", "roofline": "ms"}
DEFAULT_TIME_UNIT = "step"
TIMED_FIGURES = frozenset({"ttft", "max_gap", "throughput", "perceived"})
QUIET_WHEN_ZERO = frozenset({"stalls", "preempted"})  # events: a row only when one run has any


@dataclass(frozen=True)
class WalkRow:
    index: int
    sentence: str


def _for_group(words: Mapping[str, str], key: str, ids: Sequence[str]) -> str:
    """The sentence for one request (`key_one`, where the language has it) or for several."""
    return words.get(f"{key}_one", words[key]) if len(ids) == 1 else words[key]


def _who(ids: Sequence[str], lang: str) -> str:
    return SENTENCES[lang]["sep"].join(ids)


def _counted(words: Mapping[str, str], key: str, n: int) -> str:
    """The sentence pattern for a count: the language's singular form when n is 1 and it has one."""
    return words.get(f"{key}_one", words[key]) if n == 1 else words[key]


def step_sentences(trace: TraceView, lang: str, blocks: bool = False) -> list[WalkRow]:
    """One deterministic sentence per step: who got how many tokens, who emitted, who waited;
    with speculative decoding who verified how many drafts, in multi-instance runs on which GPU
    and whose KV moved to the decode GPU; with `blocks` (a memory concept's walkthrough), who
    took how many more KV blocks and how many stay free."""
    words = SENTENCES[lang]
    held_before: dict[str, int] = {}
    unit = TIME_UNITS[lang][time_unit(trace)][0]
    emitted_before: set[str] = set()
    scheduled_before: set[str] = set()  # a prompt first scheduled in this step is done whole
    rows: list[WalkRow] = []
    for step in trace.steps:
        scheduled = step.scheduled
        emitted = set(step.emitted)
        verifiers = [r for r in scheduled if r in step.drafts]
        decoders = [
            r for r, n in scheduled.items()
            if n == 1 and r in emitted_before and r not in verifiers
        ]
        parts = []
        if decoders:
            key = "decode" if len(decoders) > 1 else "decode_one"
            parts.append(words[key].format(who=_who(decoders, lang)))
        for rid in verifiers:
            wrote = step.emitted_tokens.get(rid, 0)
            accepted = step.accepted.get(rid, 0)
            # every pass writes its accepted drafts plus one token of its own, unless the
            # answer ends first (a reader saw "accepts 3 and writes 3" break that rule)
            key = "verify_last" if wrote <= accepted else "verify"
            parts.append(_counted(words, key, wrote).format(
                who=rid, k=step.drafts[rid], a=accepted, n=wrote))
        for rid, n in scheduled.items():
            if rid in decoders or rid in verifiers:
                continue
            if rid in emitted_before:
                key = "recompute"
            elif rid in emitted:
                hit = trace.requests[rid].prefix_hit_tokens if rid in trace.requests else 0
                key = "first" if rid in scheduled_before or hit else "first_whole"
            else:
                key = "prefill"
            parts.append(_counted(words, key, n).format(who=rid, n=n))
        stalled = [r for r in step.running if r not in scheduled]
        if stalled:
            parts.append(_for_group(words, "stalled", stalled).format(who=_who(stalled, lang)))
        if step.preempted:
            parts.append(_for_group(words, "preempted", step.preempted).format(who=_who(step.preempted, lang)))
        if step.waiting:
            parts.append(_for_group(words, "waiting", step.waiting).format(who=_who(step.waiting, lang)))
        if step.finished:
            parts.append(_for_group(words, "finished", step.finished).format(who=_who(step.finished, lang)))
        moves: dict[str, list[str]] = {}  # transfer time -> whose KV took it
        for rid in step.handoff:
            moved = trace.requests[rid].transfer if rid in trace.requests else None
            if moved is not None:
                moves.setdefault(format_number(moved[1] - moved[0]), []).append(rid)
        for took, who in moves.items():
            parts.append(words["handoff"].format(who=_who(who, lang), t=took, unit=unit))
        if blocks:
            for rid, n in step.blocks.items():
                more = n - held_before.get(rid, 0)
                if more > 0 and rid not in step.preempted:
                    parts.append(_counted(words, "took", more).format(who=rid, n=more))
            parts.append(_counted(words, "free", step.free_blocks).format(n=step.free_blocks))
            held_before = dict(step.blocks)
        if not parts:
            parts.append(words["idle"])
        total = sum(scheduled.values())
        said = _counted(words, "total", total).format(n=total)
        if trace.engine is not None and trace.engine.max_num_batched_tokens:
            said += words["budget"].format(cap=trace.engine.max_num_batched_tokens)
        if time_unit(trace) == "ms":  # the step's time, so the table's ms can be traced
            said += words["took_time"].format(t=step_time(step), unit=unit)
        parts.append(said)
        sentence = words["join"].join(parts) + words["end"]
        if step.instance is not None:
            where = instance_label(step.instance, lang)
            if "-" in step.instance:  # a pool's GPU: "the prefill GPU"
                where = words.get("the", "") + where
            sentence = words["on"].format(where=where) + sentence
        if lang == "en":
            sentence = sentence[0].upper() + sentence[1:]
        rows.append(WalkRow(step.index, sentence))
        emitted_before |= emitted
        scheduled_before |= set(scheduled)
    return rows


def _figures(trace: TraceView, newcomer: str) -> dict[str, float | None]:
    steps = trace.steps
    requests = trace.requests
    # parallel sampling: the newcomer is its children (the trace has no request of its own)
    parent = trace.parents.get(newcomer) if newcomer not in requests else None
    family = set(parent.children) if parent is not None else {newcomer}
    old = [r for r in requests if r not in family]
    gaps = [g for rid in old for g in requests[rid].gaps]
    emitted_before: set[str] = set()
    stalls = 0
    for step in steps:
        stalls += sum(
            1
            for r in step.running
            if r in old and r in emitted_before and r not in step.scheduled
        )
        emitted_before |= set(step.emitted)
    ttfts = [requests[r].ttft for r in family if r in requests]
    known = [t for t in ttfts if t is not None]
    summary = trace.summary
    wait = summary.perceived_wait
    return {
        "ttft": min(known) if known and len(known) == len(ttfts) else None,
        "steps": len(steps),
        "max_step_tokens": max((s.total_tokens for s in steps), default=0),
        "max_gap": max(gaps) if gaps else None,
        "stalls": stalls,
        "preempted": sum(len(s.preempted) for s in steps),
        "throughput": summary.output_throughput,
        "good": summary.good_requests,
        "perceived": wait.mean if wait is not None else None,
        "accepted_len": summary.mean_accepted_length,
    }


def step_time(step: StepView) -> str:
    """A step's time as the walkthrough writes it (and the review lists it): to the thousandth,
    so a comic's 1 + 3 x 0.25 reads 1.75, not a rounded 1.8."""
    return f"{round(step.duration, 3):g}"


def time_unit(trace: TraceView) -> str:
    """The unit of the trace's times: its cost model's `time_unit`, else the model kind's."""
    cost = trace.cost
    unit = str(cost.time_unit or COST_KIND_UNITS.get(str(cost.kind), ""))
    return unit if unit in TIME_UNITS["en"] else DEFAULT_TIME_UNIT


def comparison_rows(
    without: TraceView, with_: TraceView, newcomer: str, lang: str
) -> list[CompareRow]:
    """The without/with table: same figures, counted the same way from both traces, times
    labelled in the unit of the traces' cost model."""
    a, b = _figures(without, newcomer), _figures(with_, newcomer)
    labels = TABLE_ROWS[lang]
    unit_key = time_unit(with_)
    if time_unit(without) != unit_key:
        # Two clocks cannot share a row: only the counts stay comparable.
        a = {k: (None if k in TIMED_FIGURES else v) for k, v in a.items()}
        b = {k: (None if k in TIMED_FIGURES else v) for k, v in b.items()}
    unit, unit_one = TIME_UNITS[lang][unit_key]
    rows = []
    for key, label in labels.items():
        if a[key] is None and b[key] is None:
            continue
        if key in QUIET_WHEN_ZERO and not a[key] and not b[key]:
            continue  # nobody preempted or stalled in either run: the row would say nothing
        rows.append(
            CompareRow(
                label.format(who=newcomer, unit=unit, unit_one=unit_one),
                "—" if a[key] is None else format_number(a[key]),
                "—" if b[key] is None else format_number(b[key]),
            )
        )
    return rows
