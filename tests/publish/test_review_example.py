"""The review calibrated on real builds of the example (real Chromium screenshots): a rebuild of
the same folder changes no card; a one-character body edit is flagged in all four shots and
nowhere else; a card pushed down by a longer earlier card is moved, not changed. Then the review
page after the edit, opened in Chromium from disk: its first screen shows the changed card before
and after, nothing breaks its CSP, `j` / `k` move between changes, the full pages load only when
opened, and the page with its images stays under 3 MB."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipeline.artifacts.review import ReviewReport
from pipeline.build.runner import run_build
from pipeline.build.state import prepare
from pipeline.check.browser import Chrome
from pipeline.publish.local import publish
from pipeline.review.page import write_review
from pipeline.review.report import SHOT_ORDER

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm-inference"
NAME = "llm-inference"
MAX_REVIEW_BYTES = 3_000_000
EDITED_CARD = "continuous_batching"  # concepts[3]
LONGER_CARD = "kv_cache"  # concepts[1]


@dataclass(frozen=True)
class Builds:
    site: Path
    same: Path
    edited: Path
    longer: Path

    def report(self, build_dir: Path) -> ReviewReport:
        return ReviewReport.load(build_dir / "review.json")


def build_copy(root: Path, label: str, edit: Callable[[dict], None] | None = None) -> Path:
    """The example built through the check from a copy (same folder name: the footer names it),
    its plan edited by `edit`."""
    src = root / label / NAME
    shutil.copytree(EXAMPLE, src)
    if edit is not None:
        plan = json.loads((src / "plan.json").read_text(encoding="utf-8"))
        edit(plan)
        (src / "plan.json").write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    build = prepare(src, root / label / "out")
    summary = run_build(build, until="check")
    assert summary["check_ok"], summary
    return build.dir


def one_character(plan: dict) -> None:
    body = plan["concepts"][3]["body"]
    assert plan["concepts"][3]["id"] == EDITED_CARD and "，" in body
    plan["concepts"][3]["body"] = body.replace("，", "；", 1)


def longer(plan: dict) -> None:
    assert plan["concepts"][1]["id"] == LONGER_CARD
    plan["concepts"][1]["body"] = plan["concepts"][1]["body"].replace(
        "，", "，前面每个字的键和值都要留着，不然每写一个新字都得把整段提示词从头再算一遍，又慢又浪费算力，", 1
    )


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> Builds:
    root = tmp_path_factory.mktemp("review-example")
    site = root / "site"
    base = build_copy(root, "base")
    write_review(base, site / NAME)
    publish(base, site, name=NAME, allow_unverified=True)  # offline: links unverified
    out = Builds(site, build_copy(root, "same"), build_copy(root, "edited", one_character),
                 build_copy(root, "longer", longer))  # fmt: skip
    for build_dir in (out.same, out.edited, out.longer):
        write_review(build_dir, site / NAME)
    return out


def verdicts(report: ReviewReport, status: str) -> dict[str, set[str]]:
    """For each block with a shot in `status`: those shots."""
    found: dict[str, set[str]] = {}
    for block in report.blocks:
        shots = {s.shot for s in block.shots if s.status == status}
        if shots:
            found[block.id] = shots
    return found


def test_a_rebuild_of_the_same_folder_changes_no_card(builds: Builds) -> None:
    report = builds.report(builds.same)
    assert report.blocks and {b.status for b in report.blocks} == {"same"}
    assert len([b for b in report.blocks if b.kind == "card"]) == 11
    assert report.plan == [] and report.number_changes == [] and report.numbers_compared


def test_a_one_character_body_edit_is_flagged_in_all_four_shots(builds: Builds) -> None:
    report = builds.report(builds.edited)
    assert verdicts(report, "changed") == {EDITED_CARD: set(SHOT_ORDER)}
    assert verdicts(report, "moved") == {}
    assert [c.field for c in report.plan] == [f"concepts[{EDITED_CARD}].body"]
    assert report.summary.startswith(f"1 card changed ({EDITED_CARD}), 0 moved")


def test_a_card_pushed_down_by_a_longer_earlier_card_is_moved_not_changed(builds: Builds) -> None:
    report = builds.report(builds.longer)
    assert verdicts(report, "changed") == {LONGER_CARD: set(SHOT_ORDER)}
    moved = verdicts(report, "moved")
    cards = [b.id for b in report.blocks if b.kind == "card"]
    after = cards[cards.index(LONGER_CARD) + 1 :]
    assert after and all(moved.get(card) == set(SHOT_ORDER) for card in after)
    assert all(s.dy > 0 for b in report.blocks if b.id in after for s in b.shots)
    assert f"1 card changed ({LONGER_CARD}), {len(after)} moved" in report.summary


FIRST_SCREEN = """(() => {
  const block = document.querySelector('[data-change]');
  const figures = Array.from(block.querySelectorAll('.trio img')).slice(0, 2);
  return {
    heading: block.querySelector('h2').textContent,
    images: figures.map(i => ({src: i.getAttribute('src'), loaded: i.complete && i.naturalWidth > 0,
                               top: i.getBoundingClientRect().top, height: innerHeight})),
    summary: document.getElementById('summary').getBoundingClientRect().bottom,
  };
})()"""
LOADED = "performance.getEntriesByType('resource').map(e => e.name.split('/').slice(-2).join('/'))"
OPEN_FULL = """new Promise(done => {
  const full = document.querySelector('[data-full]');
  full.open = true;
  const img = full.querySelector('.outlined img');
  const outline = full.querySelector('.outline');
  const check = () => img.naturalWidth && outline.style.top ? done([img.naturalWidth,
    full.querySelectorAll('.outline').length, outline.style.top]) : setTimeout(check, 50);
  setTimeout(check, 50);
})"""


def test_the_review_page_opens_on_the_change(builds: Builds, tmp_path: Path) -> None:
    page = builds.edited / "review.html"
    with Chrome() as chrome:
        visit = chrome.visit(
            page,
            [
                ("shot", str(tmp_path / "first-screen.png")),
                ("eval", FIRST_SCREEN),
                ("eval", LOADED),
                ("key", "j"),
                ("eval", "[scrollY, document.activeElement.id]"),
                ("key", "k"),
                ("eval", "[scrollY, document.activeElement.id]"),
                ("eval", OPEN_FULL),
            ],
            width=1280,
            height=800,
        )
    assert visit.console_errors == [] and visit.requests == []  # CSP and offline: nothing blocked
    first, loaded, after_j, after_k, full = visit.values
    assert EDITED_CARD in first["heading"]
    assert [("before" in i["src"], "after" in i["src"]) for i in first["images"]] == [
        (True, False),
        (False, True),
    ]
    assert all(i["loaded"] and i["top"] < i["height"] - 100 for i in first["images"])
    assert not any(name.startswith(("shots/", "review/baseline-")) for name in loaded)
    assert after_j[1] == "change-1" and after_j[0] > 0 and after_k[1] == "change-1"
    assert full[0] == 1280 and full[1] >= 1 and full[2].endswith("%")
    assert (tmp_path / "first-screen.png").stat().st_size > 0


def test_the_review_and_its_images_stay_small(builds: Builds) -> None:
    review = builds.edited / "review"
    own = [p for p in review.iterdir() if not p.name.startswith("baseline-")]
    size = (builds.edited / "review.html").stat().st_size + sum(p.stat().st_size for p in own)
    assert size < MAX_REVIEW_BYTES
    # the full-page "before" views are the published screenshots, linked, not copied
    baseline = review / "baseline-light-1280.png"
    published = builds.site / NAME / "shots" / "light-1280.png"
    assert baseline.stat().st_ino == published.resolve().stat().st_ino
