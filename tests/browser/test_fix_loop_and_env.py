"""The fix loop re-renders a nudged label to its alternate anchor; content problems point back to
the plan; Chromium missing is exit 3; a crashed Chromium is restarted once."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from pipeline.check.browser import Chrome, find_chrome, screenshots
from pipeline.check.run import check_and_fix
from pipeline.errors import EXIT_ENVIRONMENT, EnvironmentMissing
from tests.browser.conftest import card, page_html, panel


def nudged_label_page(overrides: dict[str, dict[str, Any]]) -> str:
    """lbl-d was nudged onto lbl-a; its data-alt anchor is free space."""
    moved = overrides.get("lbl-d", {}).get("anchor") == "alt"
    x, y = (220, 200) if moved else (50, 104)
    words = (
        '<text id="lbl-a" data-role="label" x="40" y="100">running A</text>'
        f'<text id="lbl-d" data-role="label" x="{x}" y="{y}" data-alt="220,200">new D</text>'
    )
    return page_html(card("batch", panel("batch", words)))


def shrinking_caption_page(overrides: dict[str, dict[str, Any]]) -> str:
    """A caption that crosses the inset at every scale down to its floor: a content problem."""
    scale = overrides.get("cap-wide", {}).get("scale", 1.0)
    words = (
        f'<text id="cap-wide" data-role="caption" data-limit="15" data-floor="0.8" x="20" y="40" '
        f'style="font-size:{40 * scale}px">十二个字的标题太宽了吧</text>'
    )
    return page_html(card("kv", panel("kv", words)))


@pytest.mark.browser
def test_fix_loop_moves_a_nudged_label_to_its_alternate_anchor(
    chrome: Chrome, tmp_path: Path
) -> None:
    calls: list[dict[str, dict[str, Any]]] = []

    def render(overrides: dict[str, dict[str, Any]]) -> str:
        calls.append(json.loads(json.dumps(overrides)))
        return nudged_label_page(overrides)

    html = tmp_path / "index.html"
    report = check_and_fix(render, html, tmp_path / "out", lang="zh", chrome=chrome)
    assert calls == [{}, {"lbl-d": {"anchor": "alt"}}]
    assert report.ok and report.rounds == 2
    assert report.fixed == ["lbl-d: moved to its alternate anchor"]
    saved = json.loads((tmp_path / "out" / "check.json").read_text(encoding="utf-8"))
    assert saved["ok"] is True and saved["overrides"] == {"lbl-d": {"anchor": "alt"}}
    assert 'data-alt="220,200">new D' in html.read_text(encoding="utf-8")


@pytest.mark.browser
def test_fix_loop_shrinks_to_the_floor_then_points_to_the_plan(
    chrome: Chrome, tmp_path: Path
) -> None:
    scales: list[float] = []

    def render(overrides: dict[str, dict[str, Any]]) -> str:
        scales.append(overrides.get("cap-wide", {}).get("scale", 1.0))
        return shrinking_caption_page(overrides)

    report = check_and_fix(render, tmp_path / "index.html", tmp_path / "out", lang="zh",
                           max_rounds=5, chrome=chrome)  # fmt: skip
    assert scales == [1.0, 0.9, 0.81, 0.8]  # bounded by the floor, not by max_rounds
    assert not report.ok
    assert {p.rule for p in report.problems} == {"text-crosses-border"}
    assert report.fixed == []
    assert len(report.plan_messages) == 1
    assert "cap-wide" in report.plan_messages[0] and "plan.json" in report.plan_messages[0]


@pytest.mark.browser
def test_screenshots_are_full_page_at_both_widths(chrome: Chrome, tmp_path: Path) -> None:
    html = tmp_path / "index.html"
    html.write_text(page_html('<div style="height: 3000px">长</div>'), encoding="utf-8")
    shots = screenshots(html, tmp_path / "shots", chrome=chrome)
    assert [p.name for p in shots] == [
        "light-1280.png",
        "dark-1280.png",
        "light-390.png",
        "dark-390.png",
    ]
    with Image.open(shots[0]) as light, Image.open(shots[1]) as dark:
        assert light.size[0] == 1280 and light.size[1] > 3000
        assert light.getpixel((5, 5)) != dark.getpixel((5, 5))  # the theme was forced


@pytest.mark.browser
def test_a_crashed_chromium_is_restarted_with_a_fresh_profile(tmp_path: Path) -> None:
    html = tmp_path / "index.html"
    html.write_text(page_html("<p>hi</p>"), encoding="utf-8")
    with Chrome() as browser:
        first = browser.measure(html, "light", 1280, axe=False)
        process = browser._chromium.process  # type: ignore[union-attr]  # noqa: SLF001 - the test plays the crash
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        second = browser.measure(html, "dark", 390, axe=False)
    assert first.probe["viewport"]["width"] == 1280
    assert second.probe["viewport"]["width"] == 390


def test_no_chromium_is_exit_3_with_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHROME_PATH", "/nonexistent")
    monkeypatch.setenv("PATH", "/nonexistent-bin")
    with pytest.raises(EnvironmentMissing) as caught:
        find_chrome(candidates=[])
    assert caught.value.exit_code == EXIT_ENVIRONMENT == 3
    assert "apt-get install chromium" in caught.value.one_line()
    assert "/nonexistent" in caught.value.one_line()


def test_chrome_path_wins_when_it_exists(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "my-chrome"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CHROME_PATH", str(fake))
    assert find_chrome(candidates=[]) == fake
