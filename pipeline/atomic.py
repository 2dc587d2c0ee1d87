"""Atomic file writes: every artifact is written to a temp file in its own folder, then renamed,
so a crash or a kill never leaves a half-written artifact that looks valid. And the lenient
reader of a JSON object that may be missing (for reports that show what they have)."""

from __future__ import annotations

import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from pipeline.errors import OutputError, TujieError, disk_full, is_disk_full


def _write_error(path: Path, err: OSError) -> TujieError:
    """A full disk is named as such (`DiskFull`, exit 3); any other failure as the file."""
    if is_disk_full(err):
        return disk_full(path, err)
    return OutputError(f"{path}: cannot write ({err.strerror or err}); check the output folder")


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write `data` (text as UTF-8) to `path` atomically; OutputError names the file (or
    DiskFull (exit 3) when the disk is full)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as err:
        raise _write_error(path, err) from None
    try:
        # mkstemp makes the file private (0600); an artifact gets the usual mode instead.
        os.fchmod(fd, 0o666 & ~_current_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise _write_error(path, err) from None
        raise


def write_png_atomic(path: Path, image: Any, **options: Any) -> None:
    """A Pillow image saved as a PNG through `write_atomic` (an interrupted save leaves the old
    file or none, never half a picture)."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", **options)
    write_atomic(path, buffer.getvalue())


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def read_json_object(path: Path) -> dict[str, Any] | None:
    """A JSON object from disk, or None when missing, unreadable or not an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
