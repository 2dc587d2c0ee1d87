"""Issue 22: Ctrl-C at any stage of a real `tujie build` exits 130 with one line and leaves
nothing half-written: every artifact is whole or absent, every stage build.json records is
backed by outputs that still hash as it wrote them, no temporary file, no Chromium and no
browser profile stays behind, and the same command then carries on. The signal goes to the
build's whole process group, as a terminal sends it; the moments are chosen by what the build
shows (a stage's line, the browser listening, its pages open, the model asked), not by time."""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image

from pipeline.artifacts.build_state import STATE_FILE, BuildState
from pipeline.build.runner import run_build
from pipeline.build.state import prepare, sha256_file, tree_hash
from tests.llm.fake_anthropic import TEST_KEY, plan_reply
from tests.llm.held_fake import HeldFake, shipped_answer
from tests.tujie_process import REPO, one_error_line, start_tujie, tujie

EXAMPLE = REPO / "examples" / "llm-inference"
NAME = "llm-inference"
LEFTOVERS = (".*.tmp", ".sim-tmp-*", ".check-page.html", ".staging-*")
WAIT_S = 300.0  # for a moment to come, or a process to go: generous, the machine is shared


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("built")
    run_build(prepare(EXAMPLE, out), until="render")
    return out


def _processes() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, state, command line) of every process."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        found[int(entry.name)] = (int(fields[1]), fields[0], cmdline)
    return found


def descendants(pid: int) -> dict[int, str]:
    table = _processes()
    out: dict[int, str] = {}
    frontier = [pid]
    while frontier:
        parent = frontier.pop()
        for child, (ppid, _state, cmd) in table.items():
            if ppid == parent and child not in out:
                out[child] = cmd
                frontier.append(child)
    return out


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie no longer runs (nobody may reap it here)


class Build:
    """A `tujie build` in a session of its own, its stdout read line by line as it comes, and
    every process it started remembered."""

    def __init__(self, *args: str, env: dict[str, str]) -> None:
        self.process = start_tujie(*args, env=env)
        self.lines: list[str] = []
        self.children: dict[int, str] = {}
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)

    def wait_for(self, moment: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + WAIT_S
        while not moment():
            self.children |= descendants(self.process.pid)
            if self.process.poll() is not None:
                stderr = self.process.stderr.read() if self.process.stderr else ""
                raise AssertionError(f"the build ended before {what}: {self.lines} {stderr}")
            assert time.monotonic() < deadline, f"{what} never came: {self.lines}"
            time.sleep(0.02)
        self.children |= descendants(self.process.pid)

    def shown(self, stage: str) -> Callable[[], bool]:
        return lambda: any(f" {stage} " in line for line in self.lines)

    def interrupt(self) -> str:
        """Ctrl-C to the whole group, as a terminal sends it; the build's stderr."""
        os.killpg(self.process.pid, signal.SIGINT)
        _, stderr = self.process.communicate(timeout=WAIT_S)
        self._reader.join(timeout=WAIT_S)
        return stderr


def browser_listening(tmp: Path) -> Callable[[], bool]:
    return lambda: any(tmp.glob("tujie-chrome-*/DevToolsActivePort"))


def pages_open(build: Build, count: int = 4) -> Callable[[], bool]:
    def moment() -> bool:
        found = descendants(build.process.pid)
        return sum("--type=renderer" in cmd for cmd in found.values()) >= count

    return moment


def assert_nothing_half_written(out: Path, tmp: Path, build: Build) -> None:
    folder = out / NAME
    for pattern in LEFTOVERS:
        assert not list(folder.rglob(pattern)), pattern
    for path in folder.rglob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))  # whole, or it would not parse
    for path in folder.rglob("*.png"):
        with Image.open(path) as image:
            image.load()
    state = BuildState.load(folder / STATE_FILE)
    for stage, record in state.stages.items():
        for rel, digest in record.outputs.items():
            path = folder / rel
            now = (
                tree_hash(sorted(p for p in path.rglob("*") if p.is_file()), path)
                if path.is_dir()
                else sha256_file(path)
            )
            assert now == digest, f"{stage}: {rel} is not what the stage wrote"
    assert not list(tmp.glob("tujie-chrome-*")), "a browser profile stayed behind"
    deadline = time.monotonic() + WAIT_S
    while any(running(pid) for pid in build.children):
        assert time.monotonic() < deadline, f"still running: {build.children}"
        time.sleep(0.05)


