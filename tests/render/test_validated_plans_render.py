"""A plan that validates always renders (issue 13.5): random variations of the example plans —
scenes, scenarios, variants, knobs, captions with placeholders, ruler metric names, stage labels,
card names and techniques — either break a page rule (`page_violations`, what `tujie validate`,
the sim stage and the LLM repair loop check) or render with the real drawings."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from pipeline.artifacts.sources import Corpus
from pipeline.config import PageConfig, load_config
from pipeline.errors import PlanError
from pipeline.fields.serving.catalogue import DRAWN_BY, SCENE_SHOWS
from pipeline.fields.serving.catalogue import build_catalogue as catalogue
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.model import parse_plan
from pipeline.render.page import render_page
from pipeline.simulate.checks import page_violations

INDEX = re.compile(r"\[\d+\]")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
WORDS = {
    "zh": "首字延迟吞吐间隔分块预填充调度器显存块前缀缓存请求排队解码批",
    "en": "abcdefghijklmnopqrstuvwxyz      TTFITLGPU",
}


@cache
def example(name: str) -> tuple[str, Corpus, PageConfig]:
    src = EXAMPLES / name
    return (src / "plan.json").read_text(encoding="utf-8"), ingest_folder(src), load_config(src)


def text(lang: str, low: int, high: int) -> st.SearchStrategy[str]:
    alphabet = WORDS[lang] + ("（）TTFT " if lang == "zh" else "()")
    return st.text(alphabet, min_size=low, max_size=high).map(str.strip).filter(bool)


@st.composite
def panel_change(draw: st.DrawFn, lang: str) -> dict[str, Any]:
    cat = catalogue()
    sid = draw(st.sampled_from(sorted(cat.scenarios)))
    fitting = draw(st.booleans()) or draw(st.booleans())  # mostly a scene that can draw it
    scene = draw(st.sampled_from(DRAWN_BY[sid] if fitting else [*SCENE_SHOWS, "generic"]))
    entry = cat.scenarios[sid]
    names = [p.name for p in entry.placeholders] + ["R9.ttft", "D.nothing"]
    name = draw(st.sampled_from(names))
    longest = 16 if lang == "zh" else 42  # around the caption limit (H1: 15 / 40)
    caption = draw(text(lang, 1, longest)) + draw(st.sampled_from(["", f"{{{name}}}"]))
    knobs = []
    for knob in entry.knobs:
        if draw(st.integers(0, 3)) == 0:
            span = (knob.high - knob.low) * 0.1  # now and then just out of range
            value = draw(st.floats(knob.low - span, knob.high + span))
            knobs.append({"name": knob.id, "value": round(value) if knob.integer else value})
    return {
        "scene": scene,
        "scenario": None if scene == "generic" else sid,
        "variant": draw(st.sampled_from(["without", "with"])),
        "caption": caption,
        "knobs": knobs if scene != "generic" else [],
    }


@st.composite
def varied_plan(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(["llm-inference", "llm-inference-en"]))
    data = json.loads(example(name)[0])
    lang = data["lang"]
    for _ in range(draw(st.integers(0, 4))):
        i = draw(st.integers(0, len(data["concepts"]) - 1))
        side = draw(st.sampled_from(["trouble", "fix"]))
        data["concepts"][i][side].update(draw(panel_change(lang)))
    for metric in data["ruler"]["metrics"]:
        if draw(st.booleans()):
            metric["name"] = draw(text(lang, 1, 24))
    for stage in data["main_thread"]["stages"]:
        if draw(st.integers(0, 3)) == 0:
            stage["label"] = draw(text(lang, 1, 24))
    techniques = catalogue().technique_ids()
    for c in data["concepts"]:
        if draw(st.integers(0, 4)) == 0:
            free = [t for t in techniques if t not in {d["technique"] for d in data["concepts"]}]
            c["technique"] = draw(st.one_of(st.none(), st.sampled_from(free)))
        if c["technique"] and draw(st.integers(0, 3)) == 0:
            c["name" if lang == "zh" else "name_en"] = draw(text(lang, 1, 20))
    return name, data


# No shrinking: each example validates and renders a whole page (about a second), and the
# failing example is printed as it is.
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
)
@given(varied=varied_plan())
def test_a_plan_that_validates_renders(varied: tuple[str, dict[str, Any]]) -> None:
    name, data = varied
    _text, corpus, config = example(name)
    try:
        plan = parse_plan(data)
    except PlanError:
        return  # the schema refuses it: nothing to render
    found, sim = page_violations(plan, corpus)
    if found:
        event("refused")
        for v in found:
            event(f"refused at {INDEX.sub('[i]', v.path)}")
        assert all(v.path and v.problem for v in found)
        return
    event("validated and rendered")
    html = render_page(plan, corpus, config, sim, None)
    assert html.lower().startswith("<!doctype html>")
    assert html.count('<svg class="panel"') == 2 * len(plan.concepts)


def test_the_examples_validate_unchanged() -> None:
    """The base of every variation is itself a valid plan (so variations can validate)."""
    for name in ("llm-inference", "llm-inference-en"):
        raw, corpus, _config = example(name)
        assert page_violations(parse_plan(json.loads(raw)), corpus)[0] == []
