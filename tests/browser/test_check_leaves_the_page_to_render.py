"""The check stage measures its own trial renders in a scratch file; index.html stays the render
stage's artifact, re-rendered with the fixes the check found (issue 11: the check used to rewrite
the render stage's page). A second build then runs no stage."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.artifacts.check import load_check_report
from pipeline.artifacts.links import load_report
from pipeline.artifacts.sim import SimResults
from pipeline.artifacts.sources import Corpus
from pipeline.build.page_stages import build_info
from pipeline.build.runner import run_build
from pipeline.build.state import prepare
from pipeline.plan.model import load_plan
from pipeline.render.page import render_page

pytestmark = pytest.mark.browser

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llm-inference-en"


def test_the_page_is_the_render_of_the_checks_fixes(tmp_path: Path) -> None:
    src = Path(shutil.copytree(EXAMPLE, tmp_path / "notes"))
    build = prepare(src, tmp_path / "out")
    run_build(build, until="check")
    out = build.dir
    assert not (out / ".check-page.html").exists()
    fixes = load_check_report(out / "check.json").overrides
    plan = load_plan(out / "plan.json")
    corpus = Corpus.model_validate_json((out / "sources.json").read_text(encoding="utf-8"))
    again = render_page(
        plan, corpus, build.config, SimResults.load(out / "sim"), load_report(out / "links.json"),
        overrides=fixes, build_info=build_info(build),
    )  # fmt: skip
    assert (out / "index.html").read_text(encoding="utf-8") == again

    second = prepare(src, tmp_path / "out")
    run_build(second, until="check")
    assert [r.name for r in second.records if r.ran] == []
