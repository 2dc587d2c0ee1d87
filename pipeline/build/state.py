"""A build of one folder: where its artifacts go, the content hashes that decide whether a stage
must run again (its inputs and the code that runs it, and its outputs as it wrote them), and the
state kept in `build.json`. The stages themselves are in `pipeline.build.stages`."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.artifacts.build_state import STATE_FILE, BuildState, StageState
from pipeline.config import PageConfig, load_config, page_name_from_folder
from pipeline.errors import OutputError, SourceError
from pipeline.ingest.walk import walk_folder
from pipeline.locking import held_lock
from pipeline.paths import PACKAGE_DIR, overlapping, prompts_dir, templates_dir

DEFAULT_OUTPUT = Path("output")
BUILD_LOCK = ".build.lock"  # one build (or publish of the build) per output folder at a time


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    return sha256_bytes(path.read_bytes())


def tree_hash(paths: list[Path], root: Path) -> str:
    """One hash over files' relative names and contents, in a stable order."""
    return _entries_hash((p.relative_to(root).as_posix(), p) for p in paths)


def _entries_hash(entries: Iterable[tuple[str, Path]], extra: Iterable[str] = ()) -> str:
    """Hash (name, file) pairs sorted by name, then `extra` lines. Names are hashed as the
    file system's bytes (a name that is not UTF-8 must not crash the hash); an unreadable file
    contributes its error, so the stage that reads it runs and reports it."""
    h = hashlib.sha256()
    for rel, path in sorted(entries, key=lambda e: e[0]):
        h.update(os.fsencode(rel))
        h.update(b"\0")
        try:
            with path.open("rb") as fh:
                h.update(hashlib.file_digest(fh, "sha256").digest())
        except OSError as err:
            h.update(f"unreadable: {err.strerror}".encode())
    for line in extra:
        h.update(b"\0" + os.fsencode(line))
    return h.hexdigest()


def code_hash() -> str:
    """The code that turns inputs into artifacts: a change to it invalidates every stage. The
    packages `pipeline` and `sim`, the templates and the prompts, wherever they are installed."""
    import sim

    roots = {
        "pipeline": PACKAGE_DIR,
        "sim": Path(sim.__file__).resolve().parent,
        "templates": templates_dir(),
        "prompts": prompts_dir(),
    }
    h = hashlib.sha256()
    for name, root in sorted(roots.items()):
        files = [
            p
            for p in root.rglob("*")
            if p.is_file()
            and "__pycache__" not in p.parts
            and p.suffix not in {".pyc", ".md"}
            and not (name == "pipeline" and p.relative_to(root).parts[0] in roots)
        ]
        h.update(f"{name}\0{tree_hash(files, root)}\n".encode())
    return h.hexdigest()


def output_name(src: Path, config: PageConfig) -> str:
    return config.publish.name or page_name_from_folder(src.resolve().name)


@dataclass
class StageRecord:
    name: str
    ran: bool
    seconds: float
    note: str = ""


