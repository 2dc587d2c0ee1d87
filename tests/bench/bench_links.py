"""Benchmark of the link checker: 200 URLs over 10 local hosts (ports), each answer 200 ms late.

Run: `.venv/bin/python tests/bench/bench_links.py`. Prints the wall time and the most requests
any host saw in flight at once (must never exceed the per-host limit). Not collected by pytest.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

HOSTS = 10
URLS = 200
DELAY_SECONDS = 0.2
TARGET_SECONDS = 3.0


def main() -> int:
    here = Path(__file__).resolve()
    sys.path[:0] = [str(here.parents[2]), str(here.parents[1] / "links")]  # repo root, helpers
    from linksites import corpus_of, html, page, send, slow, start_site

    from pipeline.links import DEFAULT_LINK_SETTINGS, LinkTarget, check_links

    sites, stops = [], []
    for _ in range(HOSTS):
        site, stop = start_site()
        site.fallback = slow(DELAY_SECONDS, lambda h: send(h, 404, page("Not Found")))
        sites.append(site)
        stops.append(stop)
    entries = []
    for i in range(URLS):
        site = sites[i % HOSTS]
        title = f"Serving notes, part {i}"
        site.routes[f"/notes/{i}"] = slow(DELAY_SECONDS, html(title))
        entries.append((title, site.url(f"/notes/{i}")))
    targets = [
        LinkTarget(url=u, claimed_title=t, where=f"bench[{k}]") for k, (t, u) in enumerate(entries)
    ]
    try:
        started = time.perf_counter()
        report = check_links(targets, corpus_of(*entries), allow_private=True)
        wall = time.perf_counter() - started
    finally:
        for stop in stops:
            stop()
    limit = DEFAULT_LINK_SETTINGS.per_host_concurrency
    peak = max(s.max_in_flight for s in sites)
    requests = sum(len(s.seen) for s in sites)
    ok = sum(r.status == "ok" for r in report.results)
    print(f"links bench: {URLS} URLs, {HOSTS} hosts, {DELAY_SECONDS * 1000:.0f} ms per answer")
    print(
        f"  wall time            {wall:.2f} s   (target < {TARGET_SECONDS:g} s; sequential ~{URLS * DELAY_SECONDS:.0f} s)"
    )
    print(f"  requests sent        {requests}   (incl. one soft-404 sibling probe per folder)")
    print(
        f"  max in flight / host {peak}   (limit {limit}; global {DEFAULT_LINK_SETTINGS.global_concurrency})"
    )
    print(f"  results ok           {ok}/{URLS}")
    good = wall < TARGET_SECONDS and peak <= limit and ok == URLS
    print("  verdict              " + ("within target" if good else "OUTSIDE TARGET"))
    return 0 if good else 1


if __name__ == "__main__":
    raise SystemExit(main())
