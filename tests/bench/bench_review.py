"""Benchmark of the review stage on the example: the example built and published, then a
one-character body edit built (real Chromium screenshots), then its review written a few times.

Run: `.venv/bin/python tests/bench/bench_review.py [WORK_DIR]`. Prints the review stage's wall
time (best and median of the runs, and the screenshot diff alone), the CPU time it used, and the
size of the review page with its images. The builds are kept in WORK_DIR (default: a folder
under the system's temp dir, reused when present), so a second run only reviews. Not collected by
pytest.
"""

from __future__ import annotations

import json
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()
REPO = HERE.parents[2]
sys.path.insert(0, str(REPO))

EXAMPLE = REPO / "examples" / "llm-inference"
NAME = EXAMPLE.name
RUNS = 5
TARGET_SECONDS = 1.0
TARGET_BYTES = 3_000_000


def build(work: Path, label: str, edit: bool) -> Path:
    """The example (its plan edited when `edit`) built through the check, once."""
    from pipeline.build.runner import run_build
    from pipeline.build.state import prepare

    src = work / label / NAME
    if not src.exists():
        shutil.copytree(EXAMPLE, src)
        if edit:
            plan = json.loads((src / "plan.json").read_text(encoding="utf-8"))
            plan["concepts"][4]["body"] = plan["concepts"][4]["body"].replace("，", "；", 1)
            (src / "plan.json").write_text(json.dumps(plan, ensure_ascii=False), encoding="utf-8")
    state = prepare(src, work / label / "out")
    run_build(state, until="check")
    return state.dir


def cpu_seconds() -> float:
    mine = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def main() -> int:
    from pipeline.artifacts.review import ReviewReport, page_fingerprint
    from pipeline.publish.local import publish
    from pipeline.review import report as review_report
    from pipeline.review.page import write_review

    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.gettempdir()) / "tujie-bench-review"
    site = work / "site"
    base = build(work, "base", edit=False)
    published = site / NAME / "index.html"
    if not published.exists() or page_fingerprint(site / NAME) != page_fingerprint(base):
        write_review(base, site / NAME)  # (re)publish the base as this code builds it
        publish(base, site, name=NAME, allow_unverified=True)
    edited = build(work, "edited", edit=True)

    diff_seconds: list[float] = []
    timed = review_report.compare_shots

    def compare_shots(jobs):  # type: ignore[no-untyped-def]
        started = time.perf_counter()
        try:
            return timed(jobs)
        finally:
            diff_seconds.append(time.perf_counter() - started)

    review_report.compare_shots = compare_shots
    walls, cpus = [], []
    for _ in range(RUNS):
        cpu, started = cpu_seconds(), time.perf_counter()
        write_review(edited, site / NAME)
        walls.append(time.perf_counter() - started)
        cpus.append(cpu_seconds() - cpu)
    report = ReviewReport.load(edited / "review.json")
    own = [p for p in (edited / "review").iterdir() if not p.name.startswith("baseline-")]
    size = (edited / "review.html").stat().st_size + sum(p.stat().st_size for p in own)
    print(f"review of the example after a one-character edit ({RUNS} runs, {work}):")
    print(f"  {report.summary}")
    print(
        f"  review stage {min(walls):.2f} s best, {statistics.median(walls):.2f} s median "
        f"(target < {TARGET_SECONDS:.1f} s); screenshot diff {min(diff_seconds):.2f} s best; "
        f"CPU {statistics.median(cpus):.2f} s"
    )
    print(
        f"  review page + images {size / 1e6:.2f} MB in {len(own) + 1} files "
        f"(target < {TARGET_BYTES / 1e6:.0f} MB; the full-page views link the screenshots)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
