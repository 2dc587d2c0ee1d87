"""The link report (`links.json`): one verdict per link the page shows, with its evidence, and
storing it. The checker that fills it is `pipeline.links`; the page, the review and publish read
it only through these types. A verified link is `LinkResult.verified`, defined here once."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from pipeline.artifacts.json_file import load_model
from pipeline.artifacts.sources import normalize_url
from pipeline.atomic import write_atomic
from pipeline.urls import mask_credentials

LINKS_FORMAT = 1
# What a server answered (a redirect's Location, the evidence quoting it) may carry credentials:
# the report keeps them masked (`https://***@host/`).
Masked = Annotated[str, AfterValidator(mask_credentials)]

LinkStatus = Literal[
    "ok", "redirected-ok", "mismatch", "soft-404", "broken",
    "unverified-offline", "not-from-sources", "refused",
]  # fmt: skip


VERIFIED_STATUSES: frozenset[str] = frozenset({"ok", "redirected-ok"})
UNVERIFIED_STATUSES: frozenset[str] = frozenset({"unverified-offline"})


def link_key(url: str) -> str:
    """Dedup key: the normalised URL plus its fragment (different anchors are different links)."""
    frag = urlsplit(url.strip()).fragment
    return normalize_url(url) + (f"#{frag}" if frag else "")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LinkTarget(_Model):
    """One URL the page will show, the title it is shown under, and where on the page."""

    url: str
    claimed_title: str
    where: str


class RedirectHop(_Model):
    url: Masked
    status: int
    location: Masked


class LinkResult(_Model):
    """The verdict on one link, with the evidence in one human sentence."""

    url: str
    where: str
    claimed_title: str
    status: LinkStatus
    http_status: int | None = None
    final_url: Masked | None = None
    redirect_chain: list[RedirectHop] = Field(default_factory=list)
    title_found: str | None = None
    evidence: Masked
    checked_at: datetime
    words: int | None = Field(
        default=None, description="visible words of the page, CJK chars count 1"
    )
    body_truncated: bool = False
    fragment_ok: bool | None = None
    attempts: int = 0
    from_cache: bool = False

    @property
    def verified(self) -> bool:
        """The one definition of a verified link: publish, the review and the page use it."""
        return self.status in VERIFIED_STATUSES


class LinkReport(_Model):
    """`links.json`: one result per target, in target order, and the options that made them."""

    format: int = LINKS_FORMAT
    checked_at: datetime
    offline: bool
    options: str = Field(
        default="", description="`verdict_options` of the run; the cache is reused only on a match"
    )
    results: list[LinkResult] = Field(default_factory=list)

    def blocking(self) -> list[LinkResult]:
        """Every result that is not ok / redirected-ok: publish must not go ahead with these."""
        return [r for r in self.results if not r.verified]

    def unverified(self) -> bool:
        return any(r.status == "unverified-offline" for r in self.results)

    def for_url(self, url: str) -> LinkResult | None:
        return next((r for r in self.results if link_key(r.url) == link_key(url)), None)


def write_report(report: LinkReport, path: Path) -> None:
    """Write `links.json` atomically: a temp file in the same folder, then a rename."""
    write_atomic(
        path, json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"
    )


def load_report(path: Path) -> LinkReport:
    """Read `links.json`; a missing or malformed file is an InputError naming it."""
    return load_model(
        LinkReport,
        path,
        what="links report",
        missing="run `tujie links SRC` first",
        invalid="delete it and re-run `tujie links`",
    )
