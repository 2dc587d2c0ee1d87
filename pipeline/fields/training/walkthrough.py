"""The training field's zero-background walkthrough (P9): a stuck concept told step by step from
its run, and the without-vs-with table, every number read off the two runs.

A pipeline concept is told moment by moment (each time some GPU starts an action): which GPU
runs which micro-batch's forward (F) or backward (B), who idles. A data-parallel one is told
ring step by ring step: in step s of the all-reduce's reduce-scatter GPU g passes chunk
(g - s) mod n to GPU g+1, which adds it to its own; after n-1 steps each GPU holds one chunk
fully summed, and the all-gather passes the sums round the same way. Micro-batches and chunks
are numbered from 1, as a reader counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pipeline.fields.base import CompareRow
from pipeline.fields.training.values import clock, gb, number, ring_steps
from pipeline.fields.training.view import Action, Collective, TrainingView

MAX_MOMENTS = 12  # the first moments tell the fill and the first backwards; the last one ends it
EPS = 1e-9

WORDS: Mapping[str, Mapping[str, str]] = {
    "zh": {
        "at": "时刻 {t}：", "runs": "GPU {r} 做 {kind}{mb}", "idle": "GPU {who} 空着等",
        "sep": "，", "then": "；", "end": "。", "first": "（F{mb} = 第 {mb} 个微批次的前向，B = 反向{chunks}）",
        "last": "这是最后一个动作，到 {t} 一步结束", "who_sep": "、",
        "rs": "第 {s} 轮（归约散播）：每张 GPU 把一块传给下一张，下一张把它加到自己那块上",
        "ag": "第 {s} 轮（全收集）：每张 GPU 把加好的一块传给下一张，下一张照抄",
        "rs_done": "；现在每张 GPU 都有一块是 {n} 张 GPU 的总和",
        "ag_done": "；现在每张 GPU 都有全部 {n} 块的总和，可以更新权重",
        "rs_first": "（{n} 张 GPU 各把 {size} 的梯度切成 {n} 块；GPU g 先传第 g+1 块）",
        "chunk2": "（第二段）", "chunks": "；每张 GPU 存两段层，标“第二段”的是后一段，图里画粗框",
    },
    "en": {
        "at": "At t = {t}: ", "runs": "GPU {r} runs {kind}{mb}", "idle": "GPU {who} idle",
        "sep": ", ", "then": "; ", "end": ".", "first": " (F{mb} = micro-batch {mb}'s forward, B = backward{chunks})",
        "last": "the last action, and the step ends at {t}", "who_sep": ", ",
        "rs": "Round {s} (reduce-scatter): every GPU passes one piece to the next, which adds it "
              "to its own",
        "ag": "Round {s} (all-gather): every GPU passes a summed piece to the next, which keeps it",
        "rs_done": "; now each GPU holds one piece summed over all {n} GPUs",
        "ag_done": "; now every GPU holds all {n} pieces summed and can update its weights",
        "rs_first": " ({n} GPUs each cut {size} of gradients into {n} pieces; GPU g sends "
                    "piece g+1 first)",
        "chunk2": " (2nd chunk)", "chunks": "; each GPU holds two chunks of layers, and the 2nd "
                                            "chunk's blocks have a bold edge",
    },
}


@dataclass(frozen=True)
class Moment:
    """One row of a pipeline walkthrough: the time, and what each GPU is doing then."""

    time: float
    doing: tuple[Action | None, ...]  # per rank: the action running at `time`, or idle


def moments(view: TrainingView, limit: int = MAX_MOMENTS) -> list[Moment]:
    """Every time some GPU starts an action, in order; past `limit`, the first `limit - 1`
    and the last."""
    starts = sorted({round(a.start, 9) for lane in view.timeline for a in lane})
    if len(starts) > limit:
        starts = starts[: limit - 1] + starts[-1:]
    return [Moment(t, tuple(_running(lane, t) for lane in view.timeline)) for t in starts]


def _running(lane: tuple[Action, ...], t: float) -> Action | None:
    return next((a for a in lane if a.start <= t + EPS < a.end), None)


def moment_sentence(view: TrainingView, moment: Moment, lang: str, first: bool) -> str:
    words = WORDS[lang]
    busy = [words["runs"].format(r=r, kind=a.kind, mb=a.microbatch + 1)
            + (words["chunk2"] if a.stage >= view.pp else "")
            for r, a in enumerate(moment.doing) if a is not None]
    idle = [str(r) for r, a in enumerate(moment.doing) if a is None]
    parts = busy + ([words["idle"].format(who=words["who_sep"].join(idle))] if idle else [])
    text = words["at"].format(t=clock(view, moment.time)) + words["sep"].join(parts)
    if first and busy:
        mb = next(a for a in moment.doing if a is not None).microbatch + 1
        text += words["first"].format(mb=mb,
                                      chunks=words["chunks"] if view.virtual_stages > 1 else "")
    last_start = max(a.start for lane in view.timeline for a in lane)
    if abs(moment.time - last_start) < EPS:
        text += words["then"] + words["last"].format(t=clock(view, view.span))
    return text + words["end"]


def ring_sentences(ring: Collective, lang: str) -> list[str]:
    """One sentence per ring step of the collective (all-reduce: reduce-scatter then gather)."""
    words, n = WORDS[lang], ring.group
    out: list[str] = []
    halves = ("rs", "ag") if ring.op == "all_reduce" else (
        ("rs",) if ring.op == "reduce_scatter" else ("ag",))
    size = f"{number(ring.bytes / 1e9)} GB"
    for half in halves:
        for k in range(1, n):
            s = len(out) + 1
            text = words[half].format(s=s)
            if s == 1 and half == "rs":
                text += words["rs_first"].format(n=n, size=size)
            if k == n - 1:
                text += words[f"{half}_done"].format(n=n)
            out.append(text + words["end"])
    assert len(out) == ring_steps(ring.op, n)
    return out


TABLE: Mapping[str, Mapping[str, str]] = {
    "zh": {"span": "一步的长度（{u}）", "bubble": "流水线空闲占比（%）",
           "held": "GPU 0 最多同时存几份激活", "peak": "最满那张 GPU 的显存（GB）",
           "fits": "装得进 {hbm} GB 吗", "step": "一步（{u}）", "exposed": "等通信（毫秒）",
           "mfu": "MFU（%）", "tps": "每秒 token 数", "yes": "装得下", "no": "装不下",
           "units": "单位时间", "s": "秒"},
    "en": {"span": "Length of the step ({u})", "bubble": "Pipeline idle share (%)",
           "held": "Most micro-batches GPU 0 holds at once", "peak": "Fullest GPU's memory (GB)",
           "fits": "Fits in {hbm} GB?", "step": "One step ({u})",
           "exposed": "Waiting on communication (ms)", "mfu": "MFU (%)", "tps": "Tokens per second",
           "yes": "yes", "no": "no", "units": "time units", "s": "s"},
}


def comparison_rows(without: TrainingView, with_: TrainingView, lang: str) -> list[CompareRow]:
    """The same figures of both runs, counted the same way."""
    words = TABLE[lang]
    unit = words["units" if with_.unit_cost else "s"]

    def fits(v: TrainingView) -> str:
        return words["yes"] if all(m.fits for m in v.memory) else words["no"]

    rows: list[tuple[str, str, str]] = []
    pipeline = with_.pp > 1 or without.pp > 1
    bubble = (words["bubble"], number(100 * without.bubble_fraction),
              number(100 * with_.bubble_fraction))
    if pipeline and with_.unit_cost:  # a comic: its span is the whole step
        rows.append((words["span"].format(u=unit), clock(without, without.span),
                     clock(with_, with_.span)))
        rows.append(bubble)
        rows.append((words["held"], str(without.memory[0].held), str(with_.memory[0].held)))
    else:  # a real step: the pipeline's span leaves out the gradient sum (reader hf7)
        rows.append((words["step"].format(u=unit), clock(without, without.step.step_time),
                     clock(with_, with_.step.step_time)))
        rows.append((words["exposed"], number(1000 * without.step.exposed_comm),
                     number(1000 * with_.step.exposed_comm)))
        if without.step.mfu is not None and with_.step.mfu is not None:
            rows.append((words["mfu"], number(100 * without.step.mfu),
                         number(100 * with_.step.mfu)))
            rows.append((words["tps"], str(round(without.step.tokens_per_s)),
                         str(round(with_.step.tokens_per_s))))
        if pipeline:
            rows.append(bubble)
    rows.append((words["peak"], gb(without.peak.total), gb(with_.peak.total)))
    rows.append((words["fits"].format(hbm=gb(with_.hbm)), fits(without), fits(with_)))
    return [CompareRow(label, a, b) for label, a, b in rows]
