"""Issue 13.3 and 13.5 against the fake Messages API, through the real CLI: `tujie plan` on
examples/serving-frontier tells the model every technique id and every scenario's placeholders
(and knobs); an extraction is reused by the next build with or without the key while the sources
and the prompt are unchanged; `tujie plan --save` copies it into the folder for review and never
overwrites a plan.json there without --force."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fake_anthropic import TEST_KEY, FakeAnthropic, plan_reply
from plans import frontier_plan_input
from test_plan_cli import REPO

from pipeline.artifacts.sources import Corpus
from pipeline.fields.serving.catalogue import build_catalogue as catalogue
from pipeline.ingest.folder import ingest_folder
from tests.foundation.test_build_inputs import tujie

FRONTIER = REPO / "examples" / "serving-frontier"
NAME = "serving-frontier"  # page.toml's publish name: the output folder


@pytest.fixture(scope="module")
def answer() -> dict[str, object]:
    corpus: Corpus = ingest_folder(FRONTIER)
    return frontier_plan_input(corpus)


@pytest.fixture
def src(tmp_path: Path) -> Path:
    """The frontier articles without their hand-reviewed plan: a folder the LLM must plan."""
    folder = Path(shutil.copytree(FRONTIER, tmp_path / "frontier"))
    (folder / "plan.json").unlink(missing_ok=True)
    return folder


def _key(fake: FakeAnthropic) -> dict[str, str]:
    return {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": TEST_KEY}


def test_the_request_names_every_technique_and_every_scenarios_placeholders(
    fake: FakeAnthropic, answer: dict[str, object], tmp_path: Path
) -> None:
    fake.replies = [plan_reply(answer)]
    shipped = (FRONTIER / "plan.json").read_bytes()  # the folder's hand-reviewed plan
    r = tujie("plan", str(FRONTIER), "--out", str(tmp_path), env=_key(fake))
    assert r.returncode == 0, r.stderr
    [request] = fake.messages()
    system = request.body["system"]
    cat = catalogue()
    for t in cat.techniques:
        assert f"- {t.id}: {t.line}" in system
    for sid, entry in cat.scenarios.items():
        block = system.split(f"* {sid} — ", 1)[1].split("\n   * ", 1)[0]
        assert f"drawn by: {', '.join(entry.scenes)}" in block
        for p in entry.placeholders:
            assert f"{{{p.name}}} {p.without or '-'}|{p.with_ or '-'}" in block, (sid, p.name)
        for k in entry.knobs:
            assert f"{k.id} = {k.meaning}" in block
    written = json.loads((tmp_path / NAME / "plan.json").read_text(encoding="utf-8"))
    spec = next(c for c in written["concepts"] if c["id"] == "speculative_decoding")
    assert spec["fix"]["knobs"] == [{"name": "acceptance", "value": 0.5},
                                    {"name": "draft_k", "value": 4}]
    assert written["meta"]["prompt_hash"] and written["meta"]["source_hash"]
    assert (FRONTIER / "plan.json").read_bytes() == shipped  # the folder is left as it was


def test_a_build_without_the_key_reuses_the_extraction(
    fake: FakeAnthropic, answer: dict[str, object], src: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    fake.replies = [plan_reply(answer)]
    paid = tujie("build", str(src), "--out", str(out), "--until", "sim", env=_key(fake))
    assert paid.returncode == 0, paid.stderr
    assert len(fake.messages()) == 1
    extracted = (out / NAME / "plan.json").read_text(encoding="utf-8")

    again = tujie("build", str(src), "--out", str(out), "--until", "sim")  # no key at all
    assert again.returncode == 0, again.stderr
    assert "reused" in again.stdout and "no LLM call" in again.stdout
    assert (out / NAME / "plan.json").read_text(encoding="utf-8") == extracted
    assert (out / NAME / "sim" / "spec_decode--with+acceptance=0.5,draft_k=4.json").exists()
    assert len(fake.messages()) == 1  # nothing paid twice

    # Other sources: the extraction no longer stands for the folder.
    article = src / "streaming-ttft-vs-e2el.md"
    article.write_text(article.read_text(encoding="utf-8") + "\nOne more line.\n", "utf-8")
    stale = tujie("build", str(src), "--out", str(out), "--until", "plan")
    assert stale.returncode == 3, stale.stderr
    assert "other sources or another prompt" in stale.stderr and "--save" in stale.stderr


def test_plan_save_copies_it_for_review_and_never_overwrites_without_force(
    fake: FakeAnthropic, answer: dict[str, object], src: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    fake.replies = [plan_reply(answer)]
    saved = tujie("plan", str(src), "--out", str(out), "--save", env=_key(fake))
    assert saved.returncode == 0, saved.stderr
    assert "saved for review" in saved.stdout
    text = (src / "plan.json").read_text(encoding="utf-8")
    assert text == (out / NAME / "plan.json").read_text(encoding="utf-8")

    # Reviewed by hand: a second --save refuses before any call, naming what is there.
    data = json.loads(text)
    data["meta"]["made_by"] = "hand-reviewed"
    (src / "plan.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    refused = tujie("plan", str(src), "--out", str(out), "--save", env=_key(fake))
    assert refused.returncode == 2
    assert "(hand-reviewed) is already there" in refused.stderr and "--force" in refused.stderr
    assert len(fake.messages()) == 1
    assert json.loads((src / "plan.json").read_text("utf-8"))["meta"]["made_by"] == "hand-reviewed"

    # The folder's plan is what builds use, key or no key.
    build = tujie("build", str(src), "--out", str(out), "--until", "plan")
    assert build.returncode == 0, build.stderr
    assert "(hand-reviewed)" in build.stdout

    fake.replies = [plan_reply(answer)]
    forced = tujie("plan", str(src), "--out", str(out), "--save", "--force", env=_key(fake))
    assert forced.returncode == 0, forced.stderr
    assert json.loads((src / "plan.json").read_text("utf-8"))["meta"]["made_by"] == "llm"


def test_the_repair_loop_sees_what_only_the_page_would_have_found(
    fake: FakeAnthropic, answer: dict[str, object], tmp_path: Path
) -> None:
    """A schema-valid answer whose ruler has no rows and whose metric name does not fit the
    phone ruler: both go back to the model with their JSON paths in the same round, and the
    second answer is the plan written — no render failure after the plan was paid for."""
    broken = json.loads(json.dumps(answer))
    broken["ruler"]["metrics"][1]["name"] = "time to first token TTFT"
    for concept in broken["concepts"]:
        concept["technique"] = None
    fake.replies = [plan_reply(broken), plan_reply(answer)]
    r = tujie("plan", str(FRONTIER), "--out", str(tmp_path), env=_key(fake))
    assert r.returncode == 0, r.stderr
    first, repair = fake.messages()
    said = json.dumps(repair.body["messages"][2]["content"], ensure_ascii=False)
    assert "ruler: 0 technique row(s), at least 3 needed" in said
    assert "ruler.metrics[1].name: does not fit its drawing: ruler (narrow)" in said
    assert "2 attempt(s)" in r.stdout
    written = json.loads((tmp_path / NAME / "plan.json").read_text(encoding="utf-8"))
    assert written["ruler"]["metrics"][1]["name"] == "TTFT"
