"""The one way tujie reads a file it did not write: `page.toml`, `plan.json`, the reading list
and every article go through `read_file` (output folders, which tujie writes itself, do not).

A file is read only when it is a regular file (a FIFO, device or socket is refused, never waited
on: it is opened with O_NONBLOCK and the descriptor is `fstat`ed), when its real path lies inside
the folder it belongs to (a symlink out of it is refused with its target, as the folder walk
skips it), and when it is within the size limit of its kind: at most the limit + 1 bytes are ever
read, so a file that grows, or lies about its size, cannot fill memory. Each refusal is a
`FileRefused` whose reason the caller puts into its own error (ConfigError, PlanError, a skip).
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

# Size limits per kind of file (README, "Limits"). A page.toml holds a few settings; the largest
# reviewed plan.json shipped (examples/) is ~60 KB; a reading list is a page of links; an
# article is a saved page or a paper.
MAX_CONFIG_BYTES = 64 * 1024
MAX_PLAN_BYTES = 2 * 1024 * 1024
MAX_READING_LIST_BYTES = 1024 * 1024
MAX_ARTICLE_BYTES = 10 * 1024 * 1024
READ_CHUNK_BYTES = 1024 * 1024
# Control characters in a file name are shown escaped: a name must not drive the terminal.
_CONTROL_CHARS = {c: f"\\x{c:02x}" for c in [*range(0x20), *range(0x7F, 0xA0)]}
_SPECIAL_FILES = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


@dataclass(frozen=True)
class FileKind:
    """What a file is for, its size limit, and whether it must be UTF-8 text (`read_text`)."""

    name: str
    max_bytes: int
    utf8: bool = False


CONFIG = FileKind("page.toml", MAX_CONFIG_BYTES, utf8=True)
PLAN = FileKind("plan.json", MAX_PLAN_BYTES, utf8=True)
READING_LIST = FileKind("reading list", MAX_READING_LIST_BYTES)  # decoded like an article
ARTICLE = FileKind("article", MAX_ARTICLE_BYTES)  # bytes: each format decodes its own


class FileRefused(Exception):
    """The file is not read; the message is the reason, without the path (the caller adds it).
    `missing` is True when there is simply no file there (callers may fall back to defaults)."""

    def __init__(self, reason: str, *, missing: bool = False):
        super().__init__(reason)
        self.missing = missing


def printable(text: str) -> str:
    """A file name (or any untrusted text) safe to store as UTF-8 and to print: undecodable bytes
    (kept by Python as surrogate escapes) become `\\xff`, control characters `\\x1b`."""
    try:
        raw = os.fsencode(text)
    except UnicodeEncodeError:  # a lone surrogate that did not come from the file system
        raw = text.encode("utf-8", "backslashreplace")
    return raw.decode("utf-8", "backslashreplace").translate(_CONTROL_CHARS)


def symlink_problem(path: Path, root: Path) -> str | None:
    """Why the symlink `path` must not be followed (a loop, no target, a target outside the
    real folder `root`), or None when its target lies inside."""
    try:
        real = path.resolve(strict=True)
    except RuntimeError:  # Python 3.11-3.12 report a loop this way
        return f"symlink loop ({link_target(path)})"
    except OSError as err:
        if err.errno == errno.ELOOP:
            return f"symlink loop ({link_target(path)})"
        return f"broken symlink ({link_target(path)})"
    if not real.is_relative_to(root):
        return f"symlink to outside the folder ({link_target(path)}); not read"
    return None


def link_target(path: Path) -> str:
    try:
        return "→ " + printable(os.readlink(path))
    except OSError:
        return "target unknown"


def read_file(path: Path, folder: Path, kind: FileKind) -> bytes:
    """The bytes of `path`, which belongs to `folder`, if it is a regular file inside it within
    `kind.max_bytes`; else `FileRefused` with the reason."""
    root = folder.resolve()
    real = _inside(path, root)
    try:
        # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting; the
        # fstat below then refuses it. O_NOFOLLOW: the path checked is the file opened.
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        raise FileRefused("not found", missing=True) from None
    except OSError as err:
        raise FileRefused(f"cannot be opened ({err.strerror or type(err).__name__})") from None
    try:
        info = os.fstat(fd)
        special = next((what for test, what in _SPECIAL_FILES if test(info.st_mode)), None)
        if special or not stat.S_ISREG(info.st_mode):
            raise FileRefused(f"{special or 'not a regular file'}, not a regular file; not read")
        if info.st_size > kind.max_bytes:
            raise FileRefused(_too_large(kind, f"{info.st_size:,} bytes"))
        data = _read_at_most(fd, kind.max_bytes + 1)
    except OSError as err:
        raise FileRefused(f"cannot be read ({err.strerror or type(err).__name__})") from None
    finally:
        os.close(fd)
    if len(data) > kind.max_bytes:  # it grew while being read, or its size was not its length
        raise FileRefused(_too_large(kind, "more bytes than its size said"))
    return data


def read_text(path: Path, folder: Path, kind: FileKind) -> str:
    """`read_file` decoded as UTF-8 (a byte-order mark is dropped); an invalid byte is refused
    with its offset rather than guessed at."""
    data = read_file(path, folder, kind)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise FileRefused(
            f"not UTF-8 (byte 0x{data[err.start]:02x} at offset {err.start}); save it as UTF-8"
        ) from None


def _inside(path: Path, root: Path) -> Path:
    """The real path of `path`, refused when a symlink leads out of `root` (or nowhere)."""
    if path.is_symlink():
        problem = symlink_problem(path, root)
        if problem:
            raise FileRefused(problem)
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        raise FileRefused("not found", missing=True) from None
    except (OSError, RuntimeError) as err:
        raise FileRefused(f"cannot be read ({getattr(err, 'strerror', None) or err})") from None
    if not real.is_relative_to(root):  # a symlinked folder on the way out of the folder
        raise FileRefused(f"lies outside the folder (its real path is {printable(str(real))})")
    return real


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, min(READ_CHUNK_BYTES, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _too_large(kind: FileKind, size: str) -> str:
    return f"too large for a {kind.name} ({size}, limit {_size(kind.max_bytes)})"


def _size(n: int) -> str:
    for unit, scale in (("MB", 1024 * 1024), ("KB", 1024)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n:,} bytes"
