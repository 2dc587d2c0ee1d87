"""The `tujie` command line's arguments: one subcommand per stage or tool, each with `--help`.
`pipeline.cli` runs them; the README's command section is generated from this parser
(`make readme`, `pipeline.readme_cli`), so a change here shows up there.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from pipeline.build import STAGES
from pipeline.plan.bounds import CALL_DEADLINE_S, DEFAULT_MAX_CALLS, PLAN_DEADLINE_S

DEFAULT_SRC = "examples/llm-inference"
EPILOG = (
    "Exit codes: 0 ok, 1 problems found, 2 bad input or usage, 3 environment missing (or a full "
    "disk), 4 LLM failed, 70 internal error, 130 interrupted."
)
Subparsers = Any  # what `add_subparsers` returns (argparse's _SubParsersAction is private)


def build_parser() -> argparse.ArgumentParser:
    """The `tujie` parser: `args.command` names the subcommand, `pipeline.cli.COMMANDS` runs it."""
    parser = argparse.ArgumentParser(
        prog="tujie",
        description="图解 tujie: turn a folder of learning material into one illustrated HTML page.",
        epilog=EPILOG,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_build(sub)
    _add_plan_commands(sub)
    _add_links(sub)
    _add_page_commands(sub)
    _add_publish(sub)
    _add_tools(sub)
    return parser


def _command(
    sub: Subparsers,
    name: str,
    help_text: str,
    *,
    src: bool = True,
    out: bool = True,
    json_flag: bool = True,
) -> argparse.ArgumentParser:
    """A subcommand with the options most share: SRC, --out, --json."""
    p: argparse.ArgumentParser = sub.add_parser(
        name, help=help_text, description=help_text, epilog=EPILOG
    )
    if src:
        p.add_argument(
            "src",
            nargs="?",
            metavar="SRC",
            default=DEFAULT_SRC,
            help=f"the folder of articles (default: {DEFAULT_SRC})",
        )
    if out:
        p.add_argument(
            "--out",
            default=os.environ.get("TUJIE_OUTPUT", "output"),
            help="the output root (default: output, or $TUJIE_OUTPUT)",
        )
    if json_flag:
        p.add_argument("--json", action="store_true", help="print machine-readable JSON")
    return p


def _force(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true", help="re-run every stage even if unchanged")


def _allow_private(p: argparse.ArgumentParser, help_text: str) -> None:
    p.add_argument("--allow-private", action="store_true", help=help_text)


def _add_build(sub: Subparsers) -> None:
    p = _command(
        sub,
        "build",
        "run every stage (ingest → plan → links → sim → render → check → review)",
    )
    p.add_argument(
        "--until",
        default="review",
        choices=STAGES,
        metavar="STAGE",
        help="stop after this stage: ingest, plan, links, sim, render, check or review "
        "(default: review)",
    )
    _force(p)
    _allow_private(p, "let the link check reach private/loopback addresses (tests)")
    _timings(p)


def _timings(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--timings",
        action="store_true",
        help="print each stage's time and where the browser check spent its time",
    )


def _add_plan_commands(sub: Subparsers) -> None:
    _command(sub, "ingest", "read the folder into sources.json (and list skipped files)")
    p = _command(
        sub,
        "plan",
        "extract the plan with the LLM into the output's plan.json (needs ANTHROPIC_API_KEY)",
    )
    p.add_argument("--refresh", action="store_true", help="ignore the cached LLM response")
    p.add_argument(
        "--save",
        action="store_true",
        help="also copy the plan to SRC/plan.json for review (builds then use it, no LLM)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="with --save, overwrite a plan.json already in SRC (e.g. a hand-reviewed one)",
    )
    _spend_bounds(p)
    p = _command(
        sub,
        "validate",
        "check SRC/plan.json (or --plan FILE) against every page rule, simulator numbers filled in",
    )
    p.add_argument("--plan", metavar="FILE", help="the plan file (default: SRC/plan.json)")


def _spend_bounds(p: argparse.ArgumentParser) -> None:
    cap = p.add_mutually_exclusive_group()
    cap.add_argument(
        "--max-calls",
        type=int,
        metavar="N",
        help=f"allow up to N paid model calls for this plan (default {DEFAULT_MAX_CALLS}; the "
        "notes path for a large folder makes one per article, and over the cap the plan is "
        "refused with its estimated cost)",
    )
    cap.add_argument(
        "--yes",
        action="store_true",
        help="go ahead however many model calls the plan needs (its estimate is still printed)",
    )
    p.add_argument(
        "--deadline",
        type=float,
        metavar="MIN",
        default=PLAN_DEADLINE_S / 60,
        help=f"stop the whole plan after MIN minutes, printing what it spent (default "
        f"{PLAN_DEADLINE_S / 60:.0f}; one model call stops after {CALL_DEADLINE_S / 60:.0f})",
    )


def _add_links(sub: Subparsers) -> None:
    p = _command(sub, "links", "verify every link the page will show into links.json")
    p.add_argument(
        "--refresh",
        action="store_true",
        help="re-check every link, ignoring cached results (each time it is given)",
    )
    _allow_private(p, "let the check reach private/loopback addresses (tests)")


def _add_page_commands(sub: Subparsers) -> None:
    _command(sub, "render", "build up to index.html", json_flag=False)
    for name, text in [
        ("check", "build, then check the page in headless Chrome"),
        ("review", "build, check, and write review.html"),
    ]:
        p = _command(sub, name, text)
        _force(p)
        _allow_private(p, argparse.SUPPRESS)
        _timings(p)


def _add_publish(sub: Subparsers) -> None:
    p = _command(sub, "publish", "publish the last reviewed build to output/site/<name>/")
    p.add_argument(
        "--allow-unverified",
        action="store_true",
        help="publish even though some links could not be verified",
    )
    p.add_argument(
        "--to",
        metavar="DEST",
        help="publish to another folder DIR (outside the source and build folders), or commit "
        "the site to git:BRANCH (a branch nobody has checked out)",
    )
    p.add_argument("--push", action="store_true", help="with --to git:BRANCH, also push it")


def _add_tools(sub: Subparsers) -> None:
    _command(
        sub,
        "schema",
        "print the JSON Schema of plan.json",
        src=False,
        out=False,
        json_flag=False,
    )
    fields = _command(
        sub,
        "fields",
        "list the fields a page can be drawn with (scenes, scenarios, knobs, ruler); with SRC, "
        "which the folder's articles are about",
        src=False,
        out=False,
    )
    fields.add_argument(
        "src", nargs="?", metavar="SRC", default=None,
        help="a folder of articles: also show its field scores and the fields chosen",
    )
    _command(
        sub,
        "doctor",
        "report Chromium, fonts, axe-core, API key and folders, each with its fix",
        src=False,
    )
