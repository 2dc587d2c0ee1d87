"""The shipped examples (zh and en) render end to end with the real ingest, simulator and drawings."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from pipeline.config import load_config
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.model import load_plan
from pipeline.render.page import render_page
from pipeline.simulate.results import run_sim

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MAX_PAGE_BYTES = 400 * 1024


@pytest.fixture(scope="module", params=["llm-inference", "llm-inference-en"])
def example(request: pytest.FixtureRequest) -> tuple[str, str]:
    src = EXAMPLES / request.param
    plan = load_plan(src / "plan.json")
    html = render_page(plan, ingest_folder(src), load_config(src), run_sim(plan), None)
    return request.param, html


def test_example_renders_every_card_in_its_language(example: tuple[str, str]) -> None:
    name, html = example
    soup = BeautifulSoup(html, "html.parser")
    lang = "en" if name.endswith("-en") else "zh"
    assert soup.html["lang"] == lang
    cards = soup.select("article.card")
    assert 10 <= len(cards) <= 12
    first = "Solves: " if lang == "en" else "解决了："
    for card in cards:
        lines = card.select(".verdict > .line")
        assert len(lines) == 2 and lines[0].get_text().startswith(first)
        assert not card.select("svg.placeholder")
    assert soup.select("section[data-section=walkthrough] li.step")
    # The page budget (LOOK/P16): the whole self-contained page, fonts included, under 400 KB.
    size = len(html.encode("utf-8"))
    print(f"{name}: {size / 1024:.1f} KB")
    assert size < MAX_PAGE_BYTES, f"{name}: {size} bytes"
