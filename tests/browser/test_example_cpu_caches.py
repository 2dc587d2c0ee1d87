"""The shipped example `examples/cpu-caches` (a hand-reviewed general-field plan) builds end to
end through the real CLI: exit 0, a clean browser check, every panel a drawn scene (no text-only
generic panel) and every ruler cell filled with what its source says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from pipeline.draw.ruler_rows import CITED  # a quote's direction, when it gives no amount
from pipeline.plan.model import load_plan
from tests.tujie_process import REPO, tujie

pytestmark = pytest.mark.browser

SRC = REPO / "examples" / "cpu-caches"
EMPTY = ("", "–", "-", "?")  # what an unfilled cell would show


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cpu-caches")
    result = tujie("build", str(SRC), "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    return out / "cpu-caches"


def test_the_browser_check_is_clean(built: Path) -> None:
    report = json.loads((built / "check.json").read_text(encoding="utf-8"))
    assert report["ok"] is True and report["problems"] == [], report["problems"]
    assert len(report["shots"]) == 4  # both themes at 1280 and 390 px


def test_every_panel_is_a_drawn_scene(built: Path) -> None:
    """A general scene carries the illustrative tag and describes its picture; a generic panel
    (boxes of words) has no tag and a desc that starts 'Sketch'."""
    plan = load_plan(SRC / "plan.json")
    soup = BeautifulSoup((built / "index.html").read_text(encoding="utf-8"), "html.parser")
    panels = soup.select("svg.panel")
    assert len(panels) == 2 * len(plan.concepts)
    for svg in panels:
        where = svg.get("data-panel")
        assert svg.select('text[data-role="tag"]'), f"{where} has no scene (a text-only panel)"
        desc = svg.select_one("desc")
        assert desc is not None and not desc.get_text().startswith("Sketch"), where
        assert svg.select("path, use"), f"{where} draws nothing"


def test_no_ruler_cell_is_empty(built: Path) -> None:
    plan = load_plan(SRC / "plan.json")
    rows = [c for c in plan.concepts if c.effects]
    amounts = {e.amount for c in rows for e in c.effects if e.amount}
    soup = BeautifulSoup((built / "index.html").read_text(encoding="utf-8"), "html.parser")
    rulers = soup.select("svg.ruler")
    assert rulers, "the page has a ruler"
    for svg in rulers:  # the wide ruler and the phone's
        texts = [t.get_text().strip() for t in svg.select("text")]
        assert not [t for t in texts if t in EMPTY], f"{svg.get('id')}: an empty cell"
        cells = [t for t in texts if t in CITED["en"].values() or t in amounts]
        assert len(cells) == len(rows) * len(plan.ruler.metrics), (svg.get("id"), texts)
        for concept in rows:
            assert concept.name in texts, f"{svg.get('id')}: no row for {concept.id}"
