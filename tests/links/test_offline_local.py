"""Offline detection is not fooled by local names (issue 10, case 11): loopback hosts that answer
say nothing about the internet, so public links that cannot be reached stay
`unverified-offline`, never `broken`. The machine is made "offline" by a transport that lets
only loopback connections through (real sockets to the local sites), and by `.invalid` names,
which no resolver answers."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable

import httpx
from linksites import Site, corpus_of, html

from pipeline.links.check import LinkReport, LinkSettings, LinkTarget, check_links

MakeSite = Callable[[], Site]
FAST = LinkSettings(per_host_spacing=0.0, backoff_base=0.01)


class OfflineTransport(httpx.AsyncBaseTransport):
    """The network of a machine without internet: loopback answers, nothing else connects."""

    def __init__(self) -> None:
        self.loopback = httpx.AsyncHTTPTransport()
        self.refused: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if _is_loopback(request.url.host):
            return await self.loopback.handle_async_request(request)
        self.refused.append(str(request.url))
        raise httpx.ConnectError("[Errno 101] Network is unreachable", request=request)

    async def aclose(self) -> None:
        await self.loopback.aclose()


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check(urls: list[str], transport: OfflineTransport) -> LinkReport:
    corpus = corpus_of(*[("Local page", u) for u in urls])
    targets = [
        LinkTarget(url=u, claimed_title="Local page", where=f"reading-list[{i}]")
        for i, u in enumerate(urls)
    ]
    return check_links(targets, corpus, allow_private=True, settings=FAST, transport=transport)


def test_loopback_answers_do_not_make_public_links_broken(make_site: MakeSite) -> None:
    site = make_site()
    site.routes["/page"] = html("Local page")
    urls = [
        f"http://localhost:{site.port}/page",
        site.url("/page"),
        "http://93.184.216.34/paper",  # a public address: cannot connect while offline
        "https://203.0.113.7.nip.invalid/post",  # a public-looking name no resolver knows
        "http://[2606:4700::1111]/doc",  # a public IPv6 address
    ]
    transport = OfflineTransport()
    report = _check(urls, transport)
    statuses = [r.status for r in report.results]
    assert statuses == [
        "ok",
        "ok",
        "unverified-offline",
        "unverified-offline",
        "unverified-offline",
    ]
    assert report.offline and report.unverified()
    assert all("Broken" not in r.evidence for r in report.results)
    assert "http://93.184.216.34/paper" in transport.refused  # it was tried, not guessed


def test_a_local_name_does_not_prove_the_resolver_works(make_site: MakeSite) -> None:
    """`localhost` resolves from /etc/hosts even offline: it must not unlock parallel DNS. After
    `offline_after_failures` public lookups fail, the remaining hosts are not looked up at all."""
    site = make_site()
    site.routes["/page"] = html("Local page")
    public = [f"https://host{i}.example.invalid/post" for i in range(4)]
    report = _check([f"http://localhost:{site.port}/page", *public], OfflineTransport())
    assert [r.status for r in report.results] == ["ok"] + ["unverified-offline"] * 4
    looked_up = [r for r in report.results[1:] if "DNS lookup" in r.evidence]
    skipped = [r for r in report.results[1:] if "network is unreachable" in r.evidence]
    assert len(looked_up) == FAST.offline_after_failures
    assert len(skipped) == len(public) - FAST.offline_after_failures


def test_a_public_answer_still_means_online(make_site: MakeSite) -> None:
    """The converse holds: once a public host answered, an unreachable public host is broken.
    A loopback site stands in for the public host through a transport that routes it there."""
    site = make_site()
    site.routes["/page"] = html("Local page")

    class OnlineTransport(OfflineTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if request.url.host == "93.184.216.34":  # public and answering: route to the site
                request.url = request.url.copy_with(host="127.0.0.1", port=site.port)
            return await super().handle_async_request(request)

    report = _check(["http://93.184.216.34/page", "http://1.1.1.1/gone"], OnlineTransport())
    assert [r.status for r in report.results] == ["ok", "broken"]
    assert not report.offline
