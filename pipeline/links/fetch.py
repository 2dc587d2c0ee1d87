"""The page fetcher of the link check: the one httpx client (no cookies, no proxies, no
credentials), private/loopback/link-local addresses refused, per-host politeness, retries with
capped backoff, redirects followed by hand, and response bodies capped. The only module that
imports `httpx`; what a fetched page says is `pipeline.links.match`'s job.

`open_fetcher(settings, allow_private)` gives a `Fetcher`; `Fetcher.follow(url)` fetches a URL
through its redirects into an `Outcome` (the final `Answer`: status, capped body, or why none).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from http.cookiejar import Cookie, CookieJar, DefaultCookiePolicy
from urllib.parse import urljoin, urlsplit, urlunsplit

import httpx

from pipeline.artifacts.links import RedirectHop, link_key
from pipeline.links.report import ACCEPT_HEADER, REDIRECT_STATUSES, LinkSettings

# What replaces the network under httpx (tests simulate an offline machine with one).
Transport = httpx.AsyncBaseTransport


@dataclass
class Answer:
    """One HTTP exchange (after retries): the status and the capped body, or why there is none."""

    status: int | None = None
    url: str = ""
    location: str | None = None
    retry_after: str | None = None
    content_type: str = ""
    charset: str | None = None
    body: bytes = b""
    truncated: bool = False
    attempts: int = 0
    waits: list[str] = field(default_factory=list)
    failure: str | None = None  # "unreachable" | "refused" | "broken"
    evidence: str = ""


@dataclass
class Outcome:
    """Where following a URL's redirects ended."""

    final: Answer
    chain: list[RedirectHop] = field(default_factory=list)
    attempts: int = 0


class _HostGate:
    """Per-host politeness: at most N requests in flight and a minimum gap between starts."""

    def __init__(self, limit: int, spacing: float):
        self._slots = asyncio.Semaphore(limit)
        self._order = asyncio.Lock()
        self._spacing = spacing
        self._next_start = 0.0

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        async with self._slots:
            async with self._order:
                loop = asyncio.get_running_loop()
                wait = self._next_start - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                self._next_start = loop.time() + self._spacing
            yield


class _RefuseCookies(DefaultCookiePolicy):
    """A cookie policy that keeps nothing and returns nothing: the checker is stateless."""

    def set_ok(self, cookie: Cookie, request: object) -> bool:
        return False

    def return_ok(self, cookie: Cookie, request: object) -> bool:
        return False


def _no_cookies() -> CookieJar:
    # A bare CookieJar: httpx would copy an httpx.Cookies into a default jar, losing the policy.
    return CookieJar(policy=_RefuseCookies())


def _retry_after(value: str | None, cap: float) -> float | None:
    """Seconds from a Retry-After header (delta or HTTP date), capped; None when absent or bad."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return min(float(value), cap)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, min((when - datetime.now(UTC)).total_seconds(), cap))


def _is_public(addr: str) -> bool:
    ip = ipaddress.ip_address(addr.split("%", 1)[0])
    return ip.is_global and not ip.is_multicast


def _local_name(host: str) -> bool:
    """A name that never reaches the internet's DNS (RFC 6761 `localhost`, mDNS `.local`)."""
    name = host.lower().rstrip(".")
    return name == "localhost" or name.endswith((".localhost", ".local"))


