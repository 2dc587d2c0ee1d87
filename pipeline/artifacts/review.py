"""The review's report (`review.json`): what changed since the last publish, block by block (cards
and page parts) and shot by shot, in the plan, in the simulator's numbers the page shows, in the
links and in the check; the one summary line publish prints; and the fingerprint of the build it
reviewed, so publish refuses a build that changed since. `pipeline.review` writes it; publish and
the next review read it (the numbers this build shows are the next review's "before").
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pipeline.artifacts.json_file import load_model
from pipeline.atomic import write_atomic

REVIEW_FORMAT = 1
REVIEW_FILE = "review.json"
# What a review looks at and publish ships: the page, its plan, check and link reports, and the
# screenshots (without the check's annotated working copies).
PAGE_FILES = ("index.html", "plan.json", "check.json", "links.json")
PAGE_DIRS = ("shots",)
WORKING_PICTURES = "annotated-*"

BlockStatus = Literal["same", "moved", "changed", "added", "removed"]
BlockKind = Literal["card", "section", "page"]
# A block's verdict over its shots is the most telling one.
STATUS_RANK: dict[str, int] = {"same": 0, "moved": 1, "removed": 2, "added": 3, "changed": 4}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ShotChange(_Model):
    """One block in one screenshot (`light-1280`, ...) compared with the published one."""

    shot: str
    status: BlockStatus
    dy: int = Field(default=0, description="how far the block moved down (px; negative: up)")
    changed_px: int = 0
    # The block's rows in this build's screenshot (the published one's when removed).
    top: int = 0
    height: int = 0
    # Crops, relative to the build folder: the published block, this build's, and the changed
    # pixels as a transparent overlay of the same size.
    before: str | None = None
    after: str | None = None
    overlay: str | None = None
    size: tuple[int, int] | None = None  # the crops' width and height
    # The first changed region at full size (the crops are shown smaller).
    zoom_before: str | None = None
    zoom_after: str | None = None
    zoom_size: tuple[int, int] | None = None
    note: str = ""


class BlockChange(_Model):
    """A card or a page part (the page top, a section) with its verdict in every shot."""

    id: str  # the card id, `section:ruler`, `page:top`
    kind: BlockKind
    label: str
    status: BlockStatus
    shots: list[ShotChange] = Field(default_factory=list)

    def shot(self, name: str) -> ShotChange | None:
        return next((s for s in self.shots if s.shot == name), None)


class FieldChange(_Model):
    """One plan field (`concepts[kv_cache].body`) before and after (None: absent)."""

    field: str
    before: str | None
    after: str | None


class ShownNumber(_Model):
    """A number the page shows from the simulator: `D's TTFT` = `8.8` `ms`, and where."""

    key: str
    where: str
    label: str
    value: str
    unit: str = ""


class NumberChange(_Model):
    key: str
    where: str
    label: str
    before: str | None
    after: str | None
    unit: str = ""


class LinkChange(_Model):
    """A link whose status changed since the last publish (None: not on that page)."""

    url: str
    where: str
    before: str | None
    after: str | None


class NewProblem(_Model):
    """A check problem the published page did not have."""

    rule: str
    element: str
    message: str
    where: str = ""


class ReviewReport(_Model):
    format: int = REVIEW_FORMAT
    first_publication: bool
    build: str = Field(description="fingerprint of the reviewed build (page_fingerprint)")
    baseline: str | None = Field(description="fingerprint of the published page compared with")
    summary: str
    check_ok: bool
    blocking_links: int = 0
    blocks: list[BlockChange] = Field(default_factory=list)  # in page order
    plan: list[FieldChange] = Field(default_factory=list)
    numbers: list[ShownNumber] = Field(default_factory=list)  # what this build shows
    number_changes: list[NumberChange] = Field(default_factory=list)
    numbers_compared: bool = False  # False: the published page kept no record of its numbers
    links: list[LinkChange] = Field(default_factory=list)
    new_problems: list[NewProblem] = Field(default_factory=list)

    def with_status(self, *statuses: str, kind: str | None = None) -> list[BlockChange]:
        return [b for b in self.blocks if b.status in statuses and (kind is None or b.kind == kind)]

    def save(self, path: Path) -> None:
        text = json.dumps(self.model_dump(mode="json"), ensure_ascii=False, indent=1)
        write_atomic(path, text + "\n")

    @classmethod
    def load(cls, path: Path) -> ReviewReport:
        """Read `review.json`; missing or malformed is an InputError naming it."""
        return load_model(
            cls,
            path,
            what="review report",
            missing="run `tujie review SRC` first",
            invalid="run `tujie review SRC` again",
        )


def page_files(folder: Path) -> list[Path]:
    """The files of a build (or a published version) that make the page, in a stable order."""
    files = [folder / name for name in PAGE_FILES if (folder / name).is_file()]
    for name in PAGE_DIRS:
        if (folder / name).is_dir():
            files += sorted(
                p
                for p in (folder / name).iterdir()
                if p.is_file() and not p.match(WORKING_PICTURES)
            )
    return files


def page_fingerprint(folder: Path) -> str:
    """One hash of the page's files (names and bytes): what was reviewed is what ships."""
    digest = hashlib.sha256()
    for path in page_files(folder):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
