"""The review against the published page, on hand-made builds (tests/publish/conftest.py): no
change between identical builds, a one-character edit flagged in every shot, a card pushed down
by a longer earlier card reported as moved, changed simulator numbers listed before → after, every
plan field diffed with its changed words marked, link and check changes, the page's CSP, and
publish shipping exactly what was reviewed."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from pipeline.artifacts.review import ReviewReport
from pipeline.artifacts.sim import SWEEP_FILE
from pipeline.cli import main
from pipeline.errors import EXIT_OK, PublishRefused
from pipeline.plan.model import load_plan
from pipeline.publish.local import publish
from pipeline.render.csp import csp_hash
from pipeline.review.diff import MOVED_DELTA, changed_mask, pixels
from pipeline.review.page import write_review
from pipeline.review.plan_diff import marked_words
from pipeline.review.report import SHOT_ORDER
from pipeline.simulate.results import run_sim
from tests.publish.conftest import EXAMPLE_PLAN, card_boxes, folder_with_build

Build = Callable[..., Path]
CHANGED = ("changed", "added", "removed")


def review(build_dir: Path, site: Path) -> ReviewReport:
    write_review(build_dir, site / "llm")
    return ReviewReport.load(build_dir / "review.json")


def statuses(report: ReviewReport, block: str) -> dict[str, str]:
    found = next(b for b in report.blocks if b.id == block)
    return {s.shot: s.status for s in found.shots}


def test_identical_builds_change_nothing(build: Build, site: Path) -> None:
    publish(build(label="v1"), site, name="llm")
    report = review(build(label="v1"), site)
    assert [b.id for b in report.blocks] == ["page:top", "kv_cache", "paged_attention"]
    assert {b.status for b in report.blocks} == {"same"}
    assert report.plan == [] and report.links == [] and report.new_problems == []
    assert report.summary.startswith("0 cards changed, 0 moved; 0 plan fields")


def test_the_same_pixels_in_other_png_bytes_change_nothing(build: Build, site: Path) -> None:
    publish(build(label="v1"), site, name="llm")
    again = build(label="v1", reviewed=False)
    for shot in (again / "shots").glob("*.png"):
        with Image.open(shot) as image:
            image.convert("RGB").save(shot, compress_level=1)  # new bytes, same pixels
    assert (again / "shots" / "light-1280.png").read_bytes() != (
        site / "llm" / "shots" / "light-1280.png"
    ).read_bytes()
    assert {b.status for b in review(again, site).blocks} == {"same"}


def test_a_one_character_edit_is_flagged_in_all_four_shots(build: Build, site: Path) -> None:
    publish(build(label="v1"), site, name="llm")
    edited = build(label="v1", texts={"kv_cache": "keys and valves kept"})
    report = review(edited, site)
    assert statuses(report, "kv_cache") == dict.fromkeys(SHOT_ORDER, "changed")
    assert statuses(report, "paged_attention") == dict.fromkeys(SHOT_ORDER, "same")
    card = report.with_status("changed")[0]
    for shot in card.shots:
        assert shot.changed_px > 0 and shot.before and shot.after and shot.overlay
        with Image.open(edited / shot.before) as before, Image.open(edited / shot.after) as after:
            assert before.size == after.size == tuple(shot.size or ())
        assert shot.zoom_before and (edited / shot.zoom_after).is_file()  # type: ignore[operator]
    assert report.summary.startswith("1 card changed (kv_cache), 0 moved")


def test_a_card_pushed_down_by_a_longer_earlier_card_is_moved_not_changed(
    build: Build, site: Path
) -> None:
    publish(build(label="v1"), site, name="llm")
    longer = build(label="v1", boxes=partial(card_boxes, first_height=360))
    report = review(longer, site)
    assert statuses(report, "kv_cache") == dict.fromkeys(SHOT_ORDER, "changed")
    assert statuses(report, "paged_attention") == dict.fromkeys(SHOT_ORDER, "moved")
    moved = next(b for b in report.blocks if b.id == "paged_attention")
    assert {s.dy for s in moved.shots} == {60} and moved.status == "moved"
    grown = next(b for b in report.blocks if b.id == "kv_cache")
    assert all(s.note == "60 px taller" for s in grown.shots)
    assert report.summary.startswith("1 card changed (kv_cache), 1 moved")
    page = (longer / "review.html").read_text(encoding="utf-8")
    assert page.count('class="change"') == 1  # the moved card is listed, not shown as a change


def test_a_moved_card_that_also_changed_is_changed(build: Build, site: Path) -> None:
    publish(build(label="v1"), site, name="llm")
    both = build(
        label="v1",
        boxes=partial(card_boxes, first_height=360),
        texts={"paged_attention": "blocks like pagez"},
    )
    report = review(both, site)
    assert statuses(report, "paged_attention") == dict.fromkeys(SHOT_ORDER, "changed")
    assert {s.dy for s in next(b for b in report.blocks if b.id == "paged_attention").shots} == {60}


@pytest.fixture(scope="module")
def example_sim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example's simulator results, as the sim stage writes them."""
    out = tmp_path_factory.mktemp("sim") / "sim"
    run_sim(load_plan(EXAMPLE_PLAN)).save(out)
    assert (out / SWEEP_FILE).is_file()
    return out


