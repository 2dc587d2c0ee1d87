"""A general-field panel whose every number is an article's is tagged "引自原文", not "示意值":
the page never tells a reader that a real survey figure is made up. One that also writes a
number computed from quoted ones alone is tagged "据原文算": the article may not print it, and a
reader looked for it there (reader hh3). One illustrative input anywhere in what the panel
writes makes it illustrative again."""

from __future__ import annotations

import json

from pipeline.draw.key import COMPUTED_WORDS, QUOTED_WORDS, TAG_WORDS
from pipeline.draw.panel import draw_panel
from pipeline.fields.general import GeneralField
from pipeline.fields.general.example import ExampleView, evaluate_example
from pipeline.plan.model import Concept, Panel, Quantity, ShowRole, WorkedExample

QUOTE = "调查显示，82.14% 的主动基金跑输了指数。"


def _view() -> ExampleView:
    example = WorkedExample(id="survey", title="调查", quantities=[
        Quantity(name="lost", label="跑输的", unit="%", kind="quoted", value=82.14,
                 source="s1", quote=QUOTE),
        Quantity(name="kept", label="没跑输的", unit="%", kind="derived", formula="100 - lost"),
        Quantity(name="fee", label="费率", unit="%", kind="illustrative", value=1),
        Quantity(name="net", label="扣费后", unit="%", kind="derived", formula="kept - fee"),
    ])
    return ExampleView.from_json(json.loads(json.dumps(evaluate_example(example))))


def test_quoted_only_follows_every_input_of_a_derived_number() -> None:
    view = _view()
    assert view.quoted_only(["lost", "kept"])
    assert not view.quoted_only(["lost", "net"])  # net = kept - fee, and fee is illustrative
    assert not view.quoted_only(["fee"])
    assert not view.quoted_only([])


def _svg(quantities: list[str], caption: str) -> str:
    panel = Panel(caption=caption, scene="compare", example="survey",
                  show=[ShowRole(role="bars", quantities=quantities)])
    concept = Concept(
        id="funds", field="general", name="指数基金", name_en="index funds",
        problem_left="x", body="x", trouble=panel, fix=panel, solves="x", costs="x",
    )
    view = _view()
    scene = GeneralField().scenes()["compare"]
    return draw_panel(concept, "trouble", panel, view, view.values(), lang="zh", scene=scene)


def test_a_panel_of_quoted_numbers_says_so() -> None:
    svg = _svg(["lost"], "{lost}% 跑输")
    assert QUOTED_WORDS["zh"] in svg and TAG_WORDS["zh"] not in svg
    assert COMPUTED_WORDS["zh"] not in svg


def test_a_panel_with_a_number_computed_from_quotes_says_it_was_computed() -> None:
    svg = _svg(["lost", "kept"], "{lost}% 跑输")  # kept = 100 - lost: no article prints it
    assert COMPUTED_WORDS["zh"] in svg
    assert QUOTED_WORDS["zh"] not in svg and TAG_WORDS["zh"] not in svg


def test_an_illustrative_number_in_the_caption_makes_the_panel_illustrative() -> None:
    svg = _svg(["lost", "kept"], "费率 {fee}%")
    assert TAG_WORDS["zh"] in svg and QUOTED_WORDS["zh"] not in svg
    assert COMPUTED_WORDS["zh"] not in svg
