"""The household-budget example (the general field's first shipped folder) builds end to end
through the real CLI: exit 0, the browser check's report ok, every panel a drawn picture (no
text-only `generic` box), and a ruler whose every cell says something (no "–" for a metric the
row does not state)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from pipeline.draw.ruler_rows import CITED
from tests.tujie_process import REPO, tujie

pytestmark = pytest.mark.browser

SRC = REPO / "examples" / "household-budget"
EMPTY_CELL = "–"  # what the ruler writes where a row has no number and no cited effect


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("household-out")
    done = tujie("build", str(SRC), "--out", str(out), timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    return out / "household-budget"


def test_the_build_exits_zero_and_its_check_is_ok(built: Path) -> None:
    report = json.loads((built / "check.json").read_text(encoding="utf-8"))
    assert report["ok"] is True, report.get("problems")
    assert report["problems"] == []


def test_every_panel_is_a_drawn_picture(built: Path) -> None:
    plan = json.loads((built / "plan.json").read_text(encoding="utf-8"))
    scenes = [c[side]["scene"] for c in plan["concepts"] for side in ("trouble", "fix")]
    assert "generic" not in scenes
    soup = BeautifulSoup((built / "index.html").read_text(encoding="utf-8"), "html.parser")
    panels = soup.select("svg.panel")
    assert len(panels) == len(scenes)
    for svg in panels:
        # a scene's panel carries the 示意值 tag and a caption; the generic box of words has no tag
        roles = [t.get("data-role") for t in svg.select("text")]
        assert "tag" in roles and "caption" in roles, svg.get("id")
        assert svg.select("path"), f"{svg.get('id')}: no strokes drawn"


def test_no_ruler_cell_is_empty(built: Path) -> None:
    plan = json.loads((built / "plan.json").read_text(encoding="utf-8"))
    rows = [c for c in plan["concepts"] if c.get("effects")]
    metrics = plan["ruler"]["metrics"]
    assert len(rows) >= 2
    soup = BeautifulSoup((built / "index.html").read_text(encoding="utf-8"), "html.parser")
    rulers = soup.select("svg.ruler")
    assert len(rulers) == 2  # the wide and the narrow layout
    for svg in rulers:
        words = [t.get_text() for t in svg.select("text")]
        assert EMPTY_CELL not in words, svg.get("id")
        cited = [w for w in words if w in CITED["zh"].values()]
        assert len(cited) == len(rows) * len(metrics), words
