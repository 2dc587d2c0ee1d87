"""Issue 22: an artifact is trusted because it is what its stage wrote, not because it exists. A
damaged output (a half-cut page, a truncated sweep, sources or check report, an edited copy of
the plan) runs its stage again, with no traceback; the inputs' fingerprint is the one taken
before they were read, so an article edited during a build leaves it stale and publish says so;
and an output folder that resolves into the source folder is refused before anything is
written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from pipeline.build.runner import run_build
from pipeline.build.state import prepare
from tests.llm.fake_anthropic import TEST_KEY, plan_reply
from tests.llm.held_fake import HeldFake, shipped_answer
from tests.tujie_process import one_error_line, start_tujie, tujie

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm-inference"
NAME = "llm-inference"
# Each output a stage writes, and the stage that must run again when it is damaged.
DAMAGEABLE = {
    "sources.json": "ingest",
    "plan.json": "plan",
    "links.json": "links",
    "sim/sweep.json": "sim",
    "index.html": "render",
}


def build_until(src: Path, out: Path, until: str = "render") -> list[str]:
    """The stages that ran (the real pipeline, in this process)."""
    build = prepare(src, out)
    run_build(build, until=until)
    return [r.name for r in build.records if r.ran]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example built until render once; tests copy it."""
    out = tmp_path_factory.mktemp("built")
    build_until(EXAMPLE, out)
    return out