@dataclass
class Build:
    """One build of one folder: where things are and what has been computed so far."""

    src: Path
    out_root: Path = DEFAULT_OUTPUT
    config: PageConfig = field(default_factory=PageConfig)
    force: bool = False
    records: list[StageRecord] = field(default_factory=list)
    on_stage: Callable[[StageRecord], None] | None = None
    state: BuildState = field(default_factory=BuildState)
    code: str = ""
    # The source folder's hash, taken in `prepare` before any of its files was read: what the
    # build is recorded as made from, so an edit during the build leaves it stale.
    source_key: str = ""

    @property
    def name(self) -> str:
        return output_name(self.src, self.config)

    @property
    def dir(self) -> Path:
        return self.out_root / self.name

    def load_state(self) -> None:
        self.state = BuildState.load(self.dir / STATE_FILE)

    def save_state(self) -> None:
        self.state.save(self.dir / STATE_FILE)

    def _key(self, key_parts: list[str]) -> str:
        return sha256_bytes("\n".join([self.code, *key_parts]).encode())

    def built_from(self) -> str:
        """The inputs' hash this build records (publish compares it with `inputs_hash`)."""
        return sha256_bytes((self.code + self.source_key).encode())

    def _digests(self, outputs: list[Path]) -> dict[str, str]:
        """Each existing output's content hash (a folder's: over its files), by its path in the
        build folder."""
        found = {}
        for path in outputs:
            name = path.relative_to(self.dir).as_posix() if path.is_relative_to(self.dir) else str(path)
            if path.is_dir():
                found[name] = tree_hash(sorted(p for p in path.rglob("*") if p.is_file()), path)
            elif path.exists():
                found[name] = sha256_file(path)
        return found

    def is_current(self, name: str, key_parts: list[str], outputs: list[Path]) -> bool:
        """Whether `stage(name, key_parts, outputs, ...)` would skip its work: same inputs, and
        every output still as that stage wrote it (a half-written, truncated or edited one is
        made again, never trusted because it exists)."""
        last = self.state.stages.get(name)
        if self.force or last is None or last.key != self._key(key_parts):
            return False
        return all(p.exists() for p in outputs) and last.outputs == self._digests(outputs)

    def stage(
        self,
        name: str,
        key_parts: list[str],
        outputs: list[Path],
        run: Callable[[], str | None],
        *,
        rerun: bool = False,
    ) -> bool:
        """Run `run` unless the key of its inputs matches the last run and its outputs are what
        that run wrote (or `rerun` asks for it anyway, as `tujie links --refresh` does)."""
        start = time.perf_counter()
        if self.is_current(name, key_parts, outputs) and not rerun:
            record = StageRecord(name, False, 0.0, "unchanged")
        else:
            note = run() or ""
            key = self._key(key_parts)
            self.state.stages[name] = StageState(key=key, outputs=self._digests(outputs))
            self.save_state()
            record = StageRecord(name, True, time.perf_counter() - start, note)
        self.records.append(record)
        if self.on_stage:
            self.on_stage(record)
        return record.ran


def source_tree_hash(src: Path) -> str:
    """The folder as ingest sees it: the readable files' names and contents, and every skipped
    entry with its reason (a new symlink out of the folder changes sources.json's skipped list)."""
    walk = walk_folder(src)
    return _entries_hash(
        ((f.rel, f.path) for f in walk.files),
        extra=(f"skipped {s.rel}: {s.reason}" for s in walk.skipped),
    )


def prepare(src: Path, out_root: Path = DEFAULT_OUTPUT, force: bool = False) -> Build:
    if not src.exists():
        raise SourceError(f"{src}: folder not found; give the path of a folder of articles")
    if not src.is_dir():
        raise SourceError(f"{src}: not a folder; give the path of a folder of articles")
    source_key = source_tree_hash(src)  # first: whatever is read after it is at least as new
    config = load_config(src)
    build = Build(src=src, out_root=out_root, config=config, force=force, source_key=source_key)
    refuse_output_in_source(build)
    try:
        build.dir.mkdir(parents=True, exist_ok=True)
        probe = build.dir / f".write-probe-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as err:
        raise OutputError(
            f"{build.dir}: output folder is not writable ({err.strerror}); fix its permissions "
            f"or pass --out DIR"
        ) from None
    build.code = code_hash()
    build.load_state()
    return build


def refuse_output_in_source(build: Build) -> None:
    """The output root must not lie in the source folder, and `output/<name>` must neither lie
    in it nor hold it: a build writes `plan.json` and `sources.json` there, and would overwrite
    the folder's hand-reviewed plan, or read its own artifacts as articles next time. Compared
    resolved, so a symlink into the source folder counts as inside it."""
    source = build.src.resolve()
    if build.out_root.resolve().is_relative_to(source) or overlapping(build.dir, build.src):
        inside = build.dir if overlapping(build.dir, build.src) else build.out_root
        raise OutputError(
            f"{inside}: the output folder resolves to {inside.resolve()}, in (or holding) the "
            f"source folder {build.src}; pass --out DIR outside it"
        )


@contextmanager
def build_lock(build: Build) -> Iterator[Build]:
    """Hold the output folder's lock for the block, and read the build state again under it: a
    build that had to wait for another one then finds that one's stages up to date."""
    with held_lock(build.dir / BUILD_LOCK, purpose=f"build or publish of {build.dir}"):
        build.load_state()
        yield build


def inputs_hash(build: Build) -> str:
    """What `publish` compares to refuse a build older than its inputs."""
    return sha256_bytes((build.code + source_tree_hash(build.src)).encode())
