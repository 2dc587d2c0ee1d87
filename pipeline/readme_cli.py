"""The README's `tujie` command section, generated from the argparse parser so it never goes stale
(as simonw/llm does with cog): a table of the commands, then each command's options.

    python -m pipeline.readme_cli            rewrite the block between the markers in README.md
    python -m pipeline.readme_cli --check    exit 1 when README.md differs from the parser

`make readme` runs the first; `tests/foundation/test_cli_docs.py` does what `--check` does. The
text comes from the parser's own names, metavars and help strings only (never `format_help`, whose
layout changes with the terminal width and the Python version).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from pipeline.atomic import write_atomic
from pipeline.paths import REPO_ROOT

START = "<!-- tujie-help:start -->"
END = "<!-- tujie-help:end -->"
NOTE = "<!-- Generated from pipeline/cli_parser.py by `make readme`: edit the parser, not this. -->"
README = REPO_ROOT / "README.md"
STALE = "README.md's `tujie` command section differs from the parser: run `make readme`"


def _text(text: str) -> str:
    """Help text as Markdown table-cell text: `<name>` kept visible, `|` not a column break,
    code spans left as they are."""
    pieces = text.split("`")
    for i in range(0, len(pieces), 2):
        pieces[i] = pieces[i].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "`".join(pieces).replace("|", "\\|")


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Subcommand name → its parser, in the order they were added."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _shown(command: argparse.ArgumentParser) -> list[argparse.Action]:
    """The arguments a reader is told about: not --help, not the suppressed ones."""
    return [
        a
        for a in command._actions
        if not isinstance(a, argparse._HelpAction) and a.help != argparse.SUPPRESS
    ]


def _metavar(action: argparse.Action) -> str:
    if isinstance(action.metavar, str):
        return action.metavar
    return action.dest.upper()


def synopsis(name: str, command: argparse.ArgumentParser) -> str:
    """`tujie NAME` and its positional arguments (`[SRC]` when optional)."""
    words = [f"tujie {name}"]
    for action in _shown(command):
        if not action.option_strings:
            shown = _metavar(action)
            words.append(f"[{shown}]" if action.nargs == "?" else shown)
    return " ".join(words)


def _argument(action: argparse.Action) -> str:
    if not action.option_strings:
        return _metavar(action)
    flag = max(action.option_strings, key=len)
    return flag if action.nargs == 0 else f"{flag} {_metavar(action)}"


def command_table(parser: argparse.ArgumentParser) -> str:
    rows = ["| command | what it does |", "|---|---|"]
    for name, command in _commands(parser).items():
        rows.append(f"| `{synopsis(name, command)}` | {_text(command.description or '')} |")
    return "\n".join(rows)


def command_options(name: str, command: argparse.ArgumentParser) -> str:
    lines = [f"#### `{synopsis(name, command)}`", "", _text(command.description or ""), ""]
    shown = _shown(command)
    if not shown:
        return "\n".join([*lines, "No options."])
    lines += ["| argument | meaning |", "|---|---|"]
    lines += [f"| `{_argument(a)}` | {_text(a.help or '')} |" for a in shown]
    return "\n".join(lines)


def readme_block(parser: argparse.ArgumentParser) -> str:
    """Everything between the markers: the command table, then every command's options."""
    sections = [command_options(name, cmd) for name, cmd in _commands(parser).items()]
    return "\n".join(
        [
            NOTE,
            "",
            command_table(parser),
            "",
            "<details><summary>Every command's arguments</summary>",
            "",
            "\n\n".join(sections),
            "",
            "</details>",
        ]
    )


def replace_block(readme: str, block: str) -> str:
    """`readme` with the text between START and END replaced by `block`."""
    head, start, rest = readme.partition(START)
    _old, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError(f"README.md has no {START} … {END} block to fill")
    return f"{head}{START}\n{block}\n{END}{tail}"


def main(argv: Sequence[str] | None = None) -> int:
    from pipeline.cli_parser import build_parser

    args = argparse.ArgumentParser(prog="python -m pipeline.readme_cli", description=__doc__)
    args.add_argument("readme", nargs="?", default=str(README), help="the README to update")
    args.add_argument("--check", action="store_true", help="only report whether it is stale")
    options = args.parse_args(argv)
    path = Path(options.readme)
    current = path.read_text(encoding="utf-8")
    try:
        wanted = replace_block(current, readme_block(build_parser()))
    except ValueError as err:
        print(f"error: {path}: {err}", file=sys.stderr)
        return 2
    if wanted == current:
        return 0
    if options.check:
        print(f"error: {STALE}", file=sys.stderr)
        return 1
    write_atomic(path, wanted)
    print(f"{path}: command section regenerated", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
