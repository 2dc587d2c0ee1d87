"""Two `tujie publish` at once, and publishers killed (SIGKILL) at random moments: the live page
is always complete (byte-identical to a build, its shots with it) and a killed publish leaves the
previous page in place. A second publisher or builder waits for the lock, or exits 1 naming the
holder's pid and the lock file."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipeline.build.state import BUILD_LOCK
from pipeline.errors import EXIT_PROBLEMS
from pipeline.locking import LOCK_WAIT_ENV, held_lock
from pipeline.publish.local import SITE_LOCK
from tests.publish.conftest import REPO, make_build

PAGE = "race"
PAIR_ROUNDS = 20  # two publishers at once; in every other round one of them is killed
LONE_KILL_ROUNDS = 6  # one publisher, killed: the previous page must stay live
KILL_WITHIN_S = 0.6  # a publish takes a few tenths of a second: kill somewhere in there
GENEROUS_WAIT_S = "300"


@dataclass(frozen=True)
class Race:
    """Two builds of the same page (from two source folders) and the site they publish to."""

    sources: tuple[Path, Path]
    outs: tuple[Path, Path]
    site: Path

    def build_dir(self, which: int) -> Path:
        return self.outs[which] / PAGE


@pytest.fixture(scope="module")
def race(tmp_path_factory: pytest.TempPathFactory) -> Race:
    root = tmp_path_factory.mktemp("race")
    sources, outs = [], []
    for label in ("a", "b"):
        src = root / f"src-{label}"
        src.mkdir()
        (src / "page.toml").write_text(f'[publish]\nname = "{PAGE}"\n', encoding="utf-8")
        out = root / f"out-{label}"
        make_build(out / PAGE, label=label, colours={"kv_cache": (20, 20, 200 if label == "a" else 90)})
        sources.append(src)
        outs.append(out)
    return Race((sources[0], sources[1]), (outs[0], outs[1]), root / "site")


def start_publish(race: Race, which: int, wait: str = GENEROUS_WAIT_S) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env[LOCK_WAIT_ENV] = wait
    command = [
        sys.executable, "-m", "pipeline.cli", "publish", str(race.sources[which]),
        "--out", str(race.outs[which]), "--to", str(race.site),
    ]  # fmt: skip
    return subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def finish(child: subprocess.Popen[str]) -> tuple[int, str]:
    _, stderr = child.communicate(timeout=300)
    return child.returncode, stderr


def live_build(race: Race) -> int:
    """Which build the live page is (0 or 1), after checking it is complete and consistent."""
    page = race.site / PAGE
    version = (page / "current").resolve()
    assert version.parent == (page / "versions").resolve(), version
    live = (page / "index.html").read_bytes()
    assert live == (version / "index.html").read_bytes()
    matches = [i for i in (0, 1) if (race.build_dir(i) / "index.html").read_bytes() == live]
    assert len(matches) == 1, "the live index.html is neither build's"
    build = race.build_dir(matches[0])
    shots = sorted(p.name for p in (build / "shots").iterdir())
    assert sorted(p.name for p in (page / "shots").iterdir()) == shots
    for name in shots:
        assert (page / "shots" / name).read_bytes() == (build / "shots" / name).read_bytes()
    for name in ("plan.json", "check.json", "links.json"):
        assert (page / name).read_bytes() == (build / name).read_bytes(), name
    assert f'href="{PAGE}/' in (race.site / "index.html").read_text(encoding="utf-8")
    return matches[0]


def kill_soon(child: subprocess.Popen[str], rng: random.Random) -> None:
    time.sleep(rng.uniform(0.0, KILL_WITHIN_S))
    child.send_signal(signal.SIGKILL)  # a no-op when it already exited (not yet reaped)


def test_parallel_and_killed_publishes_always_leave_a_complete_live_page(race: Race) -> None:
    rng = random.Random(20261130)
    finished = start_publish(race, 0)
    assert finish(finished)[0] == 0
    live = live_build(race)
    for round_no in range(PAIR_ROUNDS):
        which = (live + 1) % 2  # each round publishes the other build, so the page changes
        children = [start_publish(race, which), start_publish(race, which)]
        victim = children[round_no % 2] if round_no % 2 else None
        if victim is not None:
            kill_soon(victim, rng)
        for child in children:
            code, stderr = finish(child)
            assert "Traceback" not in stderr, stderr
            assert code == 0 or (child is victim and code == -signal.SIGKILL), (code, stderr)
        live = live_build(race)
        assert live == which, f"round {round_no}: the surviving publisher's page is not live"
    for round_no in range(LONE_KILL_ROUNDS):
        previous, which = live, (live + 1) % 2
        child = start_publish(race, which)
        kill_soon(child, rng)
        code, stderr = finish(child)
        assert "Traceback" not in stderr, stderr
        live = live_build(race)
        assert live == which if code == 0 else live in (previous, which), round_no
    # the next publish cleans up whatever the killed ones left
    assert finish(start_publish(race, 0))[0] == 0
    page = race.site / PAGE
    assert [p.name for p in (page / "versions").iterdir()] == [(page / "current").resolve().name]
    assert not [p for p in page.iterdir() if p.name.startswith(".")]
    assert len(list((page / "history").iterdir())) <= 9  # the default keep = 10


def test_a_second_publisher_gives_up_naming_the_holder(race: Race) -> None:
    lock = race.site / SITE_LOCK
    race.site.mkdir(exist_ok=True)
    with held_lock(lock, purpose="test holding the site"):
        code, stderr = finish(start_publish(race, 0, wait="0"))
    assert code == EXIT_PROBLEMS
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: another publish to "), stderr
    assert f"pid {os.getpid()} holds {lock}" in lines[0]


def test_a_publish_waits_for_the_build_of_its_folder(race: Race) -> None:
    lock = race.build_dir(1) / BUILD_LOCK
    with held_lock(lock, purpose="test holding the build"):
        code, stderr = finish(start_publish(race, 1, wait="0"))
    assert code == EXIT_PROBLEMS
    assert f"another build or publish of {race.build_dir(1)} is running" in stderr
    assert f"pid {os.getpid()} holds {lock}" in stderr
