"""The `tujie` command line: parse arguments, call one function per command (most are in
`pipeline.build.runner`), print what it returns, and turn errors into one line + exit code.

Exit codes: 0 ok · 1 problems found (check failed, publish refused) · 2 bad input or usage ·
3 environment missing (browser, fonts, API key, disk space) · 4 the LLM call failed ·
70 an internal error (a bug: `TUJIE_DEBUG=1` prints its traceback) · 130 interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pipeline.cli_parser import build_parser
from pipeline.errors import EXIT_INPUT, EXIT_PROBLEMS, TujieError, failure_line
from pipeline.terminal import json_for_terminal, terminal_safe

DEBUG_ENV = "TUJIE_DEBUG"


def _console(json_mode: bool) -> Any:
    from rich.console import Console

    return Console(stderr=json_mode, highlight=False)


def _print_json(data: object) -> None:
    sys.stdout.write(json_for_terminal(data) + "\n")


def _shown(text: object) -> str:
    """Untrusted text for a rich console: control characters escaped, and `[` not markup."""
    from rich.markup import escape

    return escape(terminal_safe(text))


def _stage_printer(console: Any) -> Callable[[Any], None]:
    def show(record: Any) -> None:
        if record.ran:
            note = _shown(record.note)
            console.print(f"[green]✓[/] {record.name:<7} {record.seconds:6.2f}s  {note}")
        else:
            console.print(f"[dim]· {record.name:<7}  skipped  (inputs unchanged)[/]")

    return show


def _prepare(args: argparse.Namespace) -> Any:
    from pipeline.build.state import prepare

    return prepare(Path(args.src), Path(args.out), force=getattr(args, "force", False))


def cmd_build(args: argparse.Namespace) -> int:
    from pipeline.build.runner import run_build
    from pipeline.errors import BuildProblems

    console = _console(args.json)
    build = _prepare(args)
    build.on_stage = _stage_printer(console)
    summary = run_build(build, until=args.until, allow_private=args.allow_private)
    timings = _timings(build) if getattr(args, "timings", False) else None
    if timings is not None:
        summary["timings"] = timings
    if args.json:
        _print_json(summary)
    else:
        _print_build_summary(console, build, summary)
        if timings is not None:
            _print_timings(console, timings)
    if summary.get("check_ok") is False:
        raise BuildProblems(
            f"the browser check found {summary['problems']} problem(s): see "
            f"{build.dir / 'check.json'} and the magenta outlines in {build.dir / 'shots'}"
        )
    return 0


def _timings(build: Any) -> dict[str, Any]:
    """Each stage's seconds, and the check's phases when the check ran in this build."""
    from pipeline.check.timing import TIMINGS_FILE, load_timings

    stages = {r.name: round(r.seconds, 3) for r in build.records if r.ran}
    check = load_timings(build.dir / TIMINGS_FILE) if "check" in stages else None
    return {"stages": stages, "check": check}


def _print_timings(console: Any, timings: dict[str, Any]) -> None:
    from pipeline.check.timing import format_timings

    stages = timings["stages"]
    console.print("stage times: " + ", ".join(f"{k} {v:.2f} s" for k, v in stages.items()))
    if timings["check"] is not None:
        for line in format_timings(timings["check"]):
            console.print(_shown(line))


def _print_build_summary(console: Any, build: Any, summary: dict[str, Any]) -> None:
    from rich.table import Table

    table = Table(title=f"tujie build · {build.name}", show_header=False, box=None)
    ran = [r.name for r in build.records if r.ran]
    table.add_row("stages run", ", ".join(ran) or "none (everything up to date)")
    table.add_row("output", _shown(build.dir))
    if "concepts" in summary:
        table.add_row("concepts", str(summary["concepts"]))
    if "links" in summary:
        counts = ", ".join(f"{n} {s}" for s, n in sorted(summary["links"].items()))
        table.add_row("links", _shown(counts))
    if "check_ok" in summary:
        table.add_row(
            "check", "clean" if summary["check_ok"] else f"{summary['problems']} problem(s)"
        )
    page = build.dir / "index.html"
    if page.exists():
        table.add_row("page", _shown(page))
    review = build.dir / "review.html"
    if "review_summary" in summary:
        table.add_row("changes", _shown(summary["review_summary"]))
    if review.exists():
        table.add_row("review", f"{_shown(review)}  → read it, then publish")
    console.print(table)


def cmd_ingest(args: argparse.Namespace) -> int:
    from pipeline.build.runner import run_ingest

    build = _prepare(args)
    corpus = run_ingest(build)
    if args.json:
        _print_json(json.loads(corpus.model_dump_json()))
        return 0
    console = _console(False)
    for s in corpus.sources:
        line = f"{s.id:<28} {s.kind:<4} {s.lang:<3} {s.words:>6} words  {s.title}"
        console.print(_shown(line))
        where = f"{s.url} (from {s.url_from})" if s.url else "no URL"
        console.print(_shown(f"    title from {s.title_from}; {where}"), soft_wrap=True)
    matched = [e for e in corpus.reading_list if e.matched_source]
    if corpus.reading_list:
        console.print(
            f"reading list: {len(matched)} of {len(corpus.reading_list)} entries have a saved "
            f"copy here ({len(corpus.unmatched)} unmatched, listed in sources.json)"
        )
    for e in matched:
        score = f", score {e.match_score:.2f}" if e.match_score is not None else ""
        line = f"    {e.title} ← {e.matched_source} (by {e.matched_by}{score}; {e.match_why})"
        console.print(_shown(line), soft_wrap=True)
    for k in corpus.skipped:
        console.print(f"[yellow]skipped[/] {_shown(k.path)}: {_shown(k.reason)}", soft_wrap=True)
    for w in corpus.warnings:
        console.print(f"[yellow]warning[/] {_shown(w.path)}: {_shown(w.warning)}", soft_wrap=True)
    console.print(f"→ {_shown(build.dir / 'sources.json')}")
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from pipeline.build.runner import extract_plan_for
    from pipeline.plan.bounds import bounds_from_options
    from pipeline.plan.model import dump_plan

    console = _console(args.json)
    bounds = bounds_from_options(args.max_calls, args.yes, args.deadline)  # before any work
    made = extract_plan_for(
        _prepare(args),
        refresh=args.refresh,
        save=args.save,
        force=args.force,
        bounds=bounds,
        notify=lambda line: console.print(_shown(line), soft_wrap=True),
    )
    console.print(
        f"plan: {len(made.plan.concepts)} concepts ({made.how} path"
        f"{', cached' if made.cached else ''}) → {_shown(made.path)}"
    )
    if made.saved is not None:
        console.print(
            f"saved for review → {_shown(made.saved)} (set meta.made_by to \"hand-reviewed\" "
            "once reviewed; builds use it instead of the LLM)"
        )
    console.print(_shown(made.usage_line))
    if args.json:
        _print_json(json.loads(dump_plan(made.plan)))
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from pipeline.build.runner import validate_plan

    valid = validate_plan(_prepare(args), Path(args.plan) if args.plan else None)
    if args.json:
        _print_json({"ok": True, "plan": str(valid.path), "concepts": valid.concepts})
    else:
        counts = f"{valid.concepts} concepts, {valid.route_stops} route stops"
        print(f"{terminal_safe(valid.path)}: valid ({counts})")
    return 0


def cmd_links(args: argparse.Namespace) -> int:
    from pipeline.build.runner import check_links_for

    build = _prepare(args)
    report = check_links_for(build, allow_private=args.allow_private, refresh=args.refresh)
    if args.json:
        _print_json(json.loads(report.model_dump_json()))
    else:
        for r in report.results:
            print(terminal_safe(f"{r.status:<19} {r.url}  {r.evidence}"))
        print(f"→ {terminal_safe(build.dir / 'links.json')}")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from pipeline.build.runner import run_build

    build = _prepare(args)
    run_build(build, until="render")
    print(terminal_safe(build.dir / "index.html"))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    args.until = "check"
    return cmd_build(args)


def cmd_review(args: argparse.Namespace) -> int:
    args.until = "review"
    return cmd_build(args)


def cmd_publish(args: argparse.Namespace) -> int:
    from pipeline.build.runner import publish_build

    result = publish_build(
        _prepare(args), allow_unverified=args.allow_unverified, to=args.to, push=args.push
    )
    if args.json:
        _print_json({"address": result.address, "bullets": result.bullets, "review": result.review})
        return 0
    print(f"Reviewed: {terminal_safe(result.review)}")
    print(f"Published: {terminal_safe(result.address)}")
    print("The page, top to bottom:")
    for b in result.bullets:
        print(f"  • {terminal_safe(b)}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from pipeline.plan.model import plan_json_schema

    _print_json(plan_json_schema())
    return 0


def cmd_fields(args: argparse.Namespace) -> int:
    from pipeline.fields.listing import field_listing, listing_lines

    listing = field_listing(Path(args.src) if args.src else None)
    if args.json:
        _print_json(listing)
    else:
        for line in listing_lines(listing):
            print(terminal_safe(line))
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from pipeline.doctor import diagnose
    from pipeline.errors import EnvironmentMissing

    report = diagnose(Path(args.out))
    if args.json:
        _print_json(report.as_json())
    else:
        for f in report.findings:
            mark = "ok" if f.ok else ("missing" if f.required else "not set")
            fix = f"  → {f.fix}" if f.fix else ""
            print(terminal_safe(f"{mark:<8} {f.name:<14} {f.detail}{fix}"))
    if report.missing:
        names = ", ".join(f.name for f in report.missing)
        raise EnvironmentMissing(f"`tujie build` needs what is missing here: {names} (fixes above)")
    return 0


def _report_spend(err: TujieError, *, json_mode: bool) -> None:
    """A failed extraction still cost money: say how much (and in --json, as JSON on stdout)."""
    from pipeline.errors import PlanRepairFailed

    if not isinstance(err, PlanRepairFailed):
        return
    from pipeline.plan.pricing import estimate_cost, spend_line, usage_dict

    print(spend_line(err.model, err.usage), file=sys.stderr)
    if json_mode:
        cost, _known = estimate_cost(err.model, err.usage)
        _print_json({"ok": False, "error": err.one_line(), "usage": usage_dict(err.usage, cost)})


# Each subcommand of `build_parser` → the function that runs it.
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "build": cmd_build,
    "ingest": cmd_ingest,
    "plan": cmd_plan,
    "validate": cmd_validate,
    "links": cmd_links,
    "render": cmd_render,
    "check": cmd_check,
    "review": cmd_review,
    "publish": cmd_publish,
    "schema": cmd_schema,
    "fields": cmd_fields,
    "doctor": cmd_doctor,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) and EXIT_INPUT
    command = COMMANDS.get(args.command or "")
    if command is None:
        parser.print_help()
        return EXIT_INPUT
    try:
        return command(args)
    except SystemExit:
        raise
    except BaseException as err:  # noqa: BLE001 - the boundary: every failure is one line
        return _fail(err, json_mode=bool(getattr(args, "json", False)))


def _fail(err: BaseException, *, json_mode: bool) -> int:
    """Print the one line for `err` (`pipeline.errors.failure_line`) and return its exit code.
    With TUJIE_DEBUG=1 an unexpected error keeps its traceback, for a bug report."""
    if isinstance(err, BrokenPipeError):
        # The reader of stdout went away (`tujie ingest | head`): nothing to say, and nothing
        # more may be written there, not even Python's own flush at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PROBLEMS
    if isinstance(err, KeyboardInterrupt):
        # the build has stopped and said so: a second Ctrl-C while Python tears down (a user
        # pressing twice, a worker's signal) must not turn exit 130 into a death by SIGINT
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    expected = isinstance(err, TujieError | KeyboardInterrupt)
    if os.environ.get(DEBUG_ENV) and not expected:
        traceback.print_exception(err)
    line, code = failure_line(err)
    print(f"error: {terminal_safe(line)}", file=sys.stderr)
    if isinstance(err, TujieError):
        _report_spend(err, json_mode=json_mode)
    return code


if __name__ == "__main__":
    sys.exit(main())
