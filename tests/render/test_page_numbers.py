"""H5 on the rendered page: every number a reader sees in the page's words comes from somewhere —
a passage the plan cites (quotes, worked-example quotes, cited effects), a number the page's
runs computed (every value `pipeline.review.numbers.page_numbers` lists: panel runs, the
walkthrough's table, the ruler's cells), a source's own title, or the page's own structure
(card numbers, route reading times, walkthrough step numbers). Scanned on every example folder
that ships a plan, so a new example is held to it the day it lands.

The pictures' inner numbers (axis ticks, counts) are held by each field's scene tests to their
run's values; here the words around them: prose, captions, notes, tables, the ruler's cells."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from pipeline.config import load_config
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.model import load_plan
from pipeline.plan.rules import numbers_in
from pipeline.render.page import render_page
from pipeline.render.route import CHINESE_CHARS_PER_MINUTE, ENGLISH_WORDS_PER_MINUTE
from pipeline.review.numbers import page_numbers
from pipeline.simulate.results import run_sim

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PLANNED = sorted(p.parent.name for p in EXAMPLES.glob("*/plan.json"))
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _plain(number: str) -> str:
    """'3,000' -> '3000', '12.50' -> '12.5': one spelling per value."""
    text = number.replace(",", "") if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", number) else number
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


@cache
def _page(name: str) -> tuple[str, set[str]]:
    src = EXAMPLES / name
    plan = load_plan(src / "plan.json")
    corpus = ingest_folder(src)
    config = load_config(src)
    sim = run_sim(plan)
    html = render_page(plan, corpus, config, sim, None)
    allowed: set[str] = set()
    quotes = [c.quote for concept in plan.concepts for c in concept.citations]
    quotes += [e.quote for concept in plan.concepts for e in concept.effects]
    quotes += [q.quote for ex in plan.examples for q in ex.quantities]
    for text in quotes:
        allowed |= {_plain(n) for n in NUMBER.findall(text)}
    for shown in page_numbers(plan, sim, config):
        allowed |= {_plain(n) for n in NUMBER.findall(shown.value)}
    # the sources' own words: their titles and the reading list's notes
    named = [s.title for s in corpus.sources]
    named += [e.title for e in corpus.reading_list] + [e.note for e in corpus.reading_list]
    for title in named:
        allowed |= {_plain(n) for n in NUMBER.findall(title)}
    # the route's stated reading speeds (P10: the rule is on the page)
    allowed |= {str(CHINESE_CHARS_PER_MINUTE), str(ENGLISH_WORDS_PER_MINUTE)}
    # the page's own structure: card n of N, walkthrough steps, minutes on the route
    allowed |= {str(n) for n in range(0, 61)}
    return html, allowed


def _reader_text(html: str) -> list[str]:
    """The words a reader reads: every text outside scripts, styles and the pictures' insides
    (the panels' captions are kept: they carry bound numbers)."""
    soup = BeautifulSoup(html, "html.parser")
    # the fonts' licence texts are quoted as they are (their years and versions)
    for hidden in soup.select("script, style, title, svg defs, details.about"):
        hidden.decompose()
    texts = [t.get_text(" ") for t in soup.select("[data-role=caption]")]
    for svg in soup.select("svg"):
        svg.decompose()
    texts.append(soup.get_text(" "))
    return texts


@pytest.mark.parametrize("name", PLANNED)
def test_every_number_a_reader_sees_is_quoted_or_computed(name: str) -> None:
    html, allowed = _page(name)
    unsourced = sorted({
        _plain(n) for text in _reader_text(html) for n in numbers_in(text)
        if _plain(n) not in allowed
    })
    assert unsourced == [], f"{name}: numbers from nowhere on the page: {unsourced[:20]}"


TRAINING = "training-at-scale"


def test_the_training_pages_captions_carry_their_own_runs_numbers() -> None:
    """Issue 24: the training example's numbers trace to `sim train` runs. Each drawn caption's
    numbers are values the panel's own run offers (`training_values`), and the review's list of
    the page's run numbers (`page_numbers`, through the field registry) holds every one."""
    from pipeline import fields

    html, _allowed = _page(TRAINING)
    src = EXAMPLES / TRAINING
    plan = load_plan(src / "plan.json")
    sim = run_sim(plan)
    listed = {_plain(n.value) for n in page_numbers(plan, sim, load_config(src))}
    soup = BeautifulSoup(html, "html.parser")
    seen = 0
    for concept in plan.concepts:
        assert fields.concept_field(concept) == "training"
        for side, panel in (("trouble", concept.trouble), ("fix", concept.fix)):
            own = {_plain(v) for v in fields.run_values(plan, concept, panel, sim).values()}
            caption = soup.select_one(f"#panel-{concept.id}-{side} [data-role=caption]")
            assert caption is not None, (concept.id, side)
            shown = [_plain(n) for n in numbers_in(caption.get_text(" "))]
            assert shown, (concept.id, side, caption.get_text())
            assert set(shown) <= own & listed, (concept.id, side, shown)
            seen += len(shown)
    assert seen >= 2 * len(plan.concepts)
