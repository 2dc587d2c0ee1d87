"""Fixtures of the link checker tests: local sites on 127.0.0.1 (see linksites.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from linksites import Site, start_site


@pytest.fixture
def make_site() -> Iterator[Callable[[], Site]]:
    """Start as many local sites as a test needs; each is its own 'host' (port)."""
    stops: list[Callable[[], None]] = []

    def start() -> Site:
        site, stop = start_site()
        stops.append(stop)
        return site

    yield start
    for stop in stops:
        stop()
