"""Sample plan pieces for the drawing demo (`pipeline.fields.serving.demo`) and the golden tests: one
panel per scenario and variant, drawn from the simulator's presets.

Captions bind numbers through placeholders, exactly as a real plan does. This runs the
simulator, so it lives beside the page, not in `pipeline.draw` (which only receives trace views).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pipeline.artifacts.sim import SweepView, trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.fields.serving import draw_panel
from pipeline.plan.model import Concept, Panel

EXAMPLE_PLAN = Path(__file__).resolve().parents[3] / "examples" / "llm-inference" / "plan.json"
# Which example concept stands for which sweep technique (the example plan leaves them unset).
DEMO_TECHNIQUES = {"continuous_batching": "continuous_batching", "paged_attention": "paged_kv",
                   "chunked_prefill": "chunked_prefill", "prefix_caching": "prefix_caching"}
# The documented shape of `sim.presets.sweep.sweep()`, used only when the sweep cannot run here.
FIXTURE_SWEEP: dict[str, Any] = {
    "workload": "fixture", "metrics": ["throughput", "ttft", "itl"],
    "techniques": [
        {"id": "continuous_batching", "label": "continuous batching",
         "change_pct": {"throughput": 180.0, "ttft": -85.0, "itl": 12.0}},
        {"id": "paged_kv", "label": "paged KV", "change_pct": {"throughput": 60.0, "ttft": -40.0,
                                                               "itl": 4.0}},
        {"id": "chunked_prefill", "label": "chunked prefill",
         "change_pct": {"throughput": 3.0, "ttft": 9.0, "itl": -30.0}},
        {"id": "prefix_caching", "label": "prefix caching",
         "change_pct": {"throughput": 8.0, "ttft": -25.0, "itl": 0.4}},
    ],
}
# scenario id -> (scene kind, zh caption, en caption, focus)
SCENE_FOR: dict[str, tuple[str, str, str, list[str]]] = {
    "kv_cache": ("budget", "每步重算 {tokens} 个 token", "{tokens} tokens computed in all", ["D"]),
    "batching": ("timeline", "D 排队等了 {D.wait} 步", "D waits {D.wait} steps in line", ["D"]),
    "kv_alloc": (
        "kv_blocks",
        "最少只剩 {min_free_blocks} 个空块",
        "only {min_free_blocks} free blocks left",
        ["D"],
    ),
    "preemption": (
        "kv_blocks",
        "D 被抢占了 {D.preemptions} 次",
        "D is preempted {D.preemptions} times",
        ["D"],
    ),
    "chunked_prefill": ("budget", "共跑了 {steps} 步", "{steps} steps in all", ["D"]),
    "prefix_cache": (
        "kv_blocks",
        "D 命中 {D.prefix_hit_tokens} 个 token",
        "D reuses {D.prefix_hit_tokens} cached tokens",
        ["D"],
    ),
    "admission": (
        "queue",
        "D 第 {D.first_step} 步才上车",
        "D boards at step {D.first_step}",
        ["D"],
    ),
    "metrics": ("clock", "D 的首字时间是 {D.ttft}", "D's time to first token: {D.ttft}", ["D"]),
    "arithmetic": ("bars", "一步 {steps} 次解码", "{steps} steps of decoding", []),
    "spec_decode": ("drafts", "共 {steps} 步跑完", "all done in {steps} steps", ["D"]),
    "fp8_kv": ("kv_capacity", "D 被抢占 {D.preemptions} 次", "D is preempted {D.preemptions} times",
               ["D"]),
    "tensor_parallel": ("tp_shards", "D 首字用了 {D.ttft} 毫秒", "D's first token: {D.ttft} ms", []),
    "disaggregation": ("disagg", "B 最后一字在 {B.finish} 毫秒", "B's last token at {B.finish} ms",
                       ["B"]),
    "goodput": ("slo", "每字限 {slo_tpot} 毫秒", "at most {slo_tpot} ms per token", []),
    "streaming": ("streaming", "D 的回答 {D.e2el} 步写完", "D's answer takes {D.e2el} steps",
                  ["D"]),
    "parallel_sampling": ("sampling", "共跑了 {steps} 步", "{steps} steps in all", ["D"]),
    "load_curve": ("load_curve", "两种槽位，同一张图", "two slot limits, one chart", []),
}
EXTRA_SCENES = {"arithmetic": "roofline", "batching": "budget"}


def sample_concept(scenario: str, scene: str, lang: str) -> Concept:
    _kind, zh, en, focus = SCENE_FOR[scenario]
    panels = {
        v: Panel.model_validate({"caption": zh if lang == "zh" else en, "scene": scene,
                                 "scenario": scenario, "variant": v, "focus": focus})
        for v in ("without", "with")
    }
    return Concept(
        id=f"{scenario}_{scene}",
        name=scenario[:20],
        name_en=scenario,
        problem_left="-",
        body="-",
        trouble=panels["without"],
        fix=panels["with"],
        solves="-",
        costs="-",
    )


def generic_concept(lang: str) -> Concept:
    zh = lang == "zh"
    trouble = Panel(
        caption="没人排队怎么办" if zh else "who decides the order?",
        scene="generic",
        focus=["D"],
        bubble="轮到我了吗？" if zh else "is it my turn yet?",
        labels=["排队", "调度", "GPU"] if zh else ["queue", "scheduler", "GPU"],
    )
    fix = Panel(
        caption="调度员按规则挑" if zh else "the scheduler picks by rules",
        scene="generic",
        focus=["A", "D"],
        bubble="先老后新" if zh else "old ones first, then new",
        labels=["老请求", "预算", "空块", "新请求"]
        if zh
        else ["running", "budget", "free blocks", "new ones"],
    )
    return Concept(
        id="generic",
        name="通用",
        name_en="Generic",
        problem_left="-",
        body="-",
        trouble=trouble,
        fix=fix,
        solves="-",
        costs="-",
    )


def scenario_panels(traces: Mapping[str, TraceView], lang: str) -> list[tuple[str, str]]:
    """(label, svg) for every scenario x variant (and the extra scenes), in catalogue order."""
    out = []
    for scenario, (scene, *_rest) in SCENE_FOR.items():
        for kind in [scene, *([EXTRA_SCENES[scenario]] if scenario in EXTRA_SCENES else [])]:
            concept = sample_concept(scenario, kind, lang)
            for side, panel in (("trouble", concept.trouble), ("fix", concept.fix)):
                trace = traces[f"{scenario}/{panel.variant}"]
                other = "with" if panel.variant == "without" else "without"
                svg = draw_panel(concept, side, panel, trace, trace_values(trace), lang=lang,  # type: ignore[arg-type]
                                 partner=traces.get(f"{scenario}/{other}"))
                out.append((f"{scenario}/{panel.variant} · {kind}", svg))
    g = generic_concept(lang)
    for side, panel in (("trouble", g.trouble), ("fix", g.fix)):
        out.append((f"generic · {side}", draw_panel(g, side, panel, None, {}, lang=lang)))  # type: ignore[arg-type]
    return out


def all_traces() -> dict[str, TraceView]:
    from sim.presets.scenarios import SCENARIOS, run_preset

    return {
        f"{sid}/{v}": TraceView.from_json(run_preset(f"{sid}/{v}", detail=True))
        for sid in SCENARIOS
        for v in ("without", "with")
    }


def diagram_sections(traces: Mapping[str, TraceView]) -> list[str]:
    """Main thread, legend, ruler, step strips, stamps of the example plan (zh)."""
    from pipeline.draw import (
        draw_cast_legend,
        draw_main_thread,
        draw_ruler,
        draw_stamp,
        draw_tick,
    )
    from pipeline.fields.serving.steps import draw_step_strip
    from pipeline.plan.model import load_plan
    from sim.presets.sweep import sweep

    plan = load_plan(EXAMPLE_PLAN)
    lang = plan.lang
    try:
        measured = SweepView.from_json(sweep())
        note = "sim.presets.sweep"
    except ImportError as err:  # the sweep's fast path needs numpy; show the shape anyway
        measured = SweepView.from_json(FIXTURE_SWEEP)
        note = f"FIXTURE sweep (sim.presets.sweep unavailable: {err})"
    ruled = plan.model_copy(deep=True)
    for concept in ruled.concepts:
        concept.technique = DEMO_TECHNIQUES.get(concept.id)
    out = [f'<div class="wide">{draw_main_thread(plan, lang=lang)}</div>',
           f'<div class="wide">{draw_cast_legend(plan, lang=lang)}</div>',
           f'<div class="wide"><h3>ruler: {note}</h3>{draw_ruler(ruled, measured, lang=lang)}</div>']
    for concept in plan.concepts:
        row = ""
        pair = (concept.trouble, concept.fix)
        runs = [traces.get(f"{p.scenario}/{p.variant}") if p.scenario else None for p in pair]
        same = pair[0].scenario is not None and pair[0].scenario == pair[1].scenario
        for k, (side, panel) in enumerate((("trouble", pair[0]), ("fix", pair[1]))):
            trace = runs[k]
            values = trace_values(trace) if trace is not None else {}
            partner = runs[1 - k] if same else None
            row += f"<div>{draw_panel(concept, side, panel, trace, values, lang=lang, partner=partner)}</div>"  # type: ignore[arg-type]
        out.append(f"<h3>card {concept.id}</h3>{row}")
    trace = traces["chunked_prefill/with"]
    strips = "".join(draw_step_strip(trace, s.index, lang=lang, focus=["D"])
                     for s in trace.steps[:4])
    out.append(f'<div class="wide">{strips}</div>')
    stamps = "".join(draw_stamp(st, lang=lang, seed_id="demo") for st in ("learned", "review", "next"))
    out.append(f'<div class="wide small">{stamps}{draw_tick(seed_id="demo")}</div>')
    return out


def demo_sections() -> list[str]:
    traces = all_traces()
    out = diagram_sections(traces)
    for lang in ("zh", "en"):
        for label, svg in scenario_panels(traces, lang):
            out.append(f"<div><h3>{label} [{lang}]</h3>{svg}</div>")
    return out
