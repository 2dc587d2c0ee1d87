"""The example plan validates, and each kind of broken copy is rejected with the right JSON path."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pipeline.errors import PlanError
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.model import parse_plan
from pipeline.plan.rules import check_plan, plan_violations

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llm-inference"


@pytest.fixture(scope="module")
def corpus():
    return ingest_folder(EXAMPLE)


@pytest.fixture(scope="module")
def plan_data() -> dict:
    return json.loads((EXAMPLE / "plan.json").read_text(encoding="utf-8"))


def violations(data: dict, corpus) -> list[str]:
    try:
        plan = parse_plan(data, "plan.json")
    except PlanError as err:
        return [str(v) for v in err.violations]
    return [str(v) for v in plan_violations(plan, corpus)]


def test_example_plan_is_valid(plan_data, corpus):
    plan = parse_plan(plan_data, "plan.json")
    assert check_plan(plan, corpus) is plan
    assert 10 <= len(plan.concepts) <= 12
    assert plan.meta.made_by == "hand-reviewed"


def test_seven_concepts_rejected(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    data["concepts"] = data["concepts"][:7]
    found = violations(data, corpus)
    assert any(v.startswith("concepts:") and "at least 8" in v for v in found), found


def test_sixteen_character_caption_rejected(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    data["concepts"][2]["fix"]["caption"] = "一二三四五六七八九十一二三四五六"
    found = violations(data, corpus)
    assert found == ["concepts[2].fix.caption: 16 characters after filling, limit 15 (H1)"]


def test_fifteen_character_caption_accepted(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    data["concepts"][2]["fix"]["caption"] = "一二三四五六七八九十一二三四五"
    assert violations(data, corpus) == []


def test_route_url_not_in_sources_rejected(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    data["route"][1]["url"] = "https://invented.example.com/llm-serving"
    found = violations(data, corpus)
    assert found == ["route[1].url: not from the sources: https://invented.example.com/llm-serving"]


def test_quote_not_in_source_rejected(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    concept = next(i for i, c in enumerate(data["concepts"]) if c["citations"])
    data["concepts"][concept]["citations"][0]["quote"] = "这句话在任何一篇文章里都不存在。"
    found = violations(data, corpus)
    assert any(v.startswith(f"concepts[{concept}].citations[0].quote: not found") for v in found), (
        found
    )


def test_forward_solves_reference_rejected(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    data["concepts"][3]["solves_problem_of"] = data["concepts"][5]["id"]
    found = violations(data, corpus)
    assert any(
        v.startswith("concepts[3].solves_problem_of:") and "backwards" in v for v in found
    ), found


def test_number_without_a_quote_rejected(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    data["concepts"][4]["body"] = "它让吞吐提高了 987 倍。"
    found = violations(data, corpus)
    assert found == ["concepts[4].body: number 987 is in no cited quote (H5)"]


def test_literal_number_in_caption_rejected(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    data["concepts"][4]["fix"]["caption"] = "D 只等了 3 步"
    found = violations(data, corpus)
    assert any("literal number in a caption" in v for v in found), found


def test_placeholders_measured_after_filling(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    panel = data["concepts"][4]["fix"]
    panel["caption"] = "D 等了{D.ttft}步就出字了啊啊啊啊啊啊"  # 14 visible + the filled number
    plan = parse_plan(data)
    # the example's other captions' placeholders get values that fit
    others = {"batch": "32"}
    short = plan_violations(plan, corpus, values_for=lambda p: {**others, "D.ttft": "1"})
    long = plan_violations(plan, corpus, values_for=lambda p: {**others, "D.ttft": "12"})
    assert short == []
    assert [str(v) for v in long] == [
        "concepts[4].fix.caption: 16 characters after filling, limit 15 (H1)"
    ]
    unknown = plan_violations(plan, corpus, values_for=lambda p: others)
    assert any("unknown placeholder {D.ttft}" in str(v) for v in unknown)


def test_every_violation_is_listed_at_once(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    data["concepts"][0]["trouble"]["caption"] = "一二三四五六七八九十一二三四五六"
    data["route"][0]["url"] = "https://nowhere.example.org/"
    found = violations(data, corpus)
    assert len(found) == 2


# ---------------------------------------------------------------------------------------------
# Issue 13.5: what the registry knows (`pipeline.plan.catalogue`), each with its JSON path


def registry_violations(data: dict, corpus) -> list[str]:
    from pipeline.fields.serving.catalogue import build_catalogue as catalogue

    return [str(v) for v in plan_violations(parse_plan(data), corpus, catalogue=catalogue())]


def test_example_plan_keeps_the_registrys_rules(plan_data, corpus):
    assert registry_violations(plan_data, corpus) == []


def test_a_ruler_without_rows_is_rejected_with_its_path(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    for c in data["concepts"]:
        c["technique"] = None
    found = registry_violations(data, corpus)
    assert len(found) == 1 and found[0].startswith(
        "ruler: 0 technique row(s), at least 3 needed: set `technique` on 3 concepts"
    )
    assert "continuous_batching" in found[0] and "spec_decode" in found[0]
    for i in (3, 4):  # two rows are still too few
        data["concepts"][i]["technique"] = plan_data["concepts"][i]["technique"]
    assert registry_violations(data, corpus)[0].startswith("ruler: 2 technique row(s)")


def test_too_many_generic_panels_are_rejected_with_their_paths(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    generic = {"scene": "generic", "scenario": None, "variant": None, "knobs": []}
    for c in data["concepts"]:
        c["trouble"].update(generic)  # 11 of 22 panels: at most 7 may be generic
        # a generic panel has no run to fill a placeholder (refused on its own): plain words
        c["trouble"]["caption"] = c["trouble"]["caption"].split("{")[0].strip() or "-"
    found = registry_violations(data, corpus)
    assert [v.split(":")[0] for v in found] == [
        f"concepts[{i}].trouble.scene" for i in range(7, 11)
    ]
    assert all("11 of 22 panels are generic; at most 7 (one in 3)" in v for v in found)


def test_a_plan_without_meta_is_told_what_meta_holds(plan_data, corpus):
    data = copy.deepcopy(plan_data)
    del data["meta"]
    [found] = [v for v in violations(data, corpus) if v.startswith("meta:")]
    assert '"made_by": "hand-reviewed"' in found and '"date"' in found


def test_an_abbreviation_the_page_never_explains_is_sent_back(plan_data, corpus):
    """A reader met TP, PP and MSE with no way to expand them: each needs a glossary entry (or
    an alias), or to be written out once as 'words (TP)'. Chip names with digits and a size in a
    model's name (GPT-2 XL, from a played model's page) are not asked."""
    data = copy.deepcopy(plan_data)
    data["concepts"][3]["body"] += " TP and the H100 help, on GPT-2 XL and T5 XXL."
    found = [v for v in violations(data, corpus) if "abbreviation" in v]
    assert found == ["concepts[3].body: 'TP' is an abbreviation the page never explains: give "
                     "it a glossary entry (or an alias of one), or write it out once as "
                     "'words (TP)'"]
    spelled = copy.deepcopy(data)
    spelled["concepts"][3]["body"] += " Tensor parallelism (TP) splits layers."
    assert not [v for v in violations(spelled, corpus) if "abbreviation" in v]
    aliased = copy.deepcopy(data)
    aliased["glossary"][0]["aliases"] = [*aliased["glossary"][0].get("aliases", []), "TP"]
    assert not [v for v in violations(aliased, corpus) if "abbreviation" in v]


def test_telling_the_reader_they_are_stuck_is_refused_with_its_path(plan_data, corpus):
    """page.toml's `stuck` picks the walkthrough; read back to the reader ("你卡住的…",
    "where you are stuck") it is a production note (reader li-r4 and three example plans)."""
    data = copy.deepcopy(plan_data)
    data["route"][2]["why"] = "你卡住的分块预填充的原论文：生成停顿从哪来。"
    data["walkthrough"]["intro"] = "Start where you are stuck: the budget, step by step."
    found = violations(data, corpus)
    assert sorted(v.split(":")[0] for v in found) == ["route[2].why", "walkthrough.intro"]
    assert all("tells the reader they are stuck" in v for v in found)
