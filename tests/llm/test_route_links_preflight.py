"""A folder whose reading list and articles give fewer links than the learning route needs is
refused before any model call (played as a model on a saved Bitcoin chapter: the list's third
entry was a bare domain, so no answer could meet the route rule and the run would have ended in
exit 4 after paying). The real CLI and SDK against the fake Messages API."""

from __future__ import annotations

from pathlib import Path

from fake_anthropic import FakeAnthropic
from test_accepted_builds import tujie

from pipeline.errors import EXIT_INPUT

ARTICLE = "# Fees\n\nA miner picks the transactions that pay the most per byte of block space.\n"


def _folder(tmp: Path, links: list[str]) -> Path:
    src = tmp / "fees"
    src.mkdir()
    (src / "fees.md").write_text(ARTICLE, encoding="utf-8")
    (src / "reading-list.md").write_text(
        "".join(f"- [Link {i}]({url})\n" for i, url in enumerate(links, 1)), encoding="utf-8"
    )
    return src


def test_two_links_stop_the_plan_before_any_call(fake: FakeAnthropic, tmp_path: Path) -> None:
    src = _folder(tmp_path, ["https://example.org/a", "https://example.org/b"])
    result = tujie(fake, "plan", str(src), "--out", str(tmp_path / "out"))
    assert result.returncode == EXIT_INPUT
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("error: reading-list.md: the learning route needs 3 links")
    assert "only 2 (https://example.org/a, https://example.org/b)" in line
    assert "no model call was made" in line
    assert fake.requests == []  # not even a token count
    assert not (tmp_path / "out" / "fees" / "plan.json").exists()


def test_three_links_reach_the_model(fake: FakeAnthropic, tmp_path: Path) -> None:
    src = _folder(tmp_path, [f"https://example.org/{c}" for c in "abc"])
    result = tujie(fake, "plan", str(src), "--out", str(tmp_path / "out"))
    # the fake has no scripted answer: the call is made and refused by the API, not by tujie
    assert "learning route" not in result.stderr
    assert fake.messages(), result.stderr
