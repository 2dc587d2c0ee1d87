"""One build per output folder: a second `tujie build` of the same folder waits for the first and
then finds its stages up to date, or (not allowed to wait) exits 1 naming the holder's pid and
the lock file. The lock is the kernel's, so a killed builder leaves no stale lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.build.stages import stage_ingest
from pipeline.build.state import BUILD_LOCK, build_lock, prepare
from pipeline.cli import main
from pipeline.errors import EXIT_PROBLEMS
from pipeline.locking import LOCK_WAIT_ENV, held_lock

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "llm-inference"
STAGE_RAN = "✓ ingest"
STAGE_SKIPPED = "· ingest"


def start_build(out: Path, wait: str = "300") -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env[LOCK_WAIT_ENV] = wait
    command = [sys.executable, "-m", "pipeline.cli", "build", str(EXAMPLE), "--out", str(out),
               "--until", "ingest"]  # fmt: skip
    return subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_two_parallel_builds_run_each_stage_once(tmp_path: Path) -> None:
    children = [start_build(tmp_path), start_build(tmp_path)]
    outputs = [child.communicate(timeout=300) for child in children]
    assert [child.returncode for child in children] == [0, 0], outputs
    ran = [out for out, _ in outputs if STAGE_RAN in out]
    assert len(ran) == 1, outputs
    assert sum(STAGE_SKIPPED in out for out, _ in outputs) == 1, outputs


def test_a_waiting_build_finds_the_first_builds_work_up_to_date(tmp_path: Path) -> None:
    build = prepare(EXAMPLE, tmp_path)
    with build_lock(build):
        child = start_build(tmp_path)
        assert child.stderr is not None
        waiting = child.stderr.readline()
        assert f"for another build or publish of {build.dir}" in waiting
        assert f"pid {os.getpid()} holds {build.dir / BUILD_LOCK}" in waiting
        stage_ingest(build)  # done while the other build waits
    out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    assert STAGE_SKIPPED in out and STAGE_RAN not in out


def test_a_build_that_may_not_wait_exits_1_naming_the_holder(tmp_path: Path) -> None:
    build = prepare(EXAMPLE, tmp_path)
    lock = build.dir / BUILD_LOCK
    with held_lock(lock, purpose="test"):
        child = start_build(tmp_path, wait="0")
        out, err = child.communicate(timeout=300)
    assert child.returncode == EXIT_PROBLEMS
    assert err.strip().splitlines() == [
        f"error: another build or publish of {build.dir} is running (pid {os.getpid()} holds "
        f"{lock}); wait for it to finish or stop it, then try again"
    ]
    assert not (build.dir / "sources.json").exists()


def test_a_killed_builder_leaves_no_stale_lock(tmp_path: Path) -> None:
    build = prepare(EXAMPLE, tmp_path)
    lock = build.dir / BUILD_LOCK
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from pathlib import Path; from pipeline.locking import held_lock\n"
         "with held_lock(Path(sys.argv[1]), purpose='x'):\n"
         "    print('held', flush=True); time.sleep(600)", str(lock)],
        cwd=REPO, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    child = start_build(tmp_path, wait="0")
    out, err = child.communicate(timeout=300)
    assert child.returncode == 0, err
    assert STAGE_RAN in out


def test_a_bad_lock_wait_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for bad in ("soon", "-1", "nan", "inf"):
        monkeypatch.setenv(LOCK_WAIT_ENV, bad)
        assert main(["build", str(EXAMPLE), "--out", str(tmp_path), "--until", "ingest"]) == 2
        err = capsys.readouterr().err.strip()
        assert err == f"error: {LOCK_WAIT_ENV}={bad!r} is not a number of seconds (0 or more)"
