"""The bounds a training workload must respect, checked while it is parsed, before any work.

Past one: `LimitExceeded` (exit 2) naming the bound. They keep every run well under a second
or two on a small machine and every number far from float overflow; real jobs sit far inside
them (Llama 3 405B: 16,384 GPUs, 126 layers).
"""

from __future__ import annotations

from sim.errors import LimitExceeded

MAX_GPUS = 131_072
MAX_MICROBATCHES = 16_384
MAX_LAYERS = 1_024
MAX_VIRTUAL_STAGES = 64
# Every rank's forwards and backwards together (2 · m · pp · v): the timeline holds one record
# per action (~100 bytes of JSON). A step of 1,024 GPUs with pp 16 and 256 micro-batches has
# 8,192; Megatron-LM's 1T-parameter run (pp 64, 512 micro-batches) 65,536, 131,072 interleaved.
MAX_PIPELINE_ACTIONS = 262_144
MAX_SEQ_LEN = 10_000_000
MAX_HIDDEN = 1_000_000
MAX_VOCAB = 100_000_000
MAX_GLOBAL_BATCH = 1_000_000_000
MAX_PARAMS = 10**15

_BOUNDS = {
    "gpus": (MAX_GPUS, "MAX_GPUS"),
    "micro-batches per pipeline": (MAX_MICROBATCHES, "MAX_MICROBATCHES"),
    "layers": (MAX_LAYERS, "MAX_LAYERS"),
    "virtual stages": (MAX_VIRTUAL_STAGES, "MAX_VIRTUAL_STAGES"),
    "pipeline actions (2 · micro-batches · pp · virtual stages)": (
        MAX_PIPELINE_ACTIONS,
        "MAX_PIPELINE_ACTIONS",
    ),
    "tokens per sequence": (MAX_SEQ_LEN, "MAX_SEQ_LEN"),
    "hidden size": (MAX_HIDDEN, "MAX_HIDDEN"),
    "vocabulary": (MAX_VOCAB, "MAX_VOCAB"),
    "sequences per step": (MAX_GLOBAL_BATCH, "MAX_GLOBAL_BATCH"),
    "parameters": (MAX_PARAMS, "MAX_PARAMS"),
}


def check_bound(what: str, value: int, path: str) -> int:
    """`value` if it is within the bound named `what` (a key of `_BOUNDS`), else raise."""
    limit, name = _BOUNDS[what]
    if value > limit:
        # a number of hundreds of digits is named by its size, not spelled out
        shown = f"{value:,}" if value < 10**24 else f"a {len(str(value))}-digit number of"
        raise LimitExceeded(path, f"{shown} {what} exceed the bound of {limit:,} ({name})")
    return value
