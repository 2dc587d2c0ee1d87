"""Screenshots in bands (pipeline.check.bands): a band reused from the store is exactly the
pixels a fresh capture gives, an edit recaptures only the bands it shows in, and anything that
moves the page's height recaptures everything. On the English example page, in the real
Chromium."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bs4 import BeautifulSoup
from PIL import Image

from pipeline.check.bands import BandStore
from pipeline.check.browser import Chrome
from pipeline.check.timing import PhaseTimer
from pipeline.config import load_config
from pipeline.ingest.folder import ingest_folder
from pipeline.plan.model import load_plan
from pipeline.render.page import render_page
from pipeline.simulate.results import run_sim

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llm-inference-en"


@pytest.fixture(scope="module")
def page_html() -> str:
    plan = load_plan(EXAMPLE / "plan.json")
    return render_page(plan, ingest_folder(EXAMPLE), load_config(EXAMPLE), run_sim(plan), None)


def _edited(html: str) -> str:
    """The page with one letter of one drawn caption changed (nothing moves)."""
    soup = BeautifulSoup(html, "html.parser")
    text = next(t for t in soup.select("svg.panel text") if len(t.get_text()) >= 8)
    old = text.string
    assert old is not None
    new = old[:-1] + ("x" if old[-1] != "x" else "y")
    return html.replace(f">{old}<", f">{new}<", 1)


def _shoot(
    chrome: Chrome, html: Path, theme: str, width: int, store: BandStore, out: Path
) -> tuple[np.ndarray, dict[str, int]]:
    timer = PhaseTimer()
    chrome.measure(html, theme, width, screenshot=out, axe=False, store=store, timer=timer)
    with Image.open(out) as image:
        return np.asarray(image.convert("RGB")), timer.counts


@pytest.mark.parametrize(("theme", "width"), [("light", 1280), ("dark", 390)])
def test_reused_bands_are_the_pixels_of_a_fresh_capture(
    chrome: Chrome, tmp_path: Path, page_html: str, theme: str, width: int
) -> None:
    original, edited = tmp_path / "a.html", tmp_path / "b.html"
    original.write_text(page_html, encoding="utf-8")
    edited.write_text(_edited(page_html), encoding="utf-8")
    store = BandStore(tmp_path / "store")

    first, counts = _shoot(chrome, original, theme, width, store, tmp_path / "a.png")
    assert counts["bands captured"] == counts["bands"] >= 10  # a cold store captures all

    again, counts = _shoot(chrome, original, theme, width, store, tmp_path / "a2.png")
    assert counts["bands captured"] == 0, counts
    assert np.array_equal(again, first)

    warm, counts = _shoot(chrome, edited, theme, width, store, tmp_path / "b.png")
    assert 1 <= counts["bands captured"] <= 2, counts  # the edited caption's band(s) only
    fresh, _ = _shoot(
        chrome, edited, theme, width, BandStore(tmp_path / "fresh"), tmp_path / "b-fresh.png"
    )
    # Reused bands + the recaptured one = a fresh capture (the message says where not).
    assert warm.shape == fresh.shape, (warm.shape, fresh.shape)
    differ = np.nonzero((warm != fresh).any(axis=2))
    assert len(differ[0]) == 0, (
        f"{len(differ[0])} px differ, rows {differ[0].min()}-{differ[0].max()}, "
        f"max {int(np.abs(warm.astype(int) - fresh).max())}; {counts}"
    )
    changed_rows = np.nonzero((warm != first).any(axis=(1, 2)))[0]
    assert 0 < len(changed_rows) < 200  # and the edit is in the picture


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_taller_page_keeps_the_bands_above_the_change(
    chrome: Chrome, tmp_path: Path, page_html: str, theme: str
) -> None:
    """One more paragraph at the end: in the light theme every band above it is reused (the
    page, main and section boxes end below them, and their backgrounds are tiles placed from
    their top); the dark theme's background is fixed to the viewport - as tall as the page
    here - so there every band is captured again. Either way the picture is a fresh capture's."""
    original, taller = tmp_path / "a.html", tmp_path / "c.html"
    original.write_text(page_html, encoding="utf-8")
    taller.write_text(page_html.replace("</main>", "<p>one more line</p></main>", 1), "utf-8")
    store = BandStore(tmp_path / "store")
    _shoot(chrome, original, theme, 1280, store, tmp_path / "a.png")
    warm, counts = _shoot(chrome, taller, theme, 1280, store, tmp_path / "c.png")
    if theme == "dark":
        assert counts["bands captured"] == counts["bands"], counts
    else:
        assert 1 <= counts["bands captured"] <= 3, counts
    fresh, _ = _shoot(chrome, taller, theme, 1280, BandStore(tmp_path / "f"), tmp_path / "f.png")
    assert np.array_equal(warm, fresh)


def test_a_canvas_band_is_never_reused(chrome: Chrome, tmp_path: Path, page_html: str) -> None:
    canvas = '<canvas width="40" height="40"></canvas>'
    html = tmp_path / "d.html"
    html.write_text(page_html.replace("</main>", canvas + "</main>", 1), encoding="utf-8")
    store = BandStore(tmp_path / "store")
    _shoot(chrome, html, "light", 1280, store, tmp_path / "d.png")
    _pixels, counts = _shoot(chrome, html, "light", 1280, store, tmp_path / "d2.png")
    # the band(s) holding the canvas, every time: a 40 px canvas lies in one band, or in two
    # when a band's edge crosses it (where it falls depends on the CJK font's line heights)
    assert 1 <= counts["bands captured"] <= 2, counts
