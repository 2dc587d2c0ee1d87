"""Publishing (atomic, with history, refusals, bullets, git branch) and the review page."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.artifacts.review import ReviewReport
from pipeline.errors import EXIT_PROBLEMS, PublishRefused
from pipeline.publish.local import PAUSE_ENV, PAUSE_STEPS, make_server, publish
from pipeline.review.page import write_review
from pipeline.review.report import SHOT_ORDER
from tests.publish.conftest import REPO, git

Build = Callable[..., Path]


def fetch(site: Path, path: str) -> tuple[int, str]:
    server = make_server(site, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/{path}"
        with urllib.request.urlopen(url, timeout=10) as answer:  # noqa: S310 - loopback only
            return answer.status, answer.read().decode("utf-8")
    finally:
        server.shutdown()
        server.server_close()


def test_first_publication_review_then_publish(build: Build, site: Path) -> None:
    first = build(label="v1")
    review = write_review(first, site / "llm")
    report = ReviewReport.load(first / "review.json")
    assert report.first_publication and report.blocks == []
    assert report.summary.startswith("first publication (2 cards")
    assert "make publish" in report.summary  # the review says what to do next
    assert report.summary in review.read_text(encoding="utf-8")
    result = publish(first, site, name="llm")
    assert result.review == report.summary  # publish hands back what the review decided
    assert result.history_entry is None
    assert result.address == str((site / "llm" / "index.html").absolute())
    assert "page v1" in (site / "llm" / "index.html").read_text(encoding="utf-8")
    assert 5 <= len(result.bullets) <= 8
    assert any("11 张两格漫画卡片" in b for b in result.bullets)  # the page is Chinese
    assert "LLM 推理服务图解" in (site / "index.html").read_text(encoding="utf-8")
    assert not list((site / "llm" / "shots").glob("annotated-*"))
    assert ReviewReport.load(site / "llm" / "review.json") == report  # published with the page


def test_second_publication_review_shows_the_changed_card_and_keeps_history(
    build: Build, site: Path
) -> None:
    publish(build(label="v1"), site, name="llm")

    def edit(plan: dict) -> None:
        plan["concepts"][4]["trouble"]["caption"] = "换了一句新标题"
        plan["concepts"][2], plan["concepts"][3] = plan["concepts"][3], plan["concepts"][2]

    second = build(label="v2", colours={"paged_attention": (200, 40, 40)}, plan_edit=edit)
    review = write_review(second, site / "llm")
    report = ReviewReport.load(second / "review.json")
    assert report.first_publication is False
    assert [b.id for b in report.with_status("changed")] == ["paged_attention"]
    changed = report.with_status("changed")[0]
    assert [s.shot for s in changed.shots if s.status == "changed"] == list(SHOT_ORDER)
    assert all(s.changed_px > 0 and s.before and s.after for s in changed.shots)
    fields = {c.field: (c.before, c.after) for c in report.plan}
    assert fields["concepts[paged_attention].trouble.caption"][1] == "换了一句新标题"
    order = fields["concepts (order)"]
    assert order[0] and order[1] and "memory_bound, continuous_batching" in order[0]
    assert "continuous_batching, memory_bound" in order[1]
    page = review.read_text(encoding="utf-8")
    assert "换了一句新标题" in page and report.summary in page
    assert report.summary.startswith("1 card changed (paged_attention), 0 moved")
    assert (second / changed.shots[0].overlay).is_file()

    result = publish(second, site, name="llm")
    assert (
        result.history_entry is not None and result.history_entry.parent == site / "llm" / "history"
    )
    assert "page v1" in (result.history_entry / "index.html").read_text(encoding="utf-8")
    assert (result.history_entry / "shots" / "light-1280.png").is_file()
    assert "page v2" in (site / "llm" / "index.html").read_text(encoding="utf-8")
    assert [p.name for p in (site / "llm" / "versions").iterdir()] == [result.version]
    # the next review compares against v2, the new baseline
    third = build(label="v3", colours={"paged_attention": (200, 40, 40)})
    write_review(third, site / "llm")
    again = ReviewReport.load(third / "review.json")
    assert again.with_status("changed", "added", "removed", kind="card") == []


def test_refuses_a_failed_check(build: Build, site: Path) -> None:
    with pytest.raises(PublishRefused) as caught:
        publish(build(check_ok=False), site, name="llm")
    assert caught.value.exit_code == EXIT_PROBLEMS
    assert "check failed" in caught.value.one_line()
    assert not site.exists()


def test_refuses_a_missing_check(build: Build, site: Path) -> None:
    first = build()
    (first / "check.json").unlink()
    with pytest.raises(PublishRefused, match="check.json is missing"):
        publish(first, site, name="llm")


def test_refuses_unverified_links_unless_allowed(build: Build, site: Path) -> None:
    links = [
        {"url": "https://example.org/a", "status": "ok", "where": "route[0]"},
        {"url": "https://example.org/b", "status": "unverified-offline", "where": "route[1]"},
    ]
    first = build(links=links)
    with pytest.raises(PublishRefused) as caught:
        publish(first, site, name="llm")
    line = caught.value.one_line()
    assert "--allow-unverified" in line and "https://example.org/b" in line
    assert not (site / "llm").exists()
    result = publish(first, site, name="llm", allow_unverified=True)
    assert (site / "llm" / "links.json").is_file() and result.history_entry is None


def test_refuses_a_stale_build(build: Build, site: Path) -> None:
    first = build()
    (first / "build.json").write_text(json.dumps({"inputs_hash": "old"}), encoding="utf-8")
    with pytest.raises(PublishRefused, match="older than its inputs"):
        publish(first, site, name="llm", current_inputs_hash="new")
    assert publish(first, site, name="llm", current_inputs_hash="old").address


def test_base_url_address(build: Build, site: Path) -> None:
    result = publish(build(), site, name="llm", base_url="https://me.example/pages/")
    assert result.address == "https://me.example/pages/llm/"


@pytest.mark.parametrize("step", PAUSE_STEPS)
def test_a_publish_killed_mid_way_leaves_a_loadable_page(
    build: Build, site: Path, step: str
) -> None:
    publish(build(label="v1"), site, name="llm")
    second = build(label="v2")
    code = (
        "import sys; from pathlib import Path; from pipeline.publish.local import publish; "
        "publish(Path(sys.argv[1]), Path(sys.argv[2]), name='llm')"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(second), str(site)],
        cwd=REPO, env={**os.environ, PAUSE_ENV: step}, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert child.stderr is not None
        assert f"paused at {step}" in child.stderr.readline()
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert child.returncode == -signal.SIGKILL
    status, body = fetch(site, "llm/index.html")
    assert status == 200
    before_switch = PAUSE_STEPS.index(step) < PAUSE_STEPS.index("switched")
    assert ("page v1" in body) if before_switch else ("page v2" in body)
    # the next publish cleans up whatever the killed one left
    third = build(label="v3")
    result = publish(third, site, name="llm")
    assert "page v3" in fetch(site, "llm/index.html")[1]
    assert [p.name for p in (site / "llm" / "versions").iterdir()] == [result.version]
    assert not list((site / "llm").glob(".staging-*"))


def test_publish_to_a_git_branch_never_touches_the_working_tree(
    build: Build, tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    head, status = git(repo, "rev-parse", "HEAD"), git(repo, "status", "--porcelain")
    monkeypatch.chdir(repo)
    publish(build(label="v1"), tmp_path / "unused", name="llm", to="git:pages")
    result = publish(build(label="v2"), tmp_path / "unused", name="llm", to="git:pages")
    assert result.address == "git:pages:llm/index.html"
    assert git(repo, "rev-parse", "HEAD") == head and git(repo, "status", "--porcelain") == status
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD") == "main"
    assert "page v2" in git(repo, "show", "pages:llm/index.html")
    files = git(repo, "ls-tree", "-r", "--name-only", "pages").splitlines()
    assert "index.html" in files and "llm/shots/light-1280.png" in files
    assert any(f.startswith("llm/history/") and f.endswith("/index.html") for f in files)
    assert git(repo, "rev-list", "--count", "pages") == "2"
    assert not (tmp_path / "unused").exists()
