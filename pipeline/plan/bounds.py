"""What one plan extraction may spend: a cap on paid model calls, and deadlines in wall-clock
time for each call, for the token count and for the whole plan.

Read timeouts alone do not bound a call: a server that accepts and never answers is waited on
for the read timeout once per attempt, and a stream that sends a `ping` now and then resets it
forever. A deadline is a point in time; the call runs in a worker thread and is given up on when
the point passes, whatever the socket is doing (`run_before`).

The cap counts calls that are paid (answers from the response cache are free). Before the notes
path (one call per article), the calls it would make are counted and priced; over the cap the
run is refused with the estimate, and `tujie plan --max-calls N` (or `--yes`) lets it go ahead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from pipeline.errors import DeadlinePassed, UsageError

T = TypeVar("T")

# At most this many paid model calls per plan unless the user says more: the direct path needs
# 1-6 (an answer, repair rounds, a re-ask of a cut-off answer), the notes path one per article
# plus those, so a folder of up to ~40 articles plans without a question (at most ~$5 at the
# current Sonnet's list prices).
DEFAULT_MAX_CALLS = 50
# One model call, retries and their pauses included: a 32,000-token streamed answer takes ~10
# minutes at 50 tokens/s.
CALL_DEADLINE_S = 15 * 60.0
# The token counter answers in well under a second; waiting longer only delays the plan.
COUNT_TOKENS_DEADLINE_S = 60.0
# The whole extraction: every call, notes path included (`tujie plan --deadline MIN`).
PLAN_DEADLINE_S = 60 * 60.0


@dataclass(frozen=True)
class SpendBounds:
    """The limits of one extraction. `max_calls` None: no cap (`tujie plan --yes`)."""

    max_calls: int | None = DEFAULT_MAX_CALLS
    call_deadline_s: float = CALL_DEADLINE_S
    count_deadline_s: float = COUNT_TOKENS_DEADLINE_S
    plan_deadline_s: float = PLAN_DEADLINE_S


def bounds_from_options(
    max_calls: int | None, yes: bool, deadline_min: float | None
) -> SpendBounds:
    """The bounds `tujie plan --max-calls N / --yes / --deadline MIN` asks for; a cap or a
    deadline that is not a positive number is a UsageError."""
    if max_calls is not None and max_calls < 1:
        raise UsageError(f"--max-calls {max_calls}: give a number of calls of at least 1")
    if deadline_min is not None and not deadline_min > 0:
        raise UsageError(f"--deadline {deadline_min}: give a number of minutes above 0")
    return SpendBounds(
        max_calls=None if yes else (max_calls or DEFAULT_MAX_CALLS),
        plan_deadline_s=PLAN_DEADLINE_S if deadline_min is None else deadline_min * 60,
    )


@dataclass(frozen=True)
class Deadline:
    """A point in `time.monotonic()` time, and what it is the deadline of (for the message)."""

    at: float
    what: str

    @classmethod
    def after(cls, seconds: float, what: str) -> Deadline:
        return cls(time.monotonic() + seconds, f"{duration(seconds)} deadline {what}")

    def remaining(self) -> float:
        return self.at - time.monotonic()

    def passed(self) -> bool:
        return self.remaining() <= 0


def earliest(*deadlines: Deadline | None) -> Deadline:
    return min((d for d in deadlines if d is not None), key=lambda d: d.at)


def run_before(deadline: Deadline, work: Callable[[], T], what: str) -> T:
    """`work()` in a worker thread, given up on at `deadline` (`DeadlinePassed` naming `what`).

    The thread is a daemon: a call given up on cannot keep the process alive, and ends on its
    own when its socket does (the plan stops at the first deadline, so nothing waits for it)."""
    outcome: list[tuple[bool, object]] = []
    done = threading.Event()

    def target() -> None:
        try:
            outcome.append((True, work()))
        except BaseException as err:  # handed to the caller's thread as it is
            outcome.append((False, err))
        finally:
            done.set()

    threading.Thread(target=target, name=f"tujie {what}", daemon=True).start()
    if not done.wait(max(0.0, deadline.remaining())):
        raise DeadlinePassed(f"{what}: no complete answer within the {deadline.what}")
    ok, value = outcome[0]
    if not ok:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]


def duration(seconds: float) -> str:
    """`0.5 s`, `90 s`, `15-minute`, `2-hour`: how a deadline is named in a message."""
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds / 3600:.0f}-hour"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:.0f}-minute"
    return f"{seconds:g} s"
