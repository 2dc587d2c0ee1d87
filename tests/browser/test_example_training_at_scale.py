"""The training example end to end, as a user builds it: `tujie build examples/training-at-scale`
in a subprocess, into a folder of its own. The build exits 0, the browser check's report is
clean, every panel is a training scene's picture (no generic box of words), and the ruler has a
measured cell for every technique card and metric."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from pipeline import fields
from tests.tujie_process import REPO, tujie

pytestmark = pytest.mark.browser

SRC = REPO / "examples" / "training-at-scale"
NAME = "training-at-scale"
CELL = re.compile(r"[+-]\d+(?:\.\d+)?(?:%| pts)")  # MFU, itself a share, in points


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("out")
    done = tujie("build", str(SRC), "--out", str(out), timeout=1200)
    assert done.returncode == 0, done.stderr
    return out / NAME


def test_the_build_is_checked_clean(built: Path) -> None:
    report = json.loads((built / "check.json").read_text(encoding="utf-8"))
    assert report["ok"] is True, report["problems"]
    assert report["problems"] == []
    assert {"light-1280.png", "dark-1280.png", "light-390.png", "dark-390.png"} <= {
        Path(s).name for s in report["shots"]}


def test_every_panel_is_a_training_picture(built: Path) -> None:
    plan = json.loads((built / "plan.json").read_text(encoding="utf-8"))
    scenes = set(fields.field("training").scenes())
    soup = BeautifulSoup((built / "index.html").read_text(encoding="utf-8"), "html.parser")
    for concept in plan["concepts"]:
        assert concept["field"] == "training"
        for side in ("trouble", "fix"):
            panel = concept[side]
            assert panel["scene"] in scenes and panel["scenario"], (concept["id"], side)
            svg = soup.select_one(f"#panel-{concept['id']}-{side}")
            assert svg is not None, (concept["id"], side)
            # a picture: inked strokes and words inside it besides the caption and the tag
            assert len(svg.select("g.ink path")) >= 5, (concept["id"], side)
            inner = [t for t in svg.select("text") if t.get("data-role") not in ("caption", "tag")]
            assert inner, (concept["id"], side)


def test_the_ruler_has_no_empty_cell(built: Path) -> None:
    plan = json.loads((built / "plan.json").read_text(encoding="utf-8"))
    rows = [c for c in plan["concepts"] if c.get("technique")]
    metrics = plan["ruler"]["metrics"]
    assert len(rows) >= 3
    soup = BeautifulSoup((built / "index.html").read_text(encoding="utf-8"), "html.parser")
    for ruler_id in ("#ruler-svg", "#ruler-svg-n"):
        ruler = soup.select_one(ruler_id)
        assert ruler is not None, ruler_id
        texts = [t.get_text(strip=True) for t in ruler.select("text")]
        cells = [t for t in texts if CELL.fullmatch(t)]
        assert len(cells) == len(rows) * len(metrics), (ruler_id, texts)
        assert all(c["name_en"] in texts for c in rows), (ruler_id, texts)
