"""How a card's serving pictures keep time, in one line under its panels: the comic's
illustrative linear cost spelled out (so every millisecond can be checked by hand), or the
model and GPU a calibrated cost times. Steps need no line: the axes count them.

Read off the runs' `cost` (`CostView`), so the words follow the scenario's cost model.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.artifacts.trace import CostView, TraceView


def _linear(cost: CostView, zh: bool) -> str:
    c0, tok, kv = (cost.terms.get(k, 0.0) for k in ("c0", "c_tok", "c_kv"))

    def n(x: float) -> str:  # exact, as the cost model has it: a rounded term checks nothing
        return f"{x:g}"

    if zh:
        line = f"一步 = {n(c0)} 毫秒 + 这一步每算一个 token 加 {n(tok)} 毫秒"
        return line + (f" + 每读一个 token 的 KV 加 {n(kv)} 毫秒" if kv else "")
    line = f"one step = {n(c0)} ms + {n(tok)} ms for each token it computes"
    return line + (f" + {n(kv)} ms for each token of KV it reads" if kv else "")


def model_name(model_id: str) -> str:
    """A model's id as the page writes it (llama-3-8b -> Llama-3-8B, gpt-3-175b -> GPT-3-175B):
    one word that starts with a letter, so its digits read as a name, not a number."""
    def part(p: str) -> str:
        if p.isalpha():
            return p.upper() if len(p) <= 3 else p.capitalize()
        return p.upper()

    return "-".join(part(p) for p in model_id.split("-"))


def _calibrated(cost: CostView, zh: bool) -> str:
    model, gpu = model_name(cost.model or "?"), (cost.gpu or "?").upper()
    if zh:
        where = f"{cost.tp} 块 {gpu}" if cost.tp > 1 else f"一块 {gpu}"
        kv = f"，KV 存成 {cost.kv_dtype.upper()}" if cost.kv_dtype else ""
        return f"按 {model} 在{where} 上的成本模型计时{kv}（按公开实测校准）"
    where = f"{cost.tp} x {gpu}" if cost.tp > 1 else f"one {gpu}"
    kv = f", KV in {cost.kv_dtype.upper()}" if cost.kv_dtype else ""
    return f"timed by the cost model of {model} on {where}{kv} (calibrated to published measurements)"


# the scenes that write times in ms (the others count steps, blocks or bytes)
TIMED_SCENES = frozenset({"clock", "clock_total", "clock_mean", "bars", "disagg", "drafts",
                          "roofline", "slo", "streaming", "tp_shards"})
SIDE_WORDS = {"zh": {"trouble": "烦恼图", "fix": "办法图"}, "en": {"trouble": "trouble", "fix": "fix"}}


# A reader set the comic's per-token charge against the memory-bound lesson (on a GPU one more
# decode token in a step costs almost nothing): the first card it times says it is enlarged, the
# later ones point back (a page repeating it on six cards read as boilerplate, reader li7).
LINEAR_TAIL = {
    "zh": "（示意成本，不是某块 GPU 的实测：每个 token 的加价放大了，好让小算例看得出差别；"
          "真实 GPU 上解码多一个请求几乎不加时间）",
    "en": " (an illustrative cost, not any GPU's measurement: the per-token charge is enlarged "
          "so a small example shows a difference; on a real GPU one more decoding request adds "
          "almost no time)",
}
LINEAR_AGAIN = {"zh": "（示意成本，见第 {n} 张卡）", "en": " (an illustrative cost: see card {n})"}


def clock_note(views: Sequence[tuple[str, str, object]], lang: str) -> str:
    """The card's clock line from its (side, scene, run view) triples, or "" when no panel
    writes times in ms. Two panels on different clocks each get theirs, named by side."""
    zh = lang == "zh"
    said: dict[str, list[str]] = {}
    linear = False
    for side, scene, view in views:
        if scene not in TIMED_SCENES or not isinstance(view, TraceView):
            continue
        if view.cost.time_unit != "ms":
            continue
        cost = view.cost
        if cost.kind == "linear":
            text, linear = _linear(cost, zh), True
        elif cost.model and cost.gpu:
            text = _calibrated(cost, zh)
        else:
            continue
        said.setdefault(text, []).append(side)
    if not said:
        return ""
    words = SIDE_WORDS["zh" if zh else "en"]
    if len(said) == 1:
        parts = list(said)
    else:
        parts = [f"{words[sides[0]]}{'里' if zh else ': '}{text}" for text, sides in said.items()]
    tail = ""
    if linear:
        tail = LINEAR_TAIL["zh" if zh else "en"]
    head = "时钟：" if zh else "Clock: "
    return head + ("；" if zh else "; ").join(parts) + tail + ("。" if zh else ".")


def _prompts(trace: TraceView) -> dict[str, int]:
    """Each request's prompt length, read off its first scheduled step (tokens after the step,
    less the first output token if the step emitted it)."""
    out: dict[str, int] = {}
    for rid in trace.requests:
        step = trace.first_scheduled(rid)
        if step is not None and rid in step.tokens:
            out[rid] = step.tokens[rid] - (1 if rid in step.emitted else 0)
    return out


def cast_note(views: Sequence[tuple[str, str, object]], lang: str) -> str:
    """When the card's runs give the page's fixed cast other prompts than the other cards (a
    shared system prompt, a knob on D's), say which, so no card changes the cast silently."""
    from sim.presets.cast import CAST

    usual = {rid: prompt for rid, prompt, _max, _arrival in CAST}
    changed: dict[str, int] = {}
    shared = 0
    for _side, _scene, view in views:
        if not isinstance(view, TraceView):
            continue
        for rid, n in _prompts(view).items():
            if rid in usual and n != usual[rid]:
                changed.setdefault(rid, n)
        shared = max([shared, *(r.prefix_hit_tokens for r in view.requests.values())])
    if not changed:
        return ""
    zh = lang == "zh"
    listed = ("、" if zh else ", ").join(f"{rid} {n}" for rid, n in sorted(changed.items()))
    if zh:
        tail = f"（开头 {shared} 个 token 是同一段）" if shared else ""
        return f"本卡的提示词和其他卡不同：{listed} 个 token{tail}。"
    tail = f" (the first {shared} the same for all)" if shared else ""
    return f"This card's prompts differ from the other cards': {listed} tokens{tail}."
