"""The links stage and its options (issue 10, case 2): a report made with `--allow-private` is
not reused by a run without it (the stage re-runs and loopback URLs are refused), and
`--refresh` re-checks every time it is given."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from linksites import Site, corpus_of, html

from pipeline.artifacts.sources import Corpus
from pipeline.build.stages import stage_ingest, stage_links
from pipeline.build.state import Build, prepare
from pipeline.links.check import LinkReport, LinkSettings, LinkTarget, check_links, write_report
from pipeline.plan.model import Plan, parse_plan

MakeSite = Callable[[], Site]
PLAN_FIXTURE = Path(__file__).resolve().parents[1] / "render" / "fixtures" / "plan_small.json"
PAGES = ["/one", "/two", "/three"]


def _setup(site: Site, tmp_path: Path) -> tuple[Build, Plan, Corpus]:
    """A folder whose reading list and route are three pages on a loopback site."""
    for i, page in enumerate(PAGES):
        site.routes[page] = html(f"Page {i}")
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.md").write_text("# Notes\n\nAn article without links.\n", encoding="utf-8")
    (src / "reading-list.md").write_text(
        "".join(f"- [Page {i}]({site.url(p)}) — note\n" for i, p in enumerate(PAGES)),
        encoding="utf-8",
    )
    data = json.loads(PLAN_FIXTURE.read_text(encoding="utf-8"))
    data["route"] = [
        {"title": f"Page {i}", "url": site.url(p), "why": "读它。"} for i, p in enumerate(PAGES)
    ]
    build = prepare(src, tmp_path / "out")
    return build, parse_plan(data), stage_ingest(build)


def _links(build: Build, plan: Plan, corpus: Corpus, **options: bool) -> tuple[bool, LinkReport]:
    report = stage_links(build, plan, corpus, **options)
    return build.records[-1].ran, report


def test_a_report_made_with_allow_private_is_not_reused_without_it(
    make_site: MakeSite, tmp_path: Path
) -> None:
    site = make_site()
    build, plan, corpus = _setup(site, tmp_path)
    ran, report = _links(build, plan, corpus, allow_private=True)
    assert ran and {r.status for r in report.results} == {"ok"}
    ran, report = _links(build, plan, corpus, allow_private=True)
    assert not ran  # same options, same inputs: skipped
    ran, report = _links(build, plan, corpus)
    assert ran, "the stage must re-run when --allow-private is dropped"
    assert {r.status for r in report.results} == {"refused"}
    assert not any(r.verified for r in report.results)
    assert LinkReport.model_validate_json((build.dir / "links.json").read_text()) == report


def test_refresh_rechecks_every_time(make_site: MakeSite, tmp_path: Path) -> None:
    site = make_site()
    build, plan, corpus = _setup(site, tmp_path)
    _links(build, plan, corpus, allow_private=True)
    asked = [len(site.seen)]
    for _ in range(2):
        ran, report = _links(build, plan, corpus, allow_private=True, refresh=True)
        assert ran and not any(r.from_cache for r in report.results)
        asked.append(len(site.seen))
    assert asked[0] > 0 and asked[1] > asked[0] and asked[2] > asked[1]
    ran, report = _links(build, plan, corpus, allow_private=True)
    assert not ran and len(site.seen) == asked[2]  # without --refresh: up to date, nothing asked


def test_the_cache_is_reused_only_under_the_same_options(
    make_site: MakeSite, tmp_path: Path
) -> None:
    site = make_site()
    site.routes["/post"] = html("Post")
    url = site.url("/post")
    corpus = corpus_of(("Post", url))
    targets = [LinkTarget(url=url, claimed_title="Post", where="route[0]")]
    cache = tmp_path / "links.json"
    fast = LinkSettings(per_host_spacing=0.0)
    write_report(check_links(targets, corpus, allow_private=True, settings=fast), cache)
    again = check_links(targets, corpus, allow_private=True, settings=fast, cache_path=cache)
    assert again.results[0].from_cache
    other = fast.model_copy(update={"soft404_probe": False})
    changed = check_links(targets, corpus, allow_private=True, settings=other, cache_path=cache)
    assert not changed.results[0].from_cache
    refused = check_links(targets, corpus, settings=fast, cache_path=cache)
    assert refused.results[0].status == "refused" and not refused.results[0].from_cache