def with_sim(build_dir: Path, sim: Path, edit: Callable[[dict], None] | None = None) -> Path:
    shutil.copytree(sim, build_dir / "sim")
    if edit is not None:
        path = build_dir / "sim" / "chunked_prefill--without.json"
        trace = json.loads(path.read_text(encoding="utf-8"))
        edit(trace)
        path.write_text(json.dumps(trace), encoding="utf-8")
    write_review(build_dir, build_dir.parent / "never-published")
    return build_dir


def test_a_changed_number_is_listed_with_before_and_after(
    build: Build, site: Path, example_sim: Path
) -> None:
    first = with_sim(build(label="v1", reviewed=False), example_sim)
    recorded = ReviewReport.load(first / "review.json").numbers
    assert any(n.key == "chunked_prefill/without:D.ttft" and n.value == "6" for n in recorded)
    publish(first, site, name="llm")

    def slower(trace: dict) -> None:
        trace["requests"]["D"]["ttft"] = 6.6

    second = with_sim(build(label="v1", reviewed=False), example_sim, slower)
    report = review(second, site)
    assert report.numbers_compared
    changes = {c.key: c for c in report.number_changes}
    ttft = changes["chunked_prefill/without:D.ttft"]
    assert (ttft.label, ttft.before, ttft.after, ttft.unit) == ("D's TTFT", "6", "6.6", "ms")
    assert "分块预填充" in ttft.where  # the card that draws it
    walk = [c for c in report.number_changes if c.key.startswith("walkthrough:")]
    assert [(c.before, c.after) for c in walk] == [("6", "6.6")]  # the table shows it too
    assert len(report.number_changes) == 2 and "2 numbers" in report.summary
    page = (second / "review.html").read_text(encoding="utf-8")
    assert "D&#39;s TTFT" in page and "6 → 6.6 ms" in page


def test_a_page_published_without_numbers_says_so(build: Build, site: Path, example_sim: Path) -> None:
    publish(build(label="v1"), site, name="llm")
    (site / "llm" / "current" / "review.json").unlink()  # as published before reviews kept them
    report = review(with_sim(build(label="v1", reviewed=False), example_sim), site)
    assert not report.numbers_compared and report.numbers and report.number_changes == []
    assert "numbers not recorded" in report.summary


def test_every_plan_field_is_diffed_with_the_changed_words_marked(build: Build, site: Path) -> None:
    publish(build(label="v1"), site, name="llm")

    def edit(plan: dict) -> None:
        plan["concepts"][1]["body"] = plan["concepts"][1]["body"].replace("显存", "内存", 1)
        plan["concepts"][1]["solves"] += "，更快"
        plan["glossary"][0]["definition"] = "The smallest unit the model reads."
        plan["route"][0]["why"] = "换一个理由"
        plan["ruler"]["metrics"][0]["name"] = "吞吐量"
        plan["main_thread"]["stages"][1]["label"] = "挑请求"
        plan["walkthrough"]["intro"] = "新的引言"
        plan["cast"][3]["role"] = "新来的请求"
        plan["concepts"][0]["fix"]["focus"] = ["D"]

    edited = build(label="v1", plan_edit=edit)
    report = review(edited, site)
    fields = {c.field: c for c in report.plan}
    assert set(fields) == {
        "concepts[kv_cache].body",
        "concepts[kv_cache].solves",
        "glossary[token].definition",
        f"route[{json.loads(EXAMPLE_PLAN.read_text())['route'][0]['url']}].why",
        "ruler.metrics[throughput].name",
        "main_thread.stages[1].label",
        "walkthrough.intro",
        "cast[D].role",
        "concepts[prefill_decode].fix.focus",
    }
    body = fields["concepts[kv_cache].body"]
    old, new = marked_words(body.before or "", body.after or "")
    assert [p.text for p in old if p.mark == "gone"] == ["显"]
    assert [p.text for p in new if p.mark == "new"] == ["内"]
    assert fields["concepts[prefill_decode].fix.focus"].before == "A, D"
    assert fields["concepts[prefill_decode].fix.focus"].after == "D"
    html = (edited / "review.html").read_text(encoding="utf-8")
    assert "<del>显</del>" in html and "<ins>内</ins>" in html


