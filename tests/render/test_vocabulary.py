"""One vocabulary per page (issue 21, item 5): the words a field's pictures write are defined at
or before their first use, in prose or in a picture; another word for one of them is refused."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from pipeline import fields
from pipeline.fields.vocabulary import Term, avoided_words, page_glossary
from pipeline.plan.model import GlossaryEntry, load_plan
from pipeline.plan.rules import ABBREVIATION, KNOWN_ABBREVIATIONS, reader_prose
from pipeline.render.glossary import Annotator, Glossary, svg_text
from sim.presets.cast import CAST
from tests.render.conftest import load_fixture_plan
from tests.render.test_examples import EXAMPLES, _render

CAST_IDS = {rid for rid, *_ in CAST}
PLAN_ENTRIES = [
    GlossaryEntry(term="KV cache", definition="the saved keys and values"),
    GlossaryEntry(term="percentile", definition="a value below which a share falls",
                  aliases=["p99"]),
]
TERMS = [
    Term("KV cache", "field's sentence", ("KV",)),
    Term("p99", "field's p99", ("P99",)),
    Term("block", "a piece of cache memory", ("blocks",), ("page frame", "pageframes")),
]


def test_a_field_term_the_plan_defines_lends_its_other_names_as_aliases() -> None:
    merged = page_glossary(PLAN_ENTRIES, TERMS)
    assert [g.term for g in merged] == ["KV cache", "percentile", "block"]
    assert merged[0].definition == "the saved keys and values"  # the plan's sentence kept
    assert merged[0].aliases == ["KV"]
    assert merged[1].aliases == ["p99"]  # "P99" is the same name, case aside
    assert merged[2].definition == "a piece of cache memory" and merged[2].aliases == ["blocks"]
    # the plan's own entries are not changed in place (the plan is the user's artifact)
    assert PLAN_ENTRIES[0].aliases == []


def test_a_picture_word_is_defined_where_the_picture_first_writes_it() -> None:
    plan = load_fixture_plan()
    entries = page_glossary(plan.glossary, TERMS)
    notes = Annotator(plan, entries)
    svg = '<svg><text x="1">12 <tspan>blocks</tspan> free</text><title>blocks</title></svg>'
    first = notes.picture(svg)
    assert [n.term for n in first] == ["block"] and not first[0].marked
    assert notes.picture(svg) == []  # defined once
    assert notes.prose("two blocks").html.count("<dfn") == 0


def test_svg_text_reads_only_the_visible_words() -> None:
    svg = '<svg><title>hidden KV</title><text>A &amp; B</text><text><tspan>p99</tspan></text></svg>'
    assert svg_text(svg) == "A & B\np99"


def test_another_word_for_a_picture_term_is_refused_with_its_path() -> None:
    prose = [("concepts[0].body", "a page frame of 16 tokens"), ("concepts[1].body", "{page}")]
    found = avoided_words(prose, TERMS, PLAN_ENTRIES)
    assert [v.path for v in found] == ["concepts[0].body"]
    assert "'block'" in found[0].problem
    # whole words only, and a placeholder's name is not prose
    assert avoided_words([("title", "page frames")], TERMS, PLAN_ENTRIES) == []
    assert avoided_words([("title", "{pageframes} of 16")], TERMS, PLAN_ENTRIES) == []
    glossed = [GlossaryEntry(term="page frame", definition="d")]
    assert [v.path for v in avoided_words([], TERMS, glossed)] == ["glossary[0].term"]


def test_the_example_plans_keep_one_word_per_thing() -> None:
    for plan_file in sorted(EXAMPLES.glob("*/plan.json")):
        plan = load_plan(plan_file)
        terms = fields.page_vocabulary(plan)
        found = avoided_words(reader_prose(plan), terms, plan.glossary)
        assert found == [], f"{plan_file.parent.name}: {found}"


@pytest.mark.parametrize(
    "name", ["llm-inference", "llm-inference-en", "serving-frontier", "training-at-scale"])
def test_every_term_a_picture_writes_is_defined_at_or_before_its_card(name: str) -> None:
    """Walk the rendered page in reading order: each glossary term a card's pictures write has
    its definition note on the page before that card ends; and every abbreviation a picture
    writes is a glossary term (the field's words included) or a unit."""
    rendered = _render(name)
    html = rendered.html
    glossary = Glossary(fields.page_glossary(rendered.plan))
    names = {n.casefold() for g in glossary.entries for n in (g.term, *g.aliases)}
    soup = BeautifulSoup(html, "html.parser")
    cards = soup.select("article.card")
    ends = [html.index(f'id="{c["id"]}"') for c in cards[1:]] + [html.index("data-section=\"ruler\"")]
    checked = 0
    for card, end in zip(cards, ends, strict=True):
        words = "\n".join(t.get_text(" ") for t in card.select("svg text"))
        for index in set(Glossary(glossary.entries).found(words)):
            at = html.find(f'id="note-{index + 1}"')
            assert 0 <= at < end, f"{card['id']}: '{glossary.entries[index].term}' undefined"
            checked += 1
        for abbr in ABBREVIATION.findall(words):
            if abbr in KNOWN_ABBREVIATIONS or set(abbr) <= CAST_IDS:
                continue  # a unit, or the cast named together ("ABCD")
            assert abbr.casefold() in names or abbr.casefold() + "s" in names, (
                f"{card['id']}: the picture writes '{abbr}', which the page never defines")
    assert checked >= 5


@pytest.mark.parametrize("name", ["cpu-caches", "llm-inference", "training-at-scale"])
def test_a_term_the_cast_uses_is_defined_before_the_cards(name: str) -> None:
    """Reader cc-r4: the cast said "running another thread" eight cards before "thread" was
    defined. The cast's roles carry no <dfn>; each term they use is defined under the cast."""
    rendered = _render(name)
    html = rendered.html
    soup = BeautifulSoup(html, "html.parser")
    words = "\n".join(li.get_text(" ") for li in soup.select("section[data-section=cast] figure li"))
    glossary = Glossary(fields.page_glossary(rendered.plan))
    used = set(glossary.found(words))
    assert used, name  # each of these casts names a term
    cards = html.index('data-section="cards"')
    for index in used:
        at = html.find(f'id="note-{index + 1}"')
        assert 0 <= at < cards, f"{name}: '{glossary.entries[index].term}' defined after the cast"


def test_a_training_page_writes_token_as_its_pictures_do() -> None:
    """Played model hf8's Chinese training page said 词元 in a caption beside step bars that
    write "token": the training field lists token with the serving field's other names."""
    terms = fields.field("training").vocabulary["zh"]
    found = avoided_words([("concepts[0].trouble.caption", "单卡每秒{tokens_per_s}词元")],
                          terms, [])
    assert [v.path for v in found] == ["concepts[0].trouble.caption"]
    assert "'token'" in found[0].problem
