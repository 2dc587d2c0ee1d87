"""The `tujie` command line: parse arguments, call the stages, turn errors into one line + exit code.

Exit codes: 0 ok · 1 problems found (check failed, publish refused) · 2 bad input or usage ·
3 environment missing (browser, fonts, API key) · 4 the LLM call failed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pipeline.errors import EXIT_INPUT, TujieError
from pipeline.terminal import json_for_terminal, terminal_safe

DEFAULT_SRC = "examples/llm-inference"
EPILOG = (
    "Exit codes: 0 ok, 1 problems found, 2 bad input or usage, 3 environment missing, 4 LLM failed."
)


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
    from pipeline.build.stages import run_build
    from pipeline.errors import BuildProblems

    console = _console(args.json)
    build = _prepare(args)
    build.on_stage = _stage_printer(console)
    summary = run_build(build, until=args.until, allow_private=args.allow_private)
    if args.json:
        _print_json(summary)
    else:
        _print_build_summary(console, build, summary)
    if summary.get("check_ok") is False:
        raise BuildProblems(
            f"the browser check found {summary['problems']} problem(s): see "
            f"{build.dir / 'check.json'} and the magenta outlines in {build.dir / 'shots'}"
        )
    return 0


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
    if review.exists():
        table.add_row("review", f"{_shown(review)}  → then `make publish`")
    console.print(table)


def cmd_ingest(args: argparse.Namespace) -> int:
    from pipeline.build.stages import stage_ingest
    from pipeline.build.state import build_lock

    with build_lock(_prepare(args)) as build:
        corpus = stage_ingest(build)
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
        line = f"    {e.title} ← {e.matched_source} (by {e.matched_by})"
        console.print(_shown(line), soft_wrap=True)
    for k in corpus.skipped:
        console.print(f"[yellow]skipped[/] {_shown(k.path)}: {_shown(k.reason)}", soft_wrap=True)
    for w in corpus.warnings:
        console.print(f"[yellow]warning[/] {_shown(w.path)}: {_shown(w.warning)}", soft_wrap=True)
    console.print(f"→ {_shown(build.dir / 'sources.json')}")
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from pipeline.atomic import write_atomic
    from pipeline.build.stages import apply_config, extract_with_llm, stage_ingest
    from pipeline.build.state import build_lock
    from pipeline.plan.extract import format_usage
    from pipeline.plan.model import dump_plan

    with build_lock(_prepare(args)) as build:
        corpus = stage_ingest(build)
        result = extract_with_llm(build, corpus, refresh=args.refresh)
        path = build.dir / "plan.json"
        plan = apply_config(result.plan, build.config, path)
        write_atomic(path, dump_plan(plan))
    console = _console(args.json)
    console.print(
        f"plan: {len(plan.concepts)} concepts ({result.path} path"
        f"{', cached' if result.cached else ''}) → {_shown(path)}"
    )
    console.print(_shown(format_usage(result)))
    if args.json:
        _print_json(json.loads(dump_plan(plan)))
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from pipeline.build.stages import apply_config, stage_ingest
    from pipeline.build.state import build_lock
    from pipeline.plan.model import load_plan
    from pipeline.plan.rules import check_plan
    from pipeline.simulate.results import run_sim, scenario_catalogue

    with build_lock(_prepare(args)) as build:
        corpus = stage_ingest(build)
    path = Path(args.plan) if args.plan else build.src / "plan.json"
    plan = apply_config(load_plan(path), build.config, path)
    check_plan(plan, corpus, file=path, scenario_ids=set(scenario_catalogue()))
    sim = run_sim(plan)
    check_plan(
        plan, corpus, file=path, values_for=sim.values, scenario_ids=set(scenario_catalogue())
    )
    if args.json:
        _print_json({"ok": True, "plan": str(path), "concepts": len(plan.concepts)})
    else:
        counts = f"{len(plan.concepts)} concepts, {len(plan.route)} route stops"
        print(f"{terminal_safe(path)}: valid ({counts})")
    return 0


def cmd_links(args: argparse.Namespace) -> int:
    from pipeline.build.stages import stage_ingest, stage_links, stage_plan
    from pipeline.build.state import build_lock

    with build_lock(_prepare(args)) as build:
        corpus = stage_ingest(build)
        plan = stage_plan(build, corpus)
        report = stage_links(
            build, plan, corpus, allow_private=args.allow_private, refresh=args.refresh
        )
    if args.json:
        _print_json(json.loads(report.model_dump_json()))
    else:
        for r in report.results:
            print(terminal_safe(f"{r.status:<19} {r.url}  {r.evidence}"))
        print(f"→ {terminal_safe(build.dir / 'links.json')}")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from pipeline.build.stages import run_build

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
    from pipeline.build.state import build_lock, inputs_hash
    from pipeline.publish.local import publish

    with build_lock(_prepare(args)) as build:
        result = publish(
            build.dir,
            Path(args.out) / "site",
            name=build.name,
            allow_unverified=args.allow_unverified,
            to=args.to,
            push=args.push,
            base_url=build.config.publish.base_url,
            current_inputs_hash=inputs_hash(build),
            keep=build.config.publish.keep,
        )
    if args.json:
        _print_json({"address": result.address, "bullets": result.bullets})
        return 0
    print(f"Published: {terminal_safe(result.address)}")
    print("The page, top to bottom:")
    for b in result.bullets:
        print(f"  • {terminal_safe(b)}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from pipeline.plan.model import plan_json_schema

    _print_json(plan_json_schema())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tujie",
        description="图解 tujie: turn a folder of learning material into one illustrated HTML page.",
        epilog=EPILOG,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(
        name: str,
        func: Callable[[argparse.Namespace], int],
        help_text: str,
        *,
        src: bool = True,
        json_flag: bool = True,
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text, epilog=EPILOG)
        if src:
            p.add_argument(
                "src",
                nargs="?",
                default=DEFAULT_SRC,
                help=f"the folder of articles (default: {DEFAULT_SRC})",
            )
            p.add_argument(
                "--out",
                default=os.environ.get("TUJIE_OUTPUT", "output"),
                help="the output root (default: output, or $TUJIE_OUTPUT)",
            )
        if json_flag:
            p.add_argument("--json", action="store_true", help="print machine-readable JSON")
        p.set_defaults(func=func)
        return p

    p = add(
        "build",
        cmd_build,
        "run every stage (ingest → plan → links → sim → render → check → review)",
    )
    p.add_argument(
        "--until",
        default="review",
        choices=["ingest", "plan", "links", "sim", "render", "check", "review"],
        help="stop after this stage",
    )
    p.add_argument("--force", action="store_true", help="re-run every stage even if unchanged")
    p.add_argument(
        "--allow-private",
        action="store_true",
        help="let the link check reach private/loopback addresses (tests)",
    )
    add("ingest", cmd_ingest, "read the folder into sources.json")
    p = add("plan", cmd_plan, "extract the plan with the LLM (needs ANTHROPIC_API_KEY)")
    p.add_argument("--refresh", action="store_true", help="ignore the cached LLM response")
    p = add("validate", cmd_validate, "check a plan.json against every page rule")
    p.add_argument("--plan", help="the plan file (default: SRC/plan.json)")
    p = add("links", cmd_links, "verify every link the page will show into links.json")
    p.add_argument("--refresh", action="store_true", help="ignore cached link results")
    p.add_argument(
        "--allow-private",
        action="store_true",
        help="let the check reach private/loopback addresses (tests)",
    )
    add("render", cmd_render, "build up to index.html", json_flag=False)
    for name, func, text in [
        ("check", cmd_check, "build, then check the page in headless Chrome"),
        ("review", cmd_review, "build, check, and write review.html"),
    ]:
        p = add(name, func, text)
        p.add_argument("--force", action="store_true", help="re-run every stage even if unchanged")
        p.add_argument("--allow-private", action="store_true", help=argparse.SUPPRESS)
    p = add("publish", cmd_publish, "publish the last reviewed build to output/site/<name>/")
    p.add_argument(
        "--allow-unverified",
        action="store_true",
        help="publish even though some links could not be verified",
    )
    p.add_argument("--to", help="DIR, or git:BRANCH to commit the site to a branch")
    p.add_argument("--push", action="store_true", help="with --to git:BRANCH, also push it")
    add("schema", cmd_schema, "print the JSON Schema of plan.json", src=False, json_flag=False)
    return parser


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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0) and EXIT_INPUT
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_INPUT
    try:
        return args.func(args)
    except TujieError as err:
        print(f"error: {terminal_safe(err.one_line())}", file=sys.stderr)
        _report_spend(err, json_mode=bool(getattr(args, "json", False)))
        return err.exit_code
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