def copy_of(built: Path, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(built, out)
    return out


def _same_content(artifact: str, whole: bytes, now: bytes) -> bool:
    """The same bytes; for the link report the same verdicts (each result is stamped with the
    time it was checked)."""
    if artifact != "links.json":
        return now == whole
    verdicts = [(r["url"], r["status"]) for r in json.loads(whole)["results"]]
    return verdicts == [(r["url"], r["status"]) for r in json.loads(now)["results"]]


@settings(
    max_examples=10,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),  # each example builds: no shrinking
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(artifact=st.sampled_from(sorted(DAMAGEABLE)), keep=st.floats(0.0, 0.95))
@example(artifact="index.html", keep=0.5).via("the issue's half-cut page")
@example(artifact="sim/sweep.json", keep=0.3).via("the issue's truncated sweep")
@example(artifact="sources.json", keep=0.0).via("an emptied corpus")
def test_a_damaged_output_runs_its_stage_again_and_comes_back_whole(
    built: Path, tmp_path_factory: pytest.TempPathFactory, artifact: str, keep: float
) -> None:
    out = copy_of(built, tmp_path_factory.mktemp("damaged"))
    path = out / NAME / artifact
    whole = path.read_bytes()
    path.write_bytes(whole[: int(len(whole) * keep)])  # cut, as a full disk or a kill leaves it
    ran = build_until(EXAMPLE, out)
    assert DAMAGEABLE[artifact] in ran
    assert _same_content(artifact, whole, path.read_bytes())


def test_an_untouched_build_runs_nothing_again(built: Path, tmp_path: Path) -> None:
    out = copy_of(built, tmp_path)
    assert build_until(EXAMPLE, out) == []


def test_a_half_cut_page_is_rendered_again_by_the_cli(built: Path, tmp_path: Path) -> None:
    out = copy_of(built, tmp_path)
    page = out / NAME / "index.html"
    whole = page.read_bytes()
    page.write_bytes(whole[: len(whole) // 2])
    result = tujie("render", str(EXAMPLE), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and page.read_bytes() == whole


@pytest.mark.parametrize("artifact", ["sim/sweep.json", "sources.json"])
def test_a_truncated_json_artifact_is_made_again_not_a_traceback(
    built: Path, tmp_path: Path, artifact: str
) -> None:
    out = copy_of(built, tmp_path)
    path = out / NAME / artifact
    whole = path.read_bytes()
    path.write_bytes(whole[:100])
    result = tujie("build", str(EXAMPLE), "--out", str(out), "--until", "render")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and path.read_bytes() == whole


def test_an_edited_copy_of_a_shipped_plan_is_made_again_from_it(
    built: Path, tmp_path: Path
) -> None:
    out = copy_of(built, tmp_path)
    copy = out / NAME / "plan.json"
    whole = copy.read_text(encoding="utf-8")
    copy.write_text(whole.replace('"hand-reviewed"', '"llm"', 1), encoding="utf-8")
    assert "plan" in build_until(EXAMPLE, out, until="plan")
    assert copy.read_text(encoding="utf-8") == whole


@pytest.mark.browser
def test_tujie_check_runs_the_check_again_when_check_json_is_damaged(
    built: Path, tmp_path: Path
) -> None:
    out = copy_of(built, tmp_path)
    assert tujie("check", str(EXAMPLE), "--out", str(out)).returncode == 0
    report = out / NAME / "check.json"
    whole = json.loads(report.read_text(encoding="utf-8"))
    report.write_text(report.read_text(encoding="utf-8")[:200], encoding="utf-8")
    refused = tujie("publish", str(EXAMPLE), "--out", str(out), "--allow-unverified")
    assert refused.returncode == 1 and "tujie check" in one_error_line(refused.stderr)
    result = tujie("check", str(EXAMPLE), "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "check" in result.stdout and "skipped" not in _stage_line(result.stdout, "check")
    again = json.loads(report.read_text(encoding="utf-8"))
    assert again["ok"] and again["cards"] == whole["cards"]


def _stage_line(stdout: str, stage: str) -> str:
    return next(ln for ln in stdout.splitlines() if f" {stage} " in ln)


# --- the inputs' fingerprint is the one taken when they were read ----------------------------


def test_an_article_edited_during_the_plan_call_leaves_the_build_stale(tmp_path: Path) -> None:
    src = tmp_path / "notes"
    shutil.copytree(EXAMPLE, src)
    (src / "plan.json").unlink()  # the model plans it: the window is the whole call
    out = tmp_path / "out"
    with HeldFake() as fake:
        fake.replies = [plan_reply(shipped_answer())]
        env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": TEST_KEY}
        build = start_tujie("build", str(src), "--out", str(out), "--until", "render", env=env)
        try:
            assert fake.arrived.wait(300), "the build never asked the model"
            article = next(p for p in sorted(src.rglob("*.md")) if p.name != "reading-list.md")
            article.write_text(article.read_text(encoding="utf-8") + "\n\nAdded later.\n")
        finally:
            fake.release.set()
            _, stderr = build.communicate(timeout=600)
    assert build.returncode == 0, stderr
    result = tujie("publish", str(src), "--out", str(out), "--allow-unverified")
    assert result.returncode == 1, result.stderr
    assert "older than its inputs" in one_error_line(result.stderr)


# --- output folders that resolve into the source folder ---------------------------------------


def _inside(src: Path, tmp_path: Path) -> Path:
    return src / "out"


def _symlinked_root(src: Path, tmp_path: Path) -> Path:
    root = tmp_path / "out-link"
    root.symlink_to(src / "build", target_is_directory=True)
    return root


def _symlinked_page_folder(src: Path, tmp_path: Path) -> Path:
    root = tmp_path / "out"
    root.mkdir()
    (root / NAME).symlink_to(src, target_is_directory=True)  # output/<name> -> SRC
    return root


def _the_source_folder_itself(src: Path, tmp_path: Path) -> Path:
    return src.parent  # output/<name> is SRC: the folder is named after the page


@pytest.mark.parametrize(
    "output", [_inside, _symlinked_root, _symlinked_page_folder, _the_source_folder_itself]
)
def test_an_output_folder_resolving_into_the_source_is_refused(tmp_path: Path, output) -> None:
    src = tmp_path / NAME
    shutil.copytree(EXAMPLE, src)
    (src / "build").mkdir()
    before = {p: p.read_bytes() for p in sorted(src.rglob("*")) if p.is_file()}
    out = output(src, tmp_path)
    result = tujie("build", str(src), "--out", str(out), "--until", "plan")
    assert result.returncode == 2, result.stderr
    assert "source folder" in one_error_line(result.stderr)
    after = {p: p.read_bytes() for p in sorted(src.rglob("*")) if p.is_file()}
    assert after == before  # the hand-reviewed plan.json above all