def test_words_are_marked_whole_and_reorders_are_one_change() -> None:
    old, new = marked_words("batching raises throughput", "batching lowers throughput")
    assert [(p.text, p.mark) for p in old] == [
        ("batching ", "same"),
        ("raises", "gone"),
        (" throughput", "same"),
    ]
    assert [p.text for p in new if p.mark == "new"] == ["lowers"]


def test_link_status_changes_and_new_check_problems(build: Build, site: Path) -> None:
    publish(build(label="v1"), site, name="llm")
    links = [
        {"url": "https://example.org/a", "status": "broken", "where": "route[0]"},
        {"url": "https://example.org/b", "status": "ok", "where": "route[1]"},
    ]
    report = review(build(label="v1", links=links, check_ok=False), site)
    assert [(c.url, c.before, c.after) for c in report.links] == [
        ("https://example.org/a", "ok", "broken"),
        ("https://example.org/b", None, "ok"),
    ]
    assert [(p.rule, p.where) for p in report.new_problems] == [("text-overlap", "light 1280")]
    assert "check failed (1 problem, 1 new)" in report.summary
    assert "publish:" not in report.summary


def test_the_review_page_allows_only_its_own_style_and_script(build: Build, site: Path) -> None:
    publish(build(label="v1"), site, name="llm")
    edited = build(label="v1", texts={"kv_cache": "keys and valves kept"})
    write_review(edited, site / "llm")
    html = (edited / "review.html").read_text(encoding="utf-8")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert policy is not None
    style = re.search(r"<style>(.*?)</style>", html, re.DOTALL)
    script = re.search(r"<script>(.*?)</script>", html, re.DOTALL)
    assert style and script
    csp = policy.group(1).replace("&#39;", "'")
    assert f"style-src {csp_hash(style.group(1))};" in csp
    assert f"script-src {csp_hash(script.group(1))};" in csp
    assert "default-src 'none'" in csp and "img-src 'self'" in csp and "unsafe" not in csp
    assert not re.search(r"\sstyle=|\son[a-z]+=", html)  # no inline styles or handlers
    assert html.count("<script") == 1 and html.count("<style") == 1
    # changes first: the changed card comes before the plan, numbers, links and check
    assert html.index('id="change-1"') < html.index('id="plan"') < html.index('id="full"')
    # full pages load on demand only
    assert 'data-src="shots/light-1280.png"' in html and ' src="shots/light-1280.png"' not in html


def test_publish_prints_the_review_and_refuses_a_build_changed_since(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src, out = folder_with_build(tmp_path)
    built = out / "page"
    summary = ReviewReport.load(built / "review.json").summary
    assert main(["publish", str(src), "--out", str(out)]) == EXIT_OK
    assert f"Reviewed: {summary}" in capsys.readouterr().out

    (built / "index.html").write_text("<!doctype html><title>edited after review</title>")
    with pytest.raises(PublishRefused, match="changed since its review"):
        publish(built, tmp_path / "site", name="page")
    (built / "review.json").unlink()
    with pytest.raises(PublishRefused, match="has no review"):
        publish(built, tmp_path / "site", name="page")
    write_review(built, out / "site" / "page")
    again = ReviewReport.load(built / "review.json").summary
    assert again.startswith("0 cards changed") and "1 plan field" not in again
    assert publish(built, tmp_path / "site", name="page").review == again


def test_a_screenshot_decodes_only_the_rows_asked_for(tmp_path: Path) -> None:
    path = tmp_path / "noise.png"
    Image.effect_noise((300, 500), 80).convert("RGB").save(path)
    top, full = pixels(path, 120), pixels(path)
    assert top.shape == (120, 300, 4) and full.shape == (500, 300, 4)
    assert (top == full[:120]).all()


def test_a_stroke_redrawn_half_a_pixel_over_is_noise_a_new_dot_is_not() -> None:
    old = np.full((40, 40, 4), 255, np.uint8)
    old[:, 10:13, :3] = 0  # a stroke three pixels wide
    new = np.full((40, 40, 4), 255, np.uint8)
    new[:, 10:13, :3] = 0
    new[:, 9, :3] = new[:, 12, :3] = 128  # drawn half a pixel to the left: both edges soften
    assert changed_mask(old, new, MOVED_DELTA).sum() == 80  # every edge pixel differs...
    assert changed_mask(old, new, MOVED_DELTA, shifted=True).sum() == 0  # ...within its neighbours
    new[20:22, 30:32, :3] = 0  # a new dot on blank paper
    assert changed_mask(old, new, MOVED_DELTA, shifted=True).sum() == 4
