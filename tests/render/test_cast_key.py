"""The colour key under the cast (green running, orange new, blue stored, red dashed freed, grey
idle) is the serving field's: its scenes colour the cast by state. A training or general page
keys its colours in its own panels, and a beginner reading a training page built from a model's
answer found the serving key contradicting the charts (blue there is optimizer state, red dashed
is memory over the card's capacity). On such a page the key is not drawn; the cast still is."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from pipeline import fields
from pipeline.config import load_config
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.model import load_plan
from pipeline.render.page import render_page
from pipeline.simulate.results import run_sim

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@cache
def _cast_section(name: str) -> BeautifulSoup:
    src = EXAMPLES / name
    plan = load_plan(src / "plan.json")
    html = render_page(plan, ingest_folder(src), load_config(src), run_sim(plan), None)
    section = BeautifulSoup(html, "html.parser").select_one("section[data-section=cast]")
    assert section is not None
    return section


@pytest.mark.parametrize(("name", "keyed"), [
    ("llm-inference", True), ("serving-frontier", True),
    ("training-at-scale", False), ("cpu-caches", False), ("household-budget", False),
])
def test_the_colour_key_is_drawn_only_where_a_field_colours_the_cast(name: str,
                                                                    keyed: bool) -> None:
    plan = load_plan(EXAMPLES / name / "plan.json")
    assert fields.colours_cast(plan) is keyed
    section = _cast_section(name)
    members = section.select("ul.cast-grid:not(.key) li")
    assert len(members) == len(plan.cast)  # the cast is always introduced
    key = section.select("ul.cast-grid.key li")
    assert len(key) == (5 if keyed else 0)
    assert ("红虚线" in section.get_text() or "red dashed" in section.get_text()) is keyed
