"""`python -m sim`: run | table | presets | sweep | train | calibrate | bench (see `--help` of each)."""

from __future__ import annotations

import argparse
import sys

from sim import cli
from sim.limits import DEFAULT_MAX_STEPS


def _max_steps_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-steps",
        type=_positive_int,
        default=DEFAULT_MAX_STEPS,
        help=f"stop with exit 2 past this many steps (default {DEFAULT_MAX_STEPS:,})",
    )


def _rates(text: str) -> list[float]:
    try:
        rates = [float(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of rates like 2,4,8") from None
    if not all(0 < rate < float("inf") for rate in rates):
        raise argparse.ArgumentTypeError(f"{text!r}: every rate must be a positive number")
    return rates


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1 or len(text) > 18:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (one subparser per command)."""
    parser = argparse.ArgumentParser(prog="python -m sim", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser(
        "run",
        help="simulate a workload, print the JSON trace",
        description="Simulate WORKLOAD.json (or --preset NAME) and print the trace.",
    )
    run.add_argument("workload", nargs="?", help="workload JSON file")
    run.add_argument("--preset", help="built-in preset, e.g. batching/with or golden-4")
    run.add_argument(
        "--detail",
        action="store_true",
        help="add per-step blocks/reserved/computed/tokens/block_table and engine/scenario metadata",
    )
    run.add_argument(
        "--indent", action="store_true", help="indent the JSON for humans (default: compact)"
    )
    run.add_argument(
        "--plain",
        action="store_true",
        help="use the plain reference step loop (same trace; by default the vectorised fast "
        "path runs wherever it applies)",
    )
    # Old scripts said --fast; the fast path is now chosen automatically.
    run.add_argument("--fast", action="store_true", help=argparse.SUPPRESS)
    _max_steps_option(run)

    table = sub.add_parser(
        "table",
        help="print a step table for humans",
        description="Rows = requests, columns = steps; see the legend printed below it.",
    )
    table.add_argument("workload", nargs="?", help="workload JSON file")
    table.add_argument("--preset", help="built-in preset, e.g. batching/with")
    table.add_argument(
        "--detail",
        action="store_true",
        help="add draft totals per step, acceptance, and each request's KV transfer",
    )
    _max_steps_option(table)

    sub.add_parser(
        "presets", help="list preset names", description="List every preset name and title."
    )

    sweep = sub.add_parser(
        "sweep",
        help="the ruler: how each technique moves throughput/TTFT/ITL",
        description="Run the documented seeded sweep workload; print JSON.",
    )
    sweep.add_argument(
        "--requests", type=int, default=None, help="number of requests (default 200)"
    )
    sweep.add_argument("--seed", type=int, default=None, help="generator seed (default 1)")
    sweep.add_argument(
        "--rates",
        type=_rates,
        default=None,
        help="latency-vs-load instead: Poisson request rates, e.g. 2,4,8 (requests/s)",
    )
    sweep.add_argument(
        "--workload", default=None, help="with --rates: a generated workload file to load"
    )

    train = sub.add_parser(
        "train",
        help="simulate one training step (pipeline, memory, collectives), print JSON",
        description="Simulate WORKLOAD.json (or --preset NAME): one step of data-, tensor- and "
        "pipeline-parallel training (SIM-TRAINING.md).",
    )
    train.add_argument("workload", nargs="?", help="training workload JSON file")
    train.add_argument("--preset", help="built-in training preset, e.g. pipeline-1f1b")
    train.add_argument("--list", action="store_true", help="list the training presets")
    train.add_argument(
        "--indent", action="store_true", help="indent the JSON for humans (default: compact)"
    )

    bench = sub.add_parser(
        "bench",
        help="time the plain loop and the fast path",
        description="SIM.md benchmark: 1000 seeded requests at t=0, unit cost.",
    )
    bench.add_argument(
        "--requests", type=int, default=1000, help="number of requests (default 1000)"
    )
    bench.add_argument(
        "--scale", action="store_true", help="also time 1k, 10k, 100k requests (fast path)"
    )
    bench.add_argument("--no-plain", action="store_true", help="skip the plain loop")

    calibrate = sub.add_parser(
        "calibrate",
        help="fit the calibrated cost model to published measurements and report its error",
        description="Predicted vs measured for sim/data/calibration/measurements.json, median, "
        "worst and leave-one-out errors (about 20 s).",
    )
    calibrate.add_argument(
        "--write", action="store_true", help="store the fit in sim/data/calibration/fitted.json"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    args = build_parser().parse_args(argv)
    if args.command == "run":
        return cli.guarded(
            lambda: cli.cmd_run(
                args.workload,
                args.preset,
                args.detail,
                plain=args.plain,
                indent=args.indent,
                max_steps=args.max_steps,
            )
        )
    if args.command == "table":
        return cli.guarded(
            lambda: cli.cmd_table(args.workload, args.preset, args.max_steps, args.detail)
        )
    if args.command == "presets":
        return cli.guarded(cli.cmd_presets)
    if args.command == "sweep":
        return cli.guarded(
            lambda: cli.cmd_sweep(args.requests, args.seed, args.rates, args.workload)
        )
    if args.command == "train":
        if args.list:
            return cli.guarded(cli.cmd_train_presets)
        return cli.guarded(lambda: cli.cmd_train(args.workload, args.preset, indent=args.indent))
    if args.command == "calibrate":
        return cli.guarded(lambda: cli.cmd_calibrate(args.write))
    from sim.bench import run_bench

    return cli.guarded(lambda: run_bench(args.requests, scale=args.scale, plain=not args.no_plain))


if __name__ == "__main__":
    sys.exit(main())
