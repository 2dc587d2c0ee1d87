"""Shared hypothesis settings and token ids for the simulator's property tests."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

SETTINGS = settings(
    max_examples=int(os.environ.get("SIM_PROPERTY_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
# A shared system prompt: requests that start with a prefix of it can hit the prefix cache.
SHARED = list(range(1, 33))
