"""The engines' cache: each scenario's trace (or run), and each ruler's sweep, stored once under
`cache_dir()/sim/<key>.json`, where the key is the content hash of what the engine is asked
to run (the preset's workload; for a sweep, its generator, base engine and techniques) and of
the simulator's own code (a fix to the engine must not serve an old trace). A forced rebuild,
or a build into an empty output folder, then reads the traces instead of simulating again.
The keys of each field's runs are its own (`pipeline.fields.serving.engine`).

Running the misses concurrently does not pay: every scenario of the example simulates in
milliseconds, and the sweep is one call that takes seconds on its own.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pipeline.atomic import write_atomic
from pipeline.errors import OutputError
from pipeline.paths import cache_dir

CACHE_SUBDIR = "sim"
MAX_ENTRIES = 400  # the oldest entries go beyond this (each simulator change adds a set)

Json = Any


@dataclass
class CacheStats:
    """How many results came from the cache and how many were simulated, in one `run_sim`."""

    hits: int = 0
    misses: int = 0


def cache_root() -> Path:
    return cache_dir() / CACHE_SUBDIR


@lru_cache(maxsize=1)
def sim_code_hash() -> str:
    """The simulator package as installed: every file's name and contents."""
    import sim

    root = Path(sim.__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            h.update(path.relative_to(root).as_posix().encode() + b"\0")
            h.update(hashlib.sha256(path.read_bytes()).digest())
    return h.hexdigest()


def workload_key(kind: str, workload: Json) -> str:
    """The cache key of one simulation: what runs (`kind`, e.g. the preset name's role), its
    workload's content, and the simulator's code."""
    text = json.dumps(
        {"kind": kind, "workload": workload, "sim": sim_code_hash()},
        sort_keys=True,
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()


def cached(key: str, compute: Callable[[], Json], stats: CacheStats | None = None) -> Json:
    """The stored result for `key`, else `compute()` stored under it. An unreadable entry is
    computed again (and replaced)."""
    path = cache_root() / f"{key}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    else:
        if stats is not None:
            stats.hits += 1
        return data
    data = compute()
    if stats is not None:
        stats.misses += 1
    try:
        write_atomic(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
        _prune(path.parent)
    except (OSError, OutputError):
        pass  # a read-only cache only costs speed
    return data


def _prune(root: Path) -> None:
    entries = sorted(root.glob("*.json"), key=lambda p: p.stat().st_mtime)
    for old in entries[: max(0, len(entries) - MAX_ENTRIES)]:
        old.unlink(missing_ok=True)


# Results already read or simulated in this process, as JSON text by name (a run, or a sweep):
# the validator, the repair loop and the stage ask for the same runs. Later processes are served
# by the disk cache above, keyed by the workload's content.
RUN_CACHE_SIZE = 256
_MEMO: dict[object, str] = {}


def remembered(
    name: object, key: Callable[[], str], compute: Callable[[], Json], stats: CacheStats | None
) -> Json:
    """`name`'s result from this process's memo, else from the disk cache under `key()`, else
    `compute()` (stored in both); a fresh copy each time."""
    text = _MEMO.get(name)
    if text is None:
        text = json.dumps(cached(key(), compute, stats))
        if len(_MEMO) >= RUN_CACHE_SIZE:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[name] = text
    return json.loads(text)


def forget_runs() -> None:
    """Drop what this process remembers (the disk cache stays)."""
    _MEMO.clear()
