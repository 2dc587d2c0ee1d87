"""The page's notes on where its numbers come from follow its field (`Field.page_words`): a
general-field page (worked examples, cited ruler) never says its numbers come from a simulator,
and a serving page keeps its simulator's words."""

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


def _notes(name: str) -> tuple[str, str]:
    """The ruler's legend and the footer's note on illustrative values, as the page renders them."""
    src = EXAMPLES / name
    plan = load_plan(src / "plan.json")
    html = render_page(plan, ingest_folder(src), load_config(src), run_sim(plan), None)
    soup = BeautifulSoup(html, "html.parser")
    legend, note = (soup.select_one(sel) for sel in (".ruler-legend", ".note-illustrative"))
    assert legend is not None and note is not None
    return legend.get_text(" "), note.get_text(" ")


def test_a_general_page_names_worked_examples_and_citations_not_a_simulator() -> None:
    legend, note = _notes("cpu-caches")
    assert "simulator" not in legend + note
    assert "cited source" in legend and "worked examples" in note


@pytest.mark.parametrize("name", ["llm-inference-en"])
def test_a_serving_page_keeps_its_simulator_words(name: str) -> None:
    legend, note = _notes(name)
    assert "(values from the simulator)" in legend and "batching simulator" in note


@pytest.mark.parametrize(("name", "kind"), [("cpu-caches", "pipeline"),
                                             ("llm-inference-en", "loop")])
def test_the_main_threads_subtitle_says_its_kind(name: str, kind: str) -> None:
    """Only a loop 'turns around': a pipeline's subtitle says its stages follow one another."""
    src = EXAMPLES / name
    plan = load_plan(src / "plan.json")
    assert plan.main_thread.kind == kind
    html = render_page(plan, ingest_folder(src), load_config(src), run_sim(plan), None)
    heading = BeautifulSoup(html, "html.parser").select_one("#main-thread h2 .sub, h2 .sub")
    assert heading is not None
    said = heading.get_text()
    assert ("turns around this loop" in said) == (kind == "loop")
    assert ("these stages, one after another" in said) == (kind == "pipeline")


def test_a_walkthrough_of_two_worked_examples_heads_its_table_with_their_titles() -> None:
    """A table comparing two worked examples (a 1% fee, a 0.1% fee) is not 'without vs with'."""
    src = EXAMPLES / "household-budget"
    plan = load_plan(src / "plan.json")
    card = plan.concept("fee_drag")
    assert card is not None and card.trouble.example and card.fix.example
    titles = [plan.example(p.example).title for p in (card.trouble, card.fix)  # type: ignore[union-attr]
              if p.example]
    html = render_page(plan, ingest_folder(src), load_config(src), run_sim(plan), None)
    table = BeautifulSoup(html, "html.parser").select_one("table.compare")
    assert table is not None
    heads = [th.get_text(strip=True) for th in table.select("thead th")][1:]
    assert heads == titles
    caption = table.select_one("caption")
    assert caption is not None and "不用" not in caption.get_text()


def test_a_training_page_names_its_own_simulator() -> None:
    """The footer's note on tags names the page's simulator: a training page's numbers are not
    the batching simulator's (reader tr7 found the serving note on the training page)."""
    _legend, note = _notes("training-at-scale")
    assert "training simulator" in note and "batching" not in note
