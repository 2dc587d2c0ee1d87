"""Shared inputs of the render tests: the small fixture plan, its corpus, traces and link report."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipeline.artifacts.sim import SimResults
from pipeline.artifacts.sources import Corpus, Paragraph, ReadingListEntry, Source
from pipeline.config import PageConfig
from pipeline.links.check import LinkReport, LinkResult
from pipeline.plan.model import Plan, parse_plan

FIXTURES = Path(__file__).parent / "fixtures"
CHECKED = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def load_fixture_plan(name: str = "plan_small.json") -> Plan:
    return parse_plan(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def fixture_sim() -> SimResults:
    return SimResults({
        f"chunk/{variant}": json.loads(
            (FIXTURES / f"trace-chunk-{variant}.json").read_text(encoding="utf-8")
        )
        for variant in ("with", "without")
    })


def fixture_corpus() -> Corpus:
    return Corpus(
        folder="fixture",
        sources=[
            Source(
                id="notes",
                path="notes.md",
                kind="md",
                title="本地笔记",
                url="https://example.org/notes",
                lang="zh",
                words=900,
                chars=900,
                sha256="0" * 64,
                paragraphs=[Paragraph(anchor="notes-p0", text="分块预填充把长提示词切小。")],
            )
        ],
        reading_list=[
            ReadingListEntry(title="Inside vLLM", url="https://example.org/vllm", words=4000),
            ReadingListEntry(title="Sarathi-Serve", url="https://example.org/sarathi"),
        ],
    )


def fixture_links() -> LinkReport:
    def result(url: str, status: str, words: int | None) -> LinkResult:
        return LinkResult(
            url=url, where="route", claimed_title="t", status=status,  # type: ignore[arg-type]
            evidence="fixture", checked_at=CHECKED, words=words,
        )

    return LinkReport(
        checked_at=CHECKED,
        offline=False,
        results=[
            result("https://example.org/vllm", "ok", 2000),
            result("https://example.org/sarathi", "unverified-offline", None),
        ],
    )


@pytest.fixture(scope="session")
def small_plan() -> Plan:
    return load_fixture_plan()


@pytest.fixture(scope="session")
def small_config() -> PageConfig:
    return PageConfig(progress={"queue": "review", "kv": "learned"}, stuck=["chunk"])
