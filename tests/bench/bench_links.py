"""Benchmark of the link checker: 200 URLs over 10 local hosts (ports), each answer 200 ms late.

Run: `.venv/bin/python tests/bench/bench_links.py`. Prints the wall time and the most requests
any host saw in flight at once (must never exceed the per-host limit). Not collected by pytest.
The servers run in a child process so they do not share the checker's interpreter lock.
"""

from __future__ import annotations

import multiprocessing as mp
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

HOSTS = 10
URLS = 200
DELAY_SECONDS = 0.2
TARGET_SECONDS = 3.0
HERE = Path(__file__).resolve()
sys.path[:0] = [str(HERE.parents[2]), str(HERE.parents[1] / "links")]  # repo root, helpers


def _title(i: int) -> str:
    return f"Serving notes, part {i}"


def _serve(conn: Connection) -> None:
    """Child process: start the sites, send their ports, wait for 'stop', send the counts."""
    from linksites import html, page, send, slow, start_site

    sites, stops = [], []
    for _ in range(HOSTS):
        site, stop = start_site()
        site.fallback = slow(DELAY_SECONDS, lambda h: send(h, 404, page("Not Found")))
        sites.append(site)
        stops.append(stop)
    for i in range(URLS):
        sites[i % HOSTS].routes[f"/notes/{i}"] = slow(DELAY_SECONDS, html(_title(i)))
    conn.send([s.port for s in sites])
    conn.recv()
    conn.send([(s.max_in_flight, len(s.seen)) for s in sites])
    for stop in stops:
        stop()


def main() -> int:
    from linksites import corpus_of

    from pipeline.links.check import DEFAULT_LINK_SETTINGS, LinkTarget, check_links

    mine, theirs = mp.Pipe()
    child = mp.Process(target=_serve, args=(theirs,), daemon=True)
    child.start()
    ports: list[int] = mine.recv()
    entries = [(_title(i), f"http://127.0.0.1:{ports[i % HOSTS]}/notes/{i}") for i in range(URLS)]
    targets = [
        LinkTarget(url=u, claimed_title=t, where=f"bench[{k}]") for k, (t, u) in enumerate(entries)
    ]
    started = time.perf_counter()
    report = check_links(targets, corpus_of(*entries), allow_private=True)
    wall = time.perf_counter() - started
    mine.send("stop")
    counts: list[tuple[int, int]] = mine.recv()
    child.join()
    limit = DEFAULT_LINK_SETTINGS.per_host_concurrency
    peak = max(m for m, _ in counts)
    requests = sum(n for _, n in counts)
    ok = sum(r.status == "ok" for r in report.results)
    print(f"links bench: {URLS} URLs, {HOSTS} hosts, {DELAY_SECONDS * 1000:.0f} ms per answer")
    print(
        f"  wall time            {wall:.2f} s   (target < {TARGET_SECONDS:g} s;"
        f" sequential ~{URLS * DELAY_SECONDS:.0f} s)"
    )
    print(f"  requests sent        {requests}   (incl. one soft-404 sibling probe per folder)")
    print(
        f"  max in flight / host {peak}   (limit {limit};"
        f" global {DEFAULT_LINK_SETTINGS.global_concurrency})"
    )
    print(f"  results ok           {ok}/{URLS}")
    good = wall < TARGET_SECONDS and peak <= limit and ok == URLS
    print("  verdict              " + ("within target" if good else "OUTSIDE TARGET"))
    return 0 if good else 1


if __name__ == "__main__":
    raise SystemExit(main())
