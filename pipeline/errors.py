"""The one exception tree of tujie. The CLI turns each into one line and an exit code.

TujieError                      base; never raised itself
├── InputError (2)              the user's input is unusable: folder, file, config, plan
│   ├── SourceError             an article folder or file cannot be used
│   ├── ConfigError             page.toml is unreadable or has an unknown or bad key
│   ├── PlanError               plan.json is malformed or breaks the page rules
│   └── SimulationFailed        the simulator refused a scenario the plan names
├── UsageError (2)              the command line itself is wrong
│   └── CallCapRefused          the plan would pass the model-call cap: --max-calls N / --yes
├── OutputError (2)             the output folder cannot be written
├── EnvironmentMissing (3)      a tool is missing: Chromium, fonts, an API key
│   └── DiskFull                no space left on the device a file was being written to
├── LLMError (4)                the model call failed after retries (auth, refusal, ...)
│   ├── PlanRepairFailed        the model's plan still breaks the rules after the last round
│   ├── DeadlinePassed          a model call was not answered by its deadline
│   └── LLMStopped              stopped part-way (deadline, call cap, unreadable reply): the
│                               spend so far is in the line
├── BuildProblems (1)           the build ran but found problems (check failures, ...)
├── PublishRefused (1)          publish will not run: check failed, links unverified, stale
└── LockHeld (1)                another build of the folder or publish to the site is running

Whatever else reaches the CLI becomes one line too (`failure_line`): Ctrl-C exits 130, an
operating-system error names its file (a full disk as `DiskFull`), and anything unexpected is an
"internal error" line with exit 70 (`TUJIE_DEBUG=1` shows the traceback).
"""

from __future__ import annotations

import errno
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_INPUT = 2
EXIT_ENVIRONMENT = 3
EXIT_LLM = 4
EXIT_INTERNAL = 70  # sysexits' EX_SOFTWARE: a bug in tujie, not in the input
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what shells report for a Ctrl-C


class TujieError(Exception):
    """Base of every error tujie raises on purpose; `exit_code` is what the CLI returns."""

    exit_code = EXIT_INPUT

    def one_line(self) -> str:
        """The message the CLI prints: a single line, no traceback."""
        return " ".join(str(self).split())


class InputError(TujieError):
    """The user's input (folder, file, config, plan) cannot be used as it is."""


class SourceError(InputError):
    """An article folder or file cannot be read: missing, empty, no readable article."""


class ConfigError(InputError):
    """page.toml cannot be parsed or has an unknown or invalid key."""


@dataclass(frozen=True)
class Violation:
    """One broken rule: where (a JSON path such as `concepts[3].trouble.caption`) and what."""

    path: str
    problem: str

    def __str__(self) -> str:
        return f"{self.path}: {self.problem}"


class PlanError(InputError):
    """plan.json is not valid JSON, does not match the model, or breaks a page rule.

    Carries every violation found, each with its JSON path, so a human (or the LLM repair
    loop) can fix them all in one round.
    """

    def __init__(self, file: str | Path | None, violations: Sequence[Violation]):
        self.file = str(file) if file is not None else "plan"
        self.violations = list(violations)
        listed = "; ".join(str(v) for v in self.violations[:8])
        more = f" (+{len(self.violations) - 8} more)" if len(self.violations) > 8 else ""
        super().__init__(f"{self.file}: {len(self.violations)} rule violation(s): {listed}{more}")


class SimulationFailed(InputError):
    """The simulator refused to run a scenario the plan names (an unknown preset, a workload past
    a bound, an engine limit): `sim.errors.SimError` mapped into this tree where the pipeline
    calls the simulator, with the simulator's own one-line reason."""


class UsageError(TujieError):
    """The command line is wrong (unknown option, missing argument)."""


class CallCapRefused(UsageError):
    """The plan would make more paid model calls than the cap allows: refused before the first
    of them, with the estimated cost and the flag that allows it (`--max-calls N`, `--yes`)."""


class OutputError(TujieError):
    """The output folder or a file in it cannot be written."""


class EnvironmentMissing(TujieError):
    """Something the machine must provide is missing: Chromium, the fonts, an API key."""

    exit_code = EXIT_ENVIRONMENT


class DiskFull(EnvironmentMissing):
    """A write failed with ENOSPC (or EDQUOT): the disk, or the user's quota, is full. Raised by
    `pipeline.atomic` and mapped at the boundary, so it is never taken for a browser crash."""