@pytest.fixture
def tmp() -> Iterator[Path]:
    """The build's TMPDIR, where Chromium's profile goes: short, because Chromium aborts when
    the path of a socket it makes there passes the 108 bytes a socket's name may have."""
    path = Path(tempfile.mkdtemp(prefix="tj-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _start(
    built: Path, tmp_path: Path, tmp: Path, *extra: str, env: dict[str, str] | None = None
) -> tuple[Path, Build]:
    out = tmp_path / "out"
    shutil.copytree(built, out)
    args = ("build", str(EXAMPLE), "--out", str(out), "--until", "check", *extra)
    return out, Build(*args, env={"TMPDIR": str(tmp), **(env or {})})


MOMENTS: dict[str, Callable[[Build, Path], Callable[[], bool]]] = {
    "after ingest": lambda b, tmp: b.shown("ingest"),
    "after the simulator": lambda b, tmp: b.shown("sim"),
    "the browser listening": lambda b, tmp: browser_listening(tmp),
    "the check's pages open": lambda b, tmp: pages_open(b),
}


@pytest.mark.browser
@pytest.mark.parametrize("moment", sorted(MOMENTS))
def test_ctrl_c_at_any_stage_is_one_line_exit_130_and_nothing_half_written(
    built: Path, tmp_path: Path, tmp: Path, moment: str
) -> None:
    forced = ("--force",) if moment in ("after ingest", "after the simulator") else ()
    out, build = _start(built, tmp_path, tmp, *forced)
    build.wait_for(MOMENTS[moment](build, tmp), moment)
    stderr = build.interrupt()
    assert build.process.returncode == 130, stderr
    assert "interrupted" in one_error_line(stderr)
    assert_nothing_half_written(out, tmp, build)


@pytest.mark.browser
def test_after_ctrl_c_in_the_check_the_same_command_carries_on(
    built: Path, tmp_path: Path, tmp: Path
) -> None:
    out, build = _start(built, tmp_path, tmp)
    build.wait_for(pages_open(build), "the check's pages open")
    assert build.interrupt() and build.process.returncode == 130
    again = tujie(
        "build", str(EXAMPLE), "--out", str(out), "--until", "check", env={"TMPDIR": str(tmp)}
    )
    assert again.returncode == 0, again.stderr
    ran = [ln.split()[1] for ln in again.stdout.splitlines() if ln.startswith("✓")]
    assert ran == ["check"], again.stdout  # the stages before it were complete, and trusted
    assert json.loads((out / NAME / "check.json").read_text(encoding="utf-8"))["ok"]
    assert not list(tmp.glob("tujie-chrome-*"))


def test_ctrl_c_while_the_model_is_asked_writes_no_plan(tmp_path: Path, tmp: Path) -> None:
    src = tmp_path / "notes"
    shutil.copytree(EXAMPLE, src)
    (src / "plan.json").unlink()
    out = tmp_path / "out"
    with HeldFake() as fake:
        fake.replies = [plan_reply(shipped_answer())]
        env = {"ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": TEST_KEY, "TMPDIR": str(tmp)}
        build = Build("build", str(src), "--out", str(out), "--until", "plan", env=env)
        try:
            build.wait_for(fake.arrived.is_set, "the model asked")
            stderr = build.interrupt()
        finally:
            fake.release.set()
    assert build.process.returncode == 130, stderr
    assert "interrupted" in one_error_line(stderr)
    assert not (out / NAME / "plan.json").exists()
    assert not list((out / NAME).rglob("llm/*.json"))  # no reply was stored: none came
    assert_nothing_half_written(out, tmp, build)
