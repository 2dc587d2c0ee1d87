"""Hypothesis profiles for the whole suite: under CI (`CI` set, as `.ci/run`'s machine does) every
property test is derandomized, so a submission cannot pass or fail by the draw; locally the draws
stay random (and failures are kept in hypothesis' example database) to keep finding new cases."""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev")
settings.load_profile(os.environ.get("TUJIE_HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