def disk_full(path: str | Path, err: OSError) -> DiskFull:
    """The one line for a full disk: which file could not be written, and what to do."""
    return DiskFull(
        f"{path}: no space left on the device ({err.strerror or 'disk full'}); free some space "
        "there (the cache can be moved with TUJIE_CACHE=DIR) and run the command again"
    )


def is_disk_full(err: BaseException) -> bool:
    return isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT)


class LLMError(TujieError):
    """The LLM call failed for good: authentication, refusal, retries exhausted."""

    exit_code = EXIT_LLM


@dataclass
class LLMUsage:
    """Token usage summed over the calls of one plan extraction."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    calls: int = 0
    extra: dict[str, float] = field(default_factory=dict)


class PlanRepairFailed(LLMError):
    """The model's plan still broke the rules after the last repair round.

    Carries the violations of the best attempt, the number of attempts, the usage, and where the
    best invalid plan was saved for a human to edit.
    """

    def __init__(
        self,
        violations: Sequence[Violation],
        attempts: int,
        usage: LLMUsage,
        saved_to: Path | None,
        last_output: str = "",
        model: str = "",
    ):
        self.violations = list(violations)
        self.attempts = attempts
        self.usage = usage
        self.saved_to = saved_to
        self.last_output = last_output
        self.model = model
        where = f"; best attempt saved to {saved_to} for editing" if saved_to else ""
        super().__init__(
            f"the model's plan still breaks {len(self.violations)} rule(s) after {attempts} "
            f"attempt(s), e.g. {self.violations[0] if self.violations else '?'}{where}"
        )


class DeadlinePassed(LLMError):
    """A model call (or the token count, or the whole plan) had no complete answer by its
    deadline; the message names which. The plan session re-raises it as `LLMStopped`."""


class LLMStopped(LLMError):
    """The extraction was stopped part-way on purpose: a deadline passed, the cap on model calls
    was reached, or a reply could not be read. The one line ends with what was spent so far
    (`spent`, formatted by the caller, which knows the prices); `usage` and `model` carry it."""

    def __init__(self, reason: str, usage: LLMUsage, model: str, spent: str):
        self.reason = reason
        self.usage = usage
        self.model = model
        super().__init__(f"{reason}; {spent}")


class BuildProblems(TujieError):
    """The build ran to the end but found problems (the browser check failed, ...)."""

    exit_code = EXIT_PROBLEMS


class PublishRefused(TujieError):
    """publish will not run: the last check failed, links are unverified, or the build is stale."""

    exit_code = EXIT_PROBLEMS


class LockHeld(TujieError):
    """Another process builds the same output folder or publishes to the same site, and did not
    finish within the wait; the message names its pid and the lock file."""

    exit_code = EXIT_PROBLEMS


def failure_line(err: BaseException) -> tuple[str, int]:
    """What the CLI prints for `err` (one line, without the `error: ` prefix) and the exit code:
    every exception class has one, so no traceback reaches the user."""
    if isinstance(err, TujieError):
        return err.one_line(), err.exit_code
    if isinstance(err, KeyboardInterrupt):
        return (
            "interrupted (Ctrl-C); every artifact is either complete or not written, so the "
            "same command carries on from the last finished stage",
            EXIT_INTERRUPTED,
        )
    if isinstance(err, OSError):
        where = err.filename if err.filename is not None else "a file"
        if is_disk_full(err):
            return disk_full(where, err).one_line(), EXIT_ENVIRONMENT
        reason = err.strerror or type(err).__name__
        return f"{where}: {reason}; check that path and its permissions", EXIT_INPUT
    if isinstance(err, RecursionError):
        return (
            "an input is nested too deeply to be read (a JSON or HTML file, or a model reply, "
            "with thousands of levels); flatten it",
            EXIT_INPUT,
        )
    if isinstance(err, MemoryError):
        return "ran out of memory; an input is far larger than a page needs", EXIT_ENVIRONMENT
    first = " ".join(str(err).split())[:200]
    detail = f"{type(err).__name__}: {first}" if first else type(err).__name__
    return (
        f"internal error ({detail}); please report it, with TUJIE_DEBUG=1 for the traceback",
        EXIT_INTERNAL,
    )
