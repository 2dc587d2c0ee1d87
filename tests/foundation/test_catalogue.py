"""The registry (`pipeline.plan.catalogue`, filled by `pipeline.simulate.catalogue`) that the
prompt, the validator and the renderer share: it covers every scenario, scene kind and technique
the code has; every pair it allows renders (every knob at its ends included) and a pair it
forbids is refused by the validator and by the renderer; the prompt says every entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.artifacts.sim import trace_values
from pipeline.artifacts.trace import TraceView
from pipeline.errors import InputError, PlanError
from pipeline.fields.serving import FIELD as SERVING
from pipeline.fields.serving import draw_panel
from pipeline.fields.serving.catalogue import DRAWN_BY, RUN_MEANINGS, SCENE_SHOWS, documented
from pipeline.fields.serving.catalogue import build_catalogue as catalogue
from pipeline.plan.catalogue import GENERIC, Catalogue
from pipeline.plan.job import render_system
from pipeline.plan.model import Concept, Panel, parse_plan
from pipeline.plan.rules import plan_violations
from sim.presets.scenarios import SCENARIOS, run_preset
from sim.presets.sweep import TECHNIQUES

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm-inference"
PAIRS = [(sid, scene) for sid, scenes in sorted(DRAWN_BY.items()) for scene in scenes]


@pytest.fixture(scope="module")
def cat() -> Catalogue:
    return catalogue()


def test_every_scenario_scene_and_technique_is_in_the_registry(cat: Catalogue) -> None:
    assert set(cat.scenarios) == set(SCENARIOS) == set(DRAWN_BY)
    kinds = [*SCENE_SHOWS, GENERIC]
    assert set(SERVING.scenes()) == set(SCENE_SHOWS) == set(cat.scene_shows)
    drawn = {scene for scenes in DRAWN_BY.values() for scene in scenes}
    assert drawn <= set(kinds) and GENERIC not in drawn
    assert drawn == set(kinds) - {GENERIC}  # every scene kind draws some scenario
    ids = [t.id for t in TECHNIQUES]
    assert cat.technique_ids() == ids and all(t.line for t in cat.techniques)
    assert cat.ruler_minimum() == 3


def test_placeholders_are_documented_and_carry_the_presets_values(cat: Catalogue) -> None:
    for sid, entry in cat.scenarios.items():
        assert entry.placeholders, sid
        for variant, column in (("without", "without"), ("with", "with_")):
            values = trace_values(TraceView.from_json(run_preset(f"{sid}/{variant}")))
            for p in entry.placeholders:
                assert documented(p.name), f"{sid}: {{{p.name}}} has no meaning"
                assert p.meaning and getattr(p, column) == values.get(p.name), (sid, p.name)
        # a request's placeholders for the first five requests only (what a scene shows)
        assert len({p.name.partition(".")[0] for p in entry.placeholders if "." in p.name}) <= 5
    assert cat.scenarios["metrics"].time_unit == "ms"
    assert cat.scenarios["batching"].time_unit == "steps"
    ttft = next(p for p in cat.scenarios["batching"].placeholders if p.name == "D.ttft")
    assert (ttft.unit, ttft.without, ttft.with_) == ("steps", "7", "1")


def _concept(panel: Panel) -> Concept:
    return Concept(id="pair", name="配对", name_en="Pair", problem_left="-", body="-",
                   trouble=panel, fix=panel, solves="-", costs="-")


def _draw(sid: str, scene: str, variant: str, lang: str, knobs: dict[str, float]) -> str:
    trace = TraceView.from_json(run_preset(f"{sid}/{variant}", knobs=knobs))
    panel = Panel(caption="{steps}", scene=scene, scenario=sid, variant=variant, focus=["D"],
                  knobs=[{"name": k, "value": v} for k, v in knobs.items()])
    return draw_panel(_concept(panel), "fix", panel, trace, trace_values(trace), lang=lang)


@pytest.mark.parametrize(("sid", "scene"), PAIRS)
def test_every_pair_the_registry_allows_renders(cat: Catalogue, sid: str, scene: str) -> None:
    """Both variants, both languages, the preset and each knob at either end of its range."""
    entry = cat.scenarios[sid]
    settings: list[dict[str, float]] = [{}]
    settings += [{k.id: end} for k in entry.knobs for end in (k.low, k.high)]
    for knobs in settings:
        for variant in ("without", "with"):
            for lang in ("zh", "en"):
                svg = _draw(sid, scene, variant, lang, knobs)
                assert svg.startswith("<svg") and 'data-panel="pair/fix"' in svg


def _example_with(scene: str, sid: str) -> list[str]:
    data = json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))
    data["concepts"][4]["fix"].update(scene=scene, scenario=sid, variant="with")
    return [str(v) for v in plan_violations(parse_plan(data), catalogue=catalogue())]


@pytest.mark.parametrize(("scene", "sid"), [("roofline", "batching"), ("kv_blocks", "disaggregation"),
                                            ("queue", "arithmetic")])
def test_a_pair_the_registry_forbids_is_refused(scene: str, sid: str) -> None:
    assert scene not in DRAWN_BY[sid]
    found = _example_with(scene, sid)
    assert found == [
        f"concepts[4].fix.scene: a '{scene}' scene cannot draw scenario '{sid}' (drawn by: "
        f"{', '.join(DRAWN_BY[sid])})"
    ]
    with pytest.raises(InputError, match="cannot draw scenario"):
        _draw(sid, scene, "with", "zh", {})


def test_an_allowed_pair_passes_the_validator() -> None:
    assert _example_with("clock", "batching") == []


def test_the_prompt_says_every_registry_entry(cat: Catalogue) -> None:
    for lang in ("zh", "en"):
        for tool in (None, "submit_plan"):
            text = render_system(tool, lang, [], cat)
            assert ("`submit_plan`" in text) == (tool is not None)
            for t in cat.techniques:
                assert f"- {t.id}: {t.line}" in text
            for kind in SCENE_SHOWS:
                assert f"- {kind}: {SCENE_SHOWS[kind]}" in text
            for sid, entry in cat.scenarios.items():
                block = text.split(f"* {sid} — ", 1)[1].split("\n   * ", 1)[0]
                assert f"drawn by: {', '.join(entry.scenes)}; clock: {entry.time_unit}" in block
                for p in entry.placeholders:
                    shown = f"{{{p.name}}} {p.without or '-'}|{p.with_ or '-'}"
                    assert shown in block, (sid, shown)
                for k in entry.knobs:
                    assert f"{k.id} = {k.meaning}, " in block
            for name, (meaning, _unit) in RUN_MEANINGS.items():
                if any(p.name == name for e in cat.scenarios.values() for p in e.placeholders):
                    assert f"{name}: {meaning} [" in text
            assert "At least 3 cards must name a\n   technique" in text
            assert '"generic" is ONLY for a panel no scene of its field fits' in text
            assert "at most one panel in 3" in text


def test_a_knob_out_of_range_or_unknown_is_refused_with_its_path() -> None:
    data = json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))
    fix = data["concepts"][6]["fix"]  # chunked_prefill / budget
    assert fix["scenario"] == "chunked_prefill"
    fix["knobs"] = [{"name": "d_prompt", "value": 99}, {"name": "warp", "value": 1}]
    data["concepts"][6]["trouble"]["knobs"] = [{"name": "d_prompt", "value": 99}]
    found = [str(v) for v in plan_violations(parse_plan(data), catalogue=catalogue())]
    assert "concepts[6].fix.knobs[0].value: knob 'd_prompt' must be 2-40 tokens" in found
    assert any(v.startswith("concepts[6].fix.knobs[1].name: scenario 'chunked_prefill' has no "
                            "knob 'warp'") for v in found)
    data["concepts"][6]["trouble"]["knobs"] = []
    fix["knobs"] = [{"name": "d_prompt", "value": 30}]
    found = [str(v) for v in plan_violations(parse_plan(data), catalogue=catalogue())]
    assert found == [
        "concepts[6].trouble.knobs: the trouble and fix panels draw 'chunked_prefill' with "
        "different 'd_prompt' (- vs 30, - = the preset's): set the same knobs on both"
    ]


def test_a_placeholder_the_scenario_does_not_offer_is_refused() -> None:
    data = json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))
    data["concepts"][7]["fix"]["caption"] = "命中{D.prefix_hit_tokens}个{R7.ttft}"
    found = [str(v) for v in plan_violations(parse_plan(data), catalogue=catalogue())]
    offers = [v for v in found if "offers no placeholder" in v]
    assert len(offers) == 1 and offers[0].startswith(
        "concepts[7].fix.caption: scenario 'prefix_cache' offers no placeholder {R7.ttft}"
    )


def test_an_unknown_scenario_stays_unknown_and_a_bad_plan_is_one_error() -> None:
    data = json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))
    data["concepts"][0]["fix"]["scenario"] = "warp_drive"
    found = [str(v) for v in plan_violations(parse_plan(data), catalogue=catalogue())]
    assert len(found) == 1
    assert found[0].startswith("concepts[0].fix.scenario: unknown scenario 'warp_drive' (the "
                               "serving field's: kv_cache, batching")
    with pytest.raises(PlanError):
        parse_plan({**data, "concepts": "none"})


def test_the_prompt_names_the_signs_the_handwriting_cannot_draw(cat: Catalogue) -> None:
    """A played model wrote "批5→14" in a caption and was sent back three times: the prompt
    names the signs the page's hand lacks, and only those (each is really missing, and a sign
    the hand has, such as '%', is never named)."""
    from pipeline import fonts
    from pipeline.draw.fit import SIGNS, undrawable

    for lang, family in (("zh", fonts.HAND_ZH), ("en", fonts.HAND_EN)):
        named = undrawable(lang).split()
        assert "→" in named and "%" not in named
        assert named == [ch for ch in SIGNS if fonts.missing(ch, family)]
        text = render_system(None, lang, [], cat)
        assert f"none of these signs: {' '.join(named)};" in text
