"""Hand-made build directories for the review and publish tests: a tiny index.html, a passing
check.json with card boxes, the example's reviewed plan.json, synthetic screenshots (each card a
coloured box with a line of text) and, as after `make page`, the build's review."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from pipeline.review.page import write_review

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_PLAN = REPO / "examples" / "llm-inference" / "plan.json"
SHOTS = {
    "light-1280": (1280, 900),
    "dark-1280": (1280, 900),
    "light-390": (390, 1400),
    "dark-390": (390, 1400),
}
CHECKED_AT = "2025-01-01T00:00:00Z"
FONT = ImageFont.load_default(size=20)
# A build's links.json (publish refuses without one): every link verified unless a test says so.
VERIFIED_LINKS = [{"url": "https://example.org/a", "status": "ok", "where": "route[0]"}]
CARD_COLOURS = {"kv_cache": (40, 90, 200), "paged_attention": (40, 160, 80)}
CARD_TEXTS = {"kv_cache": "keys and values kept", "paged_attention": "blocks like pages"}
Boxes = Callable[[int], dict[str, list[float]]]
DEFAULT_BOTTOM = 750  # the second card's bottom in card_boxes


def card_boxes(width: int, *, first_height: float = 300) -> dict[str, list[float]]:
    """Two cards one under the other (50 px apart); a taller first card pushes the second down."""
    w = min(500, width - 40)
    return {
        "kv_cache": [20, 100, w, first_height],
        "paged_attention": [20, 150 + first_height, w, 300],
    }


def make_build(
    root: Path,
    *,
    label: str = "v1",
    colours: dict[str, tuple[int, int, int]] | None = None,
    check_ok: bool = True,
    links: list[dict[str, str]] | None = None,
    plan_edit: Callable[[dict], None] | None = None,
    texts: dict[str, str] | None = None,
    boxes: Boxes = card_boxes,
    reviewed: bool = True,
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "index.html").write_text(
        f'<!doctype html><html lang="zh"><head><meta charset="utf-8"><title>{label}</title></head>'
        f"<body><h1>page {label}</h1></body></html>",
        encoding="utf-8",
    )
    plan = json.loads(EXAMPLE_PLAN.read_text(encoding="utf-8"))
    if plan_edit:
        plan_edit(plan)
    (root / "plan.json").write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    shots = root / "shots"
    shots.mkdir(exist_ok=True)
    cards = {}
    for name, (w, h) in SHOTS.items():
        placed = boxes(w)
        # the page grows with its cards, as a real one does
        grown = max(y + bh for _x, y, _w, bh in placed.values()) - DEFAULT_BOTTOM
        image = Image.new("RGB", (w, h + int(grown)), "white")
        draw = ImageDraw.Draw(image)
        for card, (x, y, bw, bh) in placed.items():
            colour = (colours or CARD_COLOURS).get(card, CARD_COLOURS[card])
            draw.rectangle([x + 10, y + 10, x + bw - 10, y + bh - 10], fill=colour)
            words = (texts or CARD_TEXTS).get(card, CARD_TEXTS[card])
            draw.text((x + 24, y + 24), words, fill="white", font=FONT)
        image.save(shots / f"{name}.png")
        cards[name] = placed
    check = {
        "ok": check_ok,
        "problems": []
        if check_ok
        else [
            {
                "rule": "text-overlap",
                "element": "x",
                "message": "overlap",
                "theme": "light",
                "width": 1280,
            }
        ],
        "cards": cards,
        "fixed": [],
    }
    (root / "check.json").write_text(json.dumps(check), encoding="utf-8")
    results = [
        {"claimed_title": "a page", "evidence": "checked", "checked_at": CHECKED_AT, **link}
        for link in (links if links is not None else VERIFIED_LINKS)
    ]
    (root / "links.json").write_text(
        json.dumps({"checked_at": CHECKED_AT, "offline": False, "results": results}),
        encoding="utf-8",
    )
    if reviewed:  # against no published page: publish needs a review of exactly this build
        write_review(root, root.parent / "never-published")
    return root


@pytest.fixture
def build(tmp_path: Path) -> Callable[..., Path]:
    counter = iter(range(1000))

    def factory(**kwargs: object) -> Path:
        return make_build(tmp_path / f"build{next(counter)}", **kwargs)  # type: ignore[arg-type]

    return factory


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return tmp_path / "site"


def copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst)


def folder_with_build(tmp_path: Path, toml: str = "", **build: object) -> tuple[Path, Path]:
    """A source folder (with `page.toml` = `toml`) and its output root holding a checked build."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "page.toml").write_text(f'[publish]\nname = "page"\n{toml}', encoding="utf-8")
    out = tmp_path / "out"
    make_build(out / "page", **build)  # type: ignore[arg-type]
    return src, out


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    )
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with `main` checked out, one commit and an uncommitted file."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Tester")
    git(repo, "config", "user.email", "t@example.org")
    (repo / "README.md").write_text("hello\n", encoding="utf-8")
    git(repo, "add", "README.md")
    git(repo, "commit", "-qm", "init")
    (repo / "scratch.txt").write_text("uncommitted\n", encoding="utf-8")
    return repo
