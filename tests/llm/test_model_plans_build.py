"""Accepted ⇒ builds: plans written the way a model answers the prompt (`model_plans`), sent by
the fake Messages API to the real SDK. Each is either sent back by the repair loop with
violations a model can act on (a JSON path and a problem), or built: `tujie build` exits 0 with
a clean browser check, no raw placeholder and no empty ruler cell on the page.

The deterministic set (every scene kind, every ruler metric id, captions at the limit with the
longest placeholders, tree-shaped dependencies, zh and en) runs the whole build with Chromium;
the hypothesis draws over the registry run the repair loop and the render stage in process."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fake_anthropic import FakeAnthropic, plan_reply, usage
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st
from model_plans import METRIC_NAMES, every_scene_plans, model_answer, model_answers
from test_accepted_builds import tujie

from pipeline.artifacts.sim import SimResults
from pipeline.build.stages import page_rules
from pipeline.config import load_config
from pipeline.errors import PlanRepairFailed
from pipeline.fields.serving.catalogue import build_catalogue as catalogue
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.extract import run_extraction
from pipeline.plan.llm import LLMClient
from pipeline.render.page import render_page
from pipeline.simulate.checks import page_violations

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = {"zh": REPO / "examples" / "llm-inference", "en": REPO / "examples" / "llm-inference-en"}
RAW = re.compile(r"\{[A-Za-z_]\w*(?:\.\w+)*\}")
METRIC_SETS = (["throughput", "ttft", "itl"], ["tpot", "e2el"])  # every id over the set


def folder(lang: str, tmp: Path) -> Path:
    """The example without its reviewed plan, and without page.toml's progress marks (a model
    is told their ids, but these cards may not include each marked concept)."""
    src = tmp / EXAMPLES[lang].name
    shutil.copytree(EXAMPLES[lang], src, ignore=shutil.ignore_patterns("plan.json"))
    toml = src / "page.toml"
    text = toml.read_text(encoding="utf-8")
    head, _, rest = text.partition("[progress]")
    tail = rest[rest.find("\n["):] if "\n[" in rest else ""
    toml.write_text(head + tail.lstrip("\n"), encoding="utf-8")
    return src


def page_problems(html: str) -> list[str]:
    """What a reader must never see: a raw placeholder, an empty ruler cell."""
    soup = BeautifulSoup(html, "html.parser")
    for hidden in soup.select("script, style"):
        hidden.decompose()
    found = [f"raw placeholder {m}" for m in RAW.findall(soup.get_text(" "))]
    for svg in soup.select("svg.ruler"):
        cells = [t.get_text().strip() for t in svg.select("text")]
        found += ["empty ruler cell" for c in cells if c in ("–", "-", "?")]
    return found


CASES = [
    (lang, k) for lang in ("zh", "en") for k in range(len(every_scene_plans(catalogue())))
]


@pytest.mark.browser
@pytest.mark.parametrize(("lang", "k"), CASES, ids=[f"{lang}-{k}" for lang, k in CASES])
def test_a_careful_models_plan_builds_with_a_clean_check(
    fake: FakeAnthropic, tmp_path: Path, lang: str, k: int
) -> None:
    src = folder(lang, tmp_path)
    corpus = ingest_folder(src)
    cards = every_scene_plans(catalogue())[k]
    stuck = load_config(src).stuck
    answer = model_answer(corpus, catalogue(), lang, cards, METRIC_SETS[k % len(METRIC_SETS)],
                          stuck[0] if stuck else None)
    fake.replies = [plan_reply(answer, use=usage())]
    out = tmp_path / "out"
    result = tujie(fake, "build", str(src), "--out", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(fake.messages()) == 1, "accepted at the first answer"
    built = out / src.name
    check = json.loads((built / "check.json").read_text(encoding="utf-8"))
    assert check["ok"] is True, check
    assert page_problems((built / "index.html").read_text(encoding="utf-8")) == []


@pytest.fixture(scope="module")
def server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        yield fake


def _extract(fake: FakeAnthropic, lang: str, out: Path, answer: dict[str, Any]) -> Any:
    src = EXAMPLES[lang]
    corpus = ingest_folder(src)
    config = load_config(src).model_copy(update={"stuck": []})
    fake.replies = [plan_reply(answer, use=usage()), plan_reply(answer, use=usage())]
    fake.requests.clear()
    client = LLMClient("sk-ant-test", base_url=fake.url, max_retries=0, timeout_s=30)
    return corpus, config, lambda: run_extraction(
        client, corpus, lang=lang, stuck=[], out_dir=out, refresh=True, max_rounds=2,
        catalogue=catalogue(), rules=page_rules(corpus, config),
    )


# No shrinking: an example is a whole repair loop and page render; the draw is printed as is.
@settings(
    max_examples=12,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data(), lang=st.sampled_from(["zh", "en"]))
def test_whatever_the_loop_accepts_renders_and_what_it_refuses_is_sent_back(
    server: FakeAnthropic, tmp_path: Path, data: st.DataObject, lang: str
) -> None:
    corpus = ingest_folder(EXAMPLES[lang])
    answer = data.draw(model_answers(corpus, catalogue(), lang))
    corpus, config, extract = _extract(server, lang, tmp_path / f"llm-{lang}", answer)
    try:
        result = extract()
    except PlanRepairFailed as err:
        event("sent back")
        repair = json.dumps(server.messages()[1].body, ensure_ascii=False)
        assert err.violations and all(v.path and v.problem for v in err.violations)
        for v in err.violations:
            assert v.path in repair, "the model was told the path of what to mend"
        return
    event("accepted")
    found, sim = page_violations(result.plan, corpus)
    assert found == [], "the plan stage and the sim stage agree with the loop"
    html = render_page(result.plan, corpus, config, sim, None)
    assert page_problems(html) == []


def test_the_deterministic_set_covers_every_scene_and_metric() -> None:
    """What the set above claims: every scene kind but generic is drawn, every metric id used."""
    plans = every_scene_plans(catalogue())
    drawn = {s for cards in plans for c in cards for s in c.scenes}
    offered = {s for e in catalogue().scenarios.values() for s in e.scenes}
    assert drawn == offered
    assert {m for ms in METRIC_SETS for m in ms} == set(METRIC_NAMES["en"])
    assert set(METRIC_NAMES["en"]) == set(catalogue().ruler_metrics)
    assert all(8 <= len(cards) <= 13 for cards in plans)


def test_every_panel_of_an_accepted_plan_is_simulated() -> None:
    """SimResults of an accepted plan carry a trace for every panel that names a scenario."""
    corpus = ingest_folder(EXAMPLES["zh"])
    cards = every_scene_plans(catalogue())[0]
    answer = model_answer(corpus, catalogue(), "zh", cards, METRIC_SETS[0])
    from pipeline.plan.model import parse_plan

    plan = parse_plan({**answer, "meta": {"made_by": "llm", "date": "2026-12-01"}})
    found, sim = page_violations(plan, corpus)
    assert found == []
    assert isinstance(sim, SimResults)
    assert all(sim.panel_trace(p) is not None for _path, _c, p in plan.panels())