class Fetcher:
    """One run's fetching: the client, the per-host gates, and what we learnt of the network
    (whether DNS works, whether any public host answered: offline or not)."""

    def __init__(self, client: httpx.AsyncClient, settings: LinkSettings, allow_private: bool):
        self.client = client
        self.s = settings
        self.allow_private = allow_private
        self.gates: dict[str, _HostGate] = {}
        self.all_slots = asyncio.Semaphore(settings.global_concurrency)
        self.dns: dict[tuple[str, int], asyncio.Task[list[str] | str]] = {}
        self.first_contact = asyncio.Lock()
        self.dns_works = False
        self.public_reached = False  # some public host answered: the network is up
        self.unreachable_public = 0

    @property
    def offline(self) -> bool:
        return not self.public_reached and self.unreachable_public >= self.s.offline_after_failures

    async def _resolve(self, host: str, port: int) -> list[str]:
        loop = asyncio.get_running_loop()
        infos = await asyncio.wait_for(
            loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), self.s.dns_timeout
        )
        return sorted({str(info[4][0]) for info in infos})

    async def _lookup(self, host: str, port: int) -> list[str] | str:
        """The host's addresses, or why there are none. Until one lookup has worked they go one
        at a time, so a dead resolver costs `offline_after_failures` timeouts, not one per host.
        Local names (`localhost`) need no network: they skip that latch and never move it."""
        if _local_name(host):
            return await self._resolve_or_why(host, port)
        if not self.dns_works:
            async with self.first_contact:
                if not self.dns_works and not self.offline:
                    return await self._resolve_or_why(host, port)
        if self.offline:
            return f"{host} was skipped: the network is unreachable (earlier lookups failed)"
        return await self._resolve_or_why(host, port)

    async def _resolve_or_why(self, host: str, port: int) -> list[str] | str:
        try:
            addrs = await self._resolve(host, port)
        except (OSError, TimeoutError) as err:
            if not _local_name(host):
                self.unreachable_public += 1
            why = "timed out" if isinstance(err, TimeoutError) else "failed"
            return f"DNS lookup of {host} {why}: no network, or no such host"
        # Only a public answer shows the resolver works: `localhost` comes from /etc/hosts,
        # a LAN name from a local resolver, and neither says anything about the internet.
        if all(_is_public(a) for a in addrs):
            self.dns_works = True
        return addrs

    async def admit(self, url: str) -> tuple[Answer | None, bool]:
        """Refuse what must not be fetched; else (None, whether the host is public)."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            return Answer(
                url=url,
                failure="refused",
                evidence=f"only http/https links are checked, not {parts.scheme or 'a bare path'}",
            ), False
        if parts.username or parts.password:
            return Answer(
                url=url,
                failure="refused",
                evidence="the URL carries credentials, which are never sent",
            ), False
        host = parts.hostname
        if not host:
            return Answer(url=url, failure="broken", evidence="the URL has no host"), False
        try:
            host.encode("idna")  # what the resolver will do; a 64-character label fails here
        except UnicodeError:
            return Answer(url=url, failure="broken", evidence="the host name is invalid"), False
        try:
            addrs: list[str] | str = [str(ipaddress.ip_address(host))]
        except ValueError:
            key = (host, parts.port or (443 if parts.scheme == "https" else 80))
            if key not in self.dns:
                self.dns[key] = asyncio.ensure_future(self._lookup(*key))
            addrs = await self.dns[key]
        if isinstance(addrs, str):
            return Answer(url=url, failure="unreachable", evidence=addrs), True
        public = all(_is_public(a) for a in addrs)
        if not public and not self.allow_private:
            return Answer(
                url=url,
                failure="refused",
                evidence=f"{host} is a private, loopback or link-local address ({addrs[0]}); refused",
            ), False
        return None, public

    def gate(self, url: str) -> _HostGate:
        host = urlsplit(url).netloc.lower()
        if host not in self.gates:
            self.gates[host] = _HostGate(self.s.per_host_concurrency, self.s.per_host_spacing)
        return self.gates[host]

    async def _exchange(self, method: str, url: str, answer: Answer) -> None:
        """One request: status and headers, and for an accepted GET the body up to the cap."""
        request = self.client.build_request(method, url)
        response = await self.client.send(request, stream=True)
        try:
            answer.status = response.status_code
            answer.location = response.headers.get("location")
            answer.content_type = (
                response.headers.get("content-type", "").split(";")[0].strip().lower()
            )
            answer.charset = response.charset_encoding
            answer.retry_after = response.headers.get("retry-after")
            if method == "GET" and response.status_code in self.s.accepted_statuses:
                cap = (
                    self.s.max_pdf_bytes if "pdf" in answer.content_type else self.s.max_body_bytes
                )
                chunks: list[bytes] = []
                size = 0
                async for chunk in response.aiter_bytes():
                    chunks.append(chunk)
                    size += len(chunk)
                    if size > cap:
                        answer.truncated = True  # stop here: closing drops the rest unread
                        break
                answer.body = b"".join(chunks)[:cap]
        finally:
            await response.aclose()

    async def request(self, method: str, url: str, public: bool) -> Answer:
        """Send with retries: 429/5xx and read timeouts back off (Retry-After honoured, capped)."""
        answer = Answer(url=url)
        for attempt in range(self.s.retries + 1):
            answer = Answer(url=url, attempts=attempt + 1, waits=answer.waits)
            delay: float | None = None
            try:
                async with self.gate(url).slot(), self.all_slots:
                    async with asyncio.timeout(self.s.request_deadline):
                        await self._exchange(method, url, answer)
            except (httpx.ConnectError, httpx.ConnectTimeout) as err:
                # Not retried: a refused or unroutable connection does not heal in a second.
                if public and not self.public_reached:
                    self.unreachable_public += 1
                    answer.failure, answer.evidence = (
                        "unreachable",
                        f"cannot connect to {urlsplit(url).netloc}: {type(err).__name__}",
                    )
                else:
                    answer.failure, answer.evidence = (
                        "broken",
                        f"cannot connect to {urlsplit(url).netloc}: {type(err).__name__}",
                    )
                return answer
            except (httpx.TimeoutException, TimeoutError):
                answer.failure, answer.evidence = (
                    "broken",
                    f"no complete answer within the time limits ({self.s.read_timeout:g} s read, {self.s.request_deadline:g} s total)",
                )
            except httpx.HTTPError as err:
                answer.failure, answer.evidence = (
                    "broken",
                    f"the connection failed: {type(err).__name__}",
                )
            else:
                if public:
                    self.public_reached = True
                if answer.status not in self.s.retry_statuses:
                    return answer
                delay = _retry_after(answer.retry_after, self.s.max_retry_after)
                answer.evidence = f"HTTP {answer.status} after {attempt + 1} attempt(s)"
            if attempt == self.s.retries:
                break
            if delay is None:
                delay = min(self.s.backoff_base * 2**attempt, self.s.backoff_max)
            answer.waits.append(f"{answer.status or 'timeout'}: waited {delay:g} s")
            await asyncio.sleep(delay)
        return answer

    async def fetch(self, url: str, public: bool) -> Answer:
        """HEAD first when configured (GET only when the body is needed or HEAD is refused)."""
        if self.s.head_first:
            head = await self.request("HEAD", url, public)
            if head.failure is None and head.status in REDIRECT_STATUSES:
                return head
            page_like = ("html" in head.content_type) or ("pdf" in head.content_type)
            if head.failure is None and head.status in self.s.accepted_statuses and not page_like:
                return head
            get = await self.request("GET", url, public)
            get.attempts += head.attempts
            if head.status not in self.s.accepted_statuses and head.failure is None:
                get.waits.insert(0, f"HEAD answered {head.status}, so GET was used")
            return get
        return await self.request("GET", url, public)

    async def follow(self, url: str) -> Outcome:
        """Follow redirects by hand, recording each hop; loops and long chains are broken."""
        chain: list[RedirectHop] = []
        seen = {link_key(url)}
        current = urlunsplit(urlsplit(url)._replace(fragment=""))
        attempts = 0
        for _hop in range(self.s.max_redirects + 1):
            refusal, public = await self.admit(current)
            if refusal is not None:
                return Outcome(refusal, chain, attempts)
            answer = await self.fetch(current, public)
            attempts += answer.attempts
            if answer.failure or answer.status not in REDIRECT_STATUSES or not answer.location:
                return Outcome(answer, chain, attempts)
            nxt = urlunsplit(urlsplit(urljoin(current, answer.location))._replace(fragment=""))
            chain.append(RedirectHop(url=current, status=answer.status, location=nxt))
            if link_key(nxt) in seen:
                loop = Answer(
                    url=nxt,
                    status=answer.status,
                    failure="broken",
                    evidence=f"redirect loop: {nxt} was already visited",
                )
                return Outcome(loop, chain, attempts)
            seen.add(link_key(nxt))
            current = nxt
        too_many = Answer(
            url=current, failure="broken", evidence=f"more than {self.s.max_redirects} redirects"
        )
        return Outcome(too_many, chain, attempts)


@asynccontextmanager
async def open_fetcher(
    settings: LinkSettings, allow_private: bool, transport: Transport | None = None
) -> AsyncIterator[Fetcher]:
    """A `Fetcher` over a fresh client built from `settings`; closed on exit."""
    timeout = httpx.Timeout(
        connect=settings.connect_timeout, read=settings.read_timeout,
        write=settings.read_timeout, pool=settings.request_deadline,
    )  # fmt: skip
    limits = httpx.Limits(max_connections=settings.global_concurrency)
    headers = {"User-Agent": settings.user_agent, "Accept": ACCEPT_HEADER}
    # trust_env=False: no proxy variables and no ~/.netrc credentials reach a foreign server.
    async with httpx.AsyncClient(
        headers=headers, timeout=timeout, limits=limits, follow_redirects=False,
        trust_env=False, cookies=_no_cookies(), transport=transport,
    ) as client:  # fmt: skip
        yield Fetcher(client, settings, allow_private)
