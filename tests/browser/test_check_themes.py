"""The check measures the four theme/width combinations at once and runs axe's non-colour rules
once per width only when the second theme's page has the first's DOM and layout: a finding that
holds in both themes is reported in both, and one that only the dark theme's layout shows is
still caught there. Also the per-phase timings the check records."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.check.browser import Chrome
from pipeline.check.run import check_page
from pipeline.check.timing import PhaseTimer, format_timings
from tests.browser.conftest import page_html

pytestmark = pytest.mark.browser

PIXEL = "data:image/gif;base64,R0lGODlhAQABAAAAACw="
EVERYWHERE = {("light", 1280), ("dark", 1280), ("light", 390), ("dark", 390)}


def axe_ids(report, rule_id: str) -> set[tuple[str | None, int | None]]:  # type: ignore[no-untyped-def]
    return {(p.theme, p.width) for p in report.problems if p.rule == "axe" and rule_id in p.message}


def test_a_finding_in_both_themes_is_reported_in_both(
    chrome: Chrome, write_page, tmp_path: Path
) -> None:
    html = page_html(f'<img id="bare" src="{PIXEL}" width="20" height="20">', csp=False)
    timer = PhaseTimer()
    report = check_page(write_page(html), tmp_path / "o", chrome=chrome, timer=timer)
    assert axe_ids(report, "image-alt") == EVERYWHERE
    # Same DOM and layout in both themes: the dark page ran only axe's colour rules.
    phases = {row["phase"]: row for row in timer.rows()}
    assert phases["axe"]["count"] == 2 and phases["axe-colour"]["count"] == 2


def test_an_element_only_the_dark_theme_shows_is_still_judged(
    chrome: Chrome, write_page, tmp_path: Path
) -> None:
    head = (
        "<style>#moon { display: none; } [data-theme='dark'] #moon { display: inline; }</style>"
    )
    body = f'<img id="moon" src="{PIXEL}" width="20" height="20">'
    timer = PhaseTimer()
    report = check_page(
        write_page(page_html(body, head=head, csp=False)), tmp_path / "o", chrome=chrome,
        timer=timer,
    )  # fmt: skip
    assert axe_ids(report, "image-alt") == {("dark", 1280), ("dark", 390)}
    phases = {row["phase"]: row for row in timer.rows()}
    assert phases["axe"]["count"] == 4 and "axe-colour" not in phases  # layouts differ


def test_an_attribute_the_theme_sets_makes_the_dark_page_run_every_rule(
    chrome: Chrome, write_page, tmp_path: Path
) -> None:
    script = (
        "<script>new MutationObserver(() => { const d = document.documentElement.dataset.theme;"
        " document.getElementById('t').setAttribute('aria-pressed', d === 'dark' ? 'maybe' :"
        " 'false'); }).observe(document.documentElement, {attributes: true});</script>"
    )
    body = f'<button id="t" type="button" aria-pressed="false">主题</button>{script}'
    report = check_page(write_page(page_html(body, csp=False)), tmp_path / "o", chrome=chrome)
    assert axe_ids(report, "aria-valid-attr-value") == {("dark", 1280), ("dark", 390)}


def test_the_timings_name_every_phase(chrome: Chrome, write_page, tmp_path: Path) -> None:
    timer = PhaseTimer()
    check_page(write_page(page_html("<p>hi</p>")), tmp_path / "o", chrome=chrome, timer=timer)
    rows = {row["phase"]: row for row in timer.rows()}
    for phase in ("load", "probe", "fonts", "screenshot", "axe", "rules", "annotate"):
        assert phase in rows, phase
    assert rows["screenshot"]["count"] == 4
    assert rows["load"]["count"] == rows["switch"]["count"] == 2  # dark switched to in place
    assert all(0 <= row["busy"] <= row["summed"] + 1e-6 for row in rows.values())
    text = "\n".join(format_timings(timer.as_json()))
    assert "screenshot" in text and "busy s" in text
