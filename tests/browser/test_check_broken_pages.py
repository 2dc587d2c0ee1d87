"""The browser check on deliberately broken pages (real Chromium): each fault is caught by the
right rule on the right element, and a clean page passes in both themes at both widths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from pipeline.check.browser import Chrome
from pipeline.check.run import check_page
from pipeline.envsetup import cjk_font_family
from tests.browser.conftest import card, page_html, panel

pytestmark = pytest.mark.browser

# A font that exists: the CJK family set-up guarantees, asked of fontconfig (WenQuanYi or Noto
# CJK, whichever this machine has), never a name assumed.
FONT = cjk_font_family() or "no CJK font: run `make setup`"


def rules_for(report, element: str) -> set[str]:  # type: ignore[no-untyped-def]
    return {p.rule for p in report.problems if p.element == element}


def clean_body(font: str = FONT) -> str:
    words = (
        f'<text id="cap-kv" data-role="caption" data-limit="15" x="20" y="40" '
        f'data-font="{font}" style="font-family:\'{font}\'">显存被缓存占满</text>'
        '<text id="lbl-a" data-role="label" x="20" y="120">A</text>'
        '<text id="lbl-d" data-role="label" x="200" y="120">D</text>'
    )
    return card("kv", "<h2>KV 缓存</h2>" + panel("kv", words) + '<p class="body">一句。两句。</p>')


def test_clean_page_passes_in_both_themes_and_widths(
    chrome: Chrome, write_page, tmp_path: Path
) -> None:
    report = check_page(write_page(page_html(clean_body())), tmp_path / "out", chrome=chrome)
    assert report.problems == []
    assert report.ok
    data = json.loads((tmp_path / "out" / "check.json").read_text(encoding="utf-8"))
    assert data["ok"] is True
    assert set(data["cards"]) == {"light-1280", "dark-1280", "light-390", "dark-390"}
    assert data["cards"]["light-1280"]["kv"][2] > 100  # the card's box, for the review's crops
    for name, width in [
        ("light-1280", 1280),
        ("dark-1280", 1280),
        ("light-390", 390),
        ("dark-390", 390),
    ]:
        with Image.open(tmp_path / "out" / "shots" / f"{name}.png") as shot:
            assert shot.width == width
    assert not list((tmp_path / "out" / "shots").glob("annotated-*"))


def test_overlapping_svg_texts(chrome: Chrome, write_page, tmp_path: Path) -> None:
    words = (
        '<text id="lbl-a" data-role="label" x="40" y="100">running A</text>'
        '<text id="lbl-b" data-role="label" x="60" y="104">running B</text>'
    )
    html = page_html(card("batch", panel("batch", words)))
    report = check_page(write_page(html), tmp_path / "out", chrome=chrome)
    overlaps = [p for p in report.problems if p.rule == "text-overlap"]
    assert {(p.element, p.other) for p in overlaps} == {("lbl-a", "lbl-b")}
    assert {(p.theme, p.width) for p in overlaps} == {
        ("light", 1280),
        ("dark", 1280),
        ("light", 390),
        ("dark", 390),
    }
    assert overlaps[0].card == "batch" and overlaps[0].panel == "batch/trouble"
    annotated = tmp_path / "out" / "shots" / "annotated-light-1280.png"
    with Image.open(annotated) as image:
        x, y, w, h = overlaps[0].boxes[0]
        edge = image.convert("RGB").getpixel((int(x - 3), int(y + h / 2)))
    assert edge == (255, 0, 255)  # outlined in magenta


def rotated(concept: str, inner: str, degrees: float) -> str:
    return card(concept, inner).replace(
        "<article ", f'<article style="transform: rotate({degrees}deg)" ', 1
    )


def test_a_rotated_card_does_not_make_two_lines_of_a_panel_overlap(
    chrome: Chrome, write_page, tmp_path: Path
) -> None:
    """Two long lines a few units apart in a card turned 2°: their page boxes (axis-aligned around
    the tilted text) overlap, the lines do not; a real overlap in the same card is still caught."""
    apart = (
        '<text id="axis" data-role="axis" x="20" y="150" font-size="14">'
        "0 . . . . . . . . . . . . . . . . . . 6 ms</text>"
        '<text id="line" data-role="label" x="20" y="179" font-size="14">'
        "one token per step, many each second</text>"
    )
    report = check_page(
        write_page(page_html(rotated("tilt", panel("tilt", apart), 2.0))), tmp_path / "a",
        chrome=chrome,
    )
    assert [p for p in report.problems if p.rule == "text-overlap"] == []
    assert not [p for p in report.problems if p.rule == "text-crosses-border"]
    touching = apart.replace('y="179"', 'y="156"')
    report = check_page(
        write_page(page_html(rotated("tilt", panel("tilt", touching), 2.0)), "b.html"),
        tmp_path / "b", chrome=chrome,
    )
    overlaps = {(p.element, p.other) for p in report.problems if p.rule == "text-overlap"}
    assert overlaps == {("axis", "line")}


def test_caption_crossing_its_panel_border(chrome: Chrome, write_page, tmp_path: Path) -> None:
    words = (
        '<text id="cap-edge" data-role="caption" data-limit="15" x="330" y="40">越界的标题</text>'
    )
    report = check_page(
        write_page(page_html(card("kv", panel("kv", words)))), tmp_path / "o", chrome=chrome
    )
    crossing = [p for p in report.problems if p.rule == "text-crosses-border"]
    assert crossing and {p.element for p in crossing} == {"cap-edge"}
    assert all(p.panel == "kv/trouble" and p.card == "kv" for p in crossing)
    assert rules_for(report, "cap-edge") == {"text-crosses-border"}


def test_five_sentence_body(chrome: Chrome, write_page, tmp_path: Path) -> None:
    body = card("kv", '<p class="body" id="body-kv">第一句。第二句。第三句。第四句。第五句。</p>')
    report = check_page(write_page(page_html(body)), tmp_path / "o", chrome=chrome)
    found = [p for p in report.problems if p.rule == "too-many-sentences"]
    assert [(p.element, p.card) for p in found] == [("body-kv", "kv")]  # reported once
    assert "5 sentences" in found[0].message


def test_remote_font_is_a_network_request(chrome: Chrome, write_page, tmp_path: Path) -> None:
    head = (
        "<style>@font-face { font-family: Remote; src: url(https://example.invalid/x.woff2); }"
        " h1 { font-family: Remote, sans-serif; }</style>"
    )
    report = check_page(
        write_page(page_html("", head=head, csp=False)), tmp_path / "o", chrome=chrome
    )
    found = [p for p in report.problems if p.rule == "network-request"]
    assert [p.element for p in found] == ["https://example.invalid/x.woff2"]
    assert not report.ok


def test_data_url_is_not_a_request(chrome: Chrome, write_page, tmp_path: Path) -> None:
    pixel = "data:image/gif;base64,R0lGODlhAQABAAAAACw="
    html = page_html(f'<img src="{pixel}" alt="dot">', csp=False)
    report = check_page(write_page(html), tmp_path / "o", chrome=chrome)
    assert not [p for p in report.problems if p.rule == "network-request"]


def test_page_wider_than_the_phone(chrome: Chrome, write_page, tmp_path: Path) -> None:
    body = '<div id="wide" style="width: 600px">宽</div>'
    report = check_page(write_page(page_html(body)), tmp_path / "o", chrome=chrome)
    scroll = {(p.theme, p.width) for p in report.problems if p.rule == "horizontal-scroll"}
    assert scroll == {("light", 390), ("dark", 390)}
    outside = {(p.element, p.width) for p in report.problems if p.rule == "outside-viewport"}
    assert outside == {("wide", 390)}


def test_wide_table_inside_a_scroller_is_fine(chrome: Chrome, write_page, tmp_path: Path) -> None:
    body = (
        '<a href="#x" style="position: absolute; left: -9999px">skip</a>'
        '<div style="overflow-x: auto"><div id="wide" style="width: 600px">宽</div></div>'
    )
    report = check_page(write_page(page_html(body)), tmp_path / "o", chrome=chrome)
    assert not [p for p in report.problems if p.rule in ("horizontal-scroll", "outside-viewport")]


def test_long_caption_font_fallback_and_missing_title(
    chrome: Chrome, write_page, tmp_path: Path
) -> None:
    words = (
        '<text id="cap-long" data-role="caption" data-limit="15" x="20" y="40">'
        "这是一句明显超过十五个字的很长很长的标题</text>"
        '<text id="lbl-hand" data-role="label" x="20" y="120" data-font="Patrick Hand" '
        "style=\"font-family:'Patrick Hand', sans-serif\">Hand</text>"
        # the drawings' form: the family stated once by the group the text sits in
        '<g font-family="Patrick Hand"><text id="lbl-group" x="200" y="120">Group</text></g>'
    )
    html = page_html(card("kv", panel("kv", words, title=False)))
    report = check_page(write_page(html), tmp_path / "o", chrome=chrome)
    assert "caption-too-long" in rules_for(report, "cap-long")
    assert "font-fallback" in rules_for(report, "lbl-hand")
    assert "font-fallback" in rules_for(report, "lbl-group")
    assert "diagram-missing-title" in rules_for(report, "panel-kv-trouble")


def test_console_error_and_dark_theme_contrast(chrome: Chrome, write_page, tmp_path: Path) -> None:
    head = '<style>[data-theme="dark"] #dim { color: #1a1a1a; }</style>'
    body = '<p id="dim">暗色主题下看不清</p><script>console.error("boom")</script>'
    report = check_page(
        write_page(page_html(body, head=head, csp=False)), tmp_path / "o", chrome=chrome
    )
    console = [p for p in report.problems if p.rule == "console-error"]
    assert console and "boom" in console[0].message
    axe = [p for p in report.problems if p.rule == "axe"]
    assert axe and {p.theme for p in axe} == {"dark"}
    dim = [p for p in axe if "color-contrast" in p.message and "#dim" in p.element]
    assert dim and dim[0].boxes and dim[0].boxes[0][2] > 0  # located, so it is outlined
