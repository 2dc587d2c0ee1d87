"""The link checker against real local servers on 127.0.0.1: one test per kind of link."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from linksites import Site, corpus_of, html, page, redirect, send, slow, status

from pipeline.artifacts.sources import Corpus
from pipeline.links.check import (
    DEFAULT_USER_AGENT,
    LinkReport,
    LinkSettings,
    LinkTarget,
    check_links,
    load_report,
    write_report,
)

MakeSite = Callable[[], Site]
TITLE = "Continuous Batching for LLM Inference"
# Small waits so retries and timeouts cost milliseconds in tests.
FAST = LinkSettings(backoff_base=0.01, per_host_spacing=0.0, read_timeout=2.0)


def check_one(
    url: str, title: str = TITLE, settings: LinkSettings = FAST, **kw: object
) -> LinkReport:
    corpus = corpus_of((title, url))
    target = LinkTarget(url=url, claimed_title=title, where="route[0]")
    return check_links([target], corpus, allow_private=True, settings=settings, **kw)  # type: ignore[arg-type]


def test_right_title_is_ok_and_sends_a_clean_request(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/post"] = html(TITLE, "模型 serving 很有趣 and fun")
    r = check_one(site.url("/post")).results[0]
    assert r.status == "ok", r.evidence
    assert r.http_status == 200 and r.title_found == TITLE
    assert r.words is not None and r.words >= 5 + 5  # h1 words + 5 CJK chars + latin words
    asked = site.seen[0]
    assert asked.method == "GET"
    assert asked.headers["User-Agent"] == DEFAULT_USER_AGENT
    assert "Cookie" not in asked.headers and "Authorization" not in asked.headers


def test_redirect_chain_across_hosts_to_the_right_page(make_site: MakeSite) -> None:
    a, b = make_site(), make_site()
    a.routes["/old"] = redirect("/older", 302)
    a.routes["/older"] = redirect(b.url("/new"), 301)
    b.routes["/new"] = html(TITLE)
    r = check_one(a.url("/old")).results[0]
    assert r.status == "redirected-ok", r.evidence
    assert r.final_url == b.url("/new")
    assert [(h.status, h.location) for h in r.redirect_chain] == [
        (302, a.url("/older")),
        (301, b.url("/new")),
    ]


def test_redirect_loop_is_broken(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/x"] = redirect("/y")
    site.routes["/y"] = redirect("/x")
    r = check_one(site.url("/x")).results[0]
    assert r.status == "broken"
    assert "loop" in r.evidence
    assert site.paths() == ["/x", "/y"]


def test_404_and_410_are_broken(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/gone"] = status(410)
    for path, code in [("/missing", 404), ("/gone", 410)]:
        r = check_one(site.url(path)).results[0]
        assert (r.status, r.http_status) == ("broken", code), r.evidence


def test_429_with_retry_after_then_200(make_site: MakeSite) -> None:
    site = make_site()
    calls: list[int] = []

    def busy_then_ok(h: BaseHTTPRequestHandler) -> None:
        calls.append(1)
        if len(calls) == 1:
            send(h, 429, page("Too Many Requests"), headers={"Retry-After": "1"})
        else:
            send(h, 200, page(TITLE))

    site.routes["/busy"] = busy_then_ok
    r = check_one(site.url("/busy")).results[0]
    assert r.status == "ok", r.evidence
    assert r.attempts == 2 and site.paths().count("/busy") == 2
    assert "429: waited 1 s" in r.evidence  # the server's Retry-After, not our own backoff


def test_retry_after_is_capped(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/busy"] = status(429, headers={"Retry-After": "3600"})
    settings = LinkSettings(retries=1, max_retry_after=0.1, per_host_spacing=0.0)
    r = check_one(site.url("/busy"), settings=settings).results[0]
    assert r.status == "broken" and r.http_status == 429
    assert "waited 0.1 s" in r.evidence and site.paths().count("/busy") == 2


def test_slow_server_past_the_timeout_is_broken(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/slow"] = slow(1.5, html(TITLE))
    settings = LinkSettings(read_timeout=0.2, retries=0, per_host_spacing=0.0)
    r = check_one(site.url("/slow"), settings=settings).results[0]
    assert r.status == "broken"
    assert "time limits" in r.evidence


def _head_refused(h: BaseHTTPRequestHandler) -> None:
    if h.command == "HEAD":
        send(h, 405, b"")
    else:
        send(h, 200, page(TITLE))


def test_head_405_but_get_200(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/nohead"] = _head_refused
    plain = check_one(site.url("/nohead")).results[0]
    assert plain.status == "ok"
    head_first = FAST.model_copy(update={"head_first": True})
    r = check_one(site.url("/nohead"), settings=head_first).results[0]
    assert r.status == "ok", r.evidence
    assert [s.method for s in site.seen if s.path == "/nohead"] == ["GET", "HEAD", "GET"]
    assert "HEAD answered 405" in r.evidence


def test_head_first_skips_the_body_of_a_non_page(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/data.bin"] = lambda h: send(h, 200, b"\0" * 100, ctype="application/octet-stream")
    settings = FAST.model_copy(update={"head_first": True})
    r = check_one(site.url("/data.bin"), settings=settings).results[0]
    assert [s.method for s in site.seen] == ["HEAD"]
    assert r.status == "mismatch"  # no title to read: it cannot be confirmed as the claimed page
    assert "no title" in r.evidence


def test_soft_404_by_phrase_en_and_zh(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/a"] = html("Page not found")
    site.routes["/b"] = html("页面不存在 - 某某博客")
    for path in ("/a", "/b"):
        r = check_one(site.url(path)).results[0]
        assert r.status == "soft-404", (path, r.evidence)


def test_soft_404_by_redirect_to_site_root(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/2019/old-post"] = redirect("/", 302)
    site.routes["/"] = html(TITLE)  # even a matching title: the front page is not the article
    r = check_one(site.url("/2019/old-post")).results[0]
    assert r.status == "soft-404"
    assert "front page" in r.evidence


def test_soft_404_by_made_up_sibling(make_site: MakeSite) -> None:
    site = make_site()
    site.fallback = html(TITLE, "Whatever you ask for, you get this page.")
    r = check_one(site.url("/blog/real-post")).results[0]
    assert r.status == "soft-404", r.evidence
    probes = [p for p in site.paths() if "tujie-no-such-page-" in p]
    assert len(probes) == 1 and probes[0].startswith("/blog/")


def test_sibling_probe_is_once_per_folder(make_site: MakeSite) -> None:
    site = make_site()
    for i in range(3):
        site.routes[f"/docs/p{i}"] = html(f"Chapter {i} of {TITLE}")
    corpus = corpus_of(*[(f"Chapter {i} of {TITLE}", site.url(f"/docs/p{i}")) for i in range(3)])
    targets = [
        LinkTarget(url=site.url(f"/docs/p{i}"), claimed_title=f"Chapter {i} of {TITLE}", where="x")
        for i in range(3)
    ]
    report = check_links(targets, corpus, allow_private=True, settings=FAST)
    assert [r.status for r in report.results] == ["ok"] * 3
    assert sum("tujie-no-such-page-" in p for p in site.paths()) == 1


def test_wrong_title_is_a_mismatch(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/post"] = html("Cooking Pasta at Home")
    r = check_one(site.url("/post")).results[0]
    assert r.status == "mismatch"
    assert "Cooking Pasta at Home" in r.evidence and r.title_found == "Cooking Pasta at Home"


def test_fragment_present_and_missing(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/doc"] = html(TITLE, extra='<h2 id="paged-attention">x</h2><a name="old"></a>')
    ok = check_one(site.url("/doc#paged-attention")).results[0]
    named = check_one(site.url("/doc#old")).results[0]
    missing = check_one(site.url("/doc#no-such-part")).results[0]
    assert (ok.status, ok.fragment_ok) == ("ok", True)
    assert (named.status, named.fragment_ok) == ("ok", True)
    assert (missing.status, missing.fragment_ok) == ("broken", False)
    assert "#no-such-part" in missing.evidence


def test_50_mb_body_is_capped(make_site: MakeSite) -> None:
    site = make_site()
    total = 50 * 1024 * 1024
    written: list[int] = [0]
    finished = threading.Event()

    def huge(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/html")
        h.send_header("Content-Length", str(total))
        h.end_headers()
        chunk = (b"<p>" + b"word " * 13000 + b"</p>")[:65536]
        try:
            h.wfile.write(page(TITLE))
            while written[0] < total:
                h.wfile.write(chunk)
                written[0] += len(chunk)
        finally:
            finished.set()

    site.routes["/huge"] = huge
    settings = FAST.model_copy(update={"max_body_bytes": 1_000_000})
    r = check_one(site.url("/huge"), settings=settings).results[0]
    assert r.status == "ok", r.evidence
    assert r.body_truncated
    assert finished.wait(5)
    assert written[0] < total // 5  # the server was cut off long before 50 MB


def _pdf(title: str | None, text: str) -> bytes:
    """A minimal valid one-page PDF with one line of Helvetica text and an optional /Title."""
    stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        (f"<< /Title ({title}) >>" if title else "<< >>").encode(),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 6 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objs) + 1,
        xref,
    )
    return bytes(out)


def test_pdf_title_from_metadata_or_first_text(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/paper.pdf"] = lambda h: send(
        h,
        200,
        _pdf("Efficient Memory Management for LLM Serving", "Abstract words"),
        "application/pdf",
    )
    site.routes["/notitle.pdf"] = lambda h: send(h, 200, _pdf(None, TITLE), "application/pdf")
    site.routes["/other.pdf"] = lambda h: send(
        h, 200, _pdf(None, "Tax form 2021"), "application/pdf"
    )
    paper = check_one(site.url("/paper.pdf"), "Efficient Memory Management for LLM Serving")
    first = check_one(site.url("/notitle.pdf"))
    other = check_one(site.url("/other.pdf"))
    assert paper.results[0].status == "ok", paper.results[0].evidence
    assert paper.results[0].title_found == "Efficient Memory Management for LLM Serving"
    assert first.results[0].status == "ok" and first.results[0].words == 5
    assert other.results[0].status == "mismatch"


def test_url_not_in_sources_makes_no_request(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/post"] = html(TITLE)
    corpus = corpus_of(("Something else", site.url("/elsewhere")))
    target = LinkTarget(url=site.url("/post"), claimed_title=TITLE, where="route[1]")
    r = check_links([target], corpus, allow_private=True, settings=FAST).results[0]
    assert r.status == "not-from-sources"
    assert site.seen == []


def test_private_address_refused_without_allow_private(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/post"] = html(TITLE)
    for url in (site.url("/post"), f"http://localhost:{site.port}/post"):
        target = LinkTarget(url=url, claimed_title=TITLE, where="route[0]")
        r = check_links([target], corpus_of((TITLE, url)), settings=FAST).results[0]
        assert r.status == "refused", r.evidence
    assert site.seen == []


def test_only_http_and_no_credentials(make_site: MakeSite) -> None:
    site = make_site()
    urls = ["ftp://127.0.0.1/file", f"http://user:secret@127.0.0.1:{site.port}/post"]
    for url in urls:
        r = check_one(url).results[0]
        assert r.status == "refused", (url, r.evidence)
    assert site.seen == []


def test_invalid_host_name_is_broken_not_a_traceback() -> None:
    r = check_one("https://" + "a" * 70 + ".example/post").results[0]
    assert r.status == "broken" and "host name is invalid" in r.evidence


def test_cookies_are_never_sent_back(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/login"] = lambda h: send(
        h, 302, b"", headers={"Location": "/post", "Set-Cookie": "session=abc; Path=/"}
    )
    site.routes["/post"] = html(TITLE)
    r = check_one(site.url("/login")).results[0]
    assert r.status == "redirected-ok"
    assert all("Cookie" not in s.headers for s in site.seen)


def test_offline_host_is_unverified_fast(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/post"] = html(TITLE)
    urls = ["https://example.invalid/", "https://blog.example.invalid/post#part", site.url("/post")]
    corpus = corpus_of(*[(TITLE, u) for u in urls])
    targets = [
        LinkTarget(url=u, claimed_title=TITLE, where=f"route[{i}]") for i, u in enumerate(urls)
    ]
    report = check_links(targets, corpus, allow_private=True)  # default timeouts: DNS fails fast
    assert [r.status for r in report.results] == ["unverified-offline", "unverified-offline", "ok"]
    assert report.offline and report.unverified()
    assert [r.url for r in report.blocking()] == urls[:2]
    assert "DNS" in report.results[0].evidence or "unreachable" in report.results[0].evidence


def test_cache_reuses_fresh_results_and_refresh_rechecks(
    make_site: MakeSite, tmp_path: Path
) -> None:
    site = make_site()
    site.routes["/post"] = html(TITLE)
    cache = tmp_path / "links.json"
    first = check_one(site.url("/post"), cache_path=cache)
    write_report(first, cache)
    asked = len(site.seen)
    second = check_one(site.url("/post"), cache_path=cache)
    assert len(site.seen) == asked  # nothing new was asked
    assert second.results[0].from_cache and second.results[0].status == "ok"
    assert second.results[0].checked_at == first.results[0].checked_at
    check_one(site.url("/post"), cache_path=cache, refresh=True)
    assert len(site.seen) > asked
    stale = FAST.model_copy(update={"max_cache_age": 0.0})
    before = len(site.seen)
    assert not check_one(site.url("/post"), settings=stale, cache_path=cache).results[0].from_cache
    assert len(site.seen) > before
    # A cached verdict on a loopback host does not bypass the private-address refusal.
    target = LinkTarget(url=site.url("/post"), claimed_title=TITLE, where="route[0]")
    refused = check_links([target], corpus_of((TITLE, target.url)), cache_path=cache)
    assert refused.results[0].status == "refused"


def test_report_round_trip_and_atomic_write(make_site: MakeSite, tmp_path: Path) -> None:
    site = make_site()
    site.routes["/post"] = html(TITLE)
    report = check_one(site.url("/post"))
    path = tmp_path / "out" / "links.json"
    write_report(report, path)
    assert load_report(path) == report
    assert [p.name for p in path.parent.iterdir()] == ["links.json"]  # no temp file left
    assert report.for_url(site.url("/post") + "/") is not None


def test_empty_corpus_checks_nothing() -> None:
    report = check_links([], Corpus(folder="x"))
    assert report.results == [] and not report.offline and not report.unverified()


def test_same_links_give_the_same_report(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/a"] = html(TITLE)
    site.routes["/b"] = redirect("/a")
    site.routes["/c"] = html("Something else entirely")
    urls = [site.url(p) for p in ("/a", "/b", "/c", "/d")]
    corpus = corpus_of(*[(TITLE, u) for u in urls])
    targets = [
        LinkTarget(url=u, claimed_title=TITLE, where=f"route[{i}]") for i, u in enumerate(urls)
    ]

    def dump() -> list[dict[str, object]]:
        report = check_links(targets, corpus, allow_private=True, settings=FAST)
        return [r.model_dump(exclude={"checked_at"}) for r in report.results]

    first = dump()
    assert [r["status"] for r in first] == ["ok", "redirected-ok", "mismatch", "broken"]
    assert dump() == first
