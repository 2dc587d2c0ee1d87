"""Record the training simulator's goldens from the real implementations (not a test).

Run it with an interpreter that has the oracles, never the project's venv (they are not
dependencies of tujie; the tests read only the JSON this writes):

    python3.11 -m venv /work/wt/oracle-venv
    /work/wt/oracle-venv/bin/pip install torch==2.13.0 deepspeed transformers
    /work/wt/oracle-venv/bin/python tests/sim/oracles/record_training_goldens.py \\
        --nccl-tests PATH/TO/nccl-tests

It writes `tests/sim/golden_train/`:
- ``orders.json``: per-rank action orders of torch.distributed.pipelining's ScheduleGPipe,
  Schedule1F1B (the calls their ``_step_microbatches`` makes on a stage whose communication is
  stubbed: every recv/send list is empty) and ScheduleInterleaved1F1B (its
  ``_calculate_single_rank_operations``, idle slots dropped), for pp in {2, 4, 8},
  m in {pp, 2pp, 4pp}, v in {1, 2} (v only for the interleaved schedule);
- ``memory.json``: DeepSpeed's ``estimate_zero2_model_states_mem_needs`` and
  ``estimate_zero3_model_states_mem_needs`` (optimizer and params on the GPU) for real models
  built by transformers on the meta device (parameter counts as DeepSpeed's ``model_to_params``
  takes them), and the printed table of ``estimate_zero{2,3}_model_states_mem_needs_all_live``
  for a small model with real weights;
- ``collectives.json``: for each op, group size, size and bus bandwidth, the time at which
  nccl-tests' own ``*GetBw`` functions (compiled from the checkout with the system C compiler)
  report exactly that bus bandwidth.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import io
import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parents[1] / "golden_train"
PP_SIZES = (2, 4, 8)


# --- pipeline orders (torch) ------------------------------------------------------------------


class _StubStage:
    """A pipeline stage whose communication is empty and whose compute records its calls."""

    def __init__(self, stage_index: int, num_stages: int, group_size: int, rank: int) -> None:
        self.stage_index, self.num_stages = stage_index, num_stages
        self.group_size, self.group_rank = group_size, rank
        self.is_first, self.is_last = stage_index == 0, stage_index == num_stages - 1
        self.calls: list[list[Any]] = []

    def get_fwd_recv_ops(self, i: int) -> list[Any]:
        return []

    get_fwd_send_ops = get_bwd_recv_ops = get_bwd_send_ops = get_fwd_recv_ops

    def forward_one_chunk(self, i: int, *args: Any, **kwargs: Any) -> None:
        self.calls.append(["F", self.stage_index, i])

    def backward_one_chunk(self, i: int, **kwargs: Any) -> None:
        self.calls.append(["B", self.stage_index, i])

    def perform_reduce_grad(self, *args: Any) -> None:
        pass

    def clear_runtime_states(self) -> None:
        pass


def _single_stage_orders(cls: Any, pp: int, m: int) -> dict[str, list[list[Any]]]:
    orders = {}
    for rank in range(pp):
        stage = _StubStage(rank, pp, pp, rank)
        schedule = cls(stage, m)
        schedule._initialize_stage = lambda *a, **k: None  # no process group: nothing to set up
        schedule._step_microbatches()
        orders[str(rank)] = stage.calls
    return orders


def _interleaved_orders(cls: Any, pp: int, m: int, v: int) -> dict[str, list[list[Any]]]:
    from torch.distributed.pipelining.schedules import _ComputationType

    kinds = {_ComputationType.FORWARD: "F", _ComputationType.FULL_BACKWARD: "B"}
    orders = {}
    for rank in range(pp):
        stages = [_StubStage(rank + k * pp, pp * v, pp, rank) for k in range(v)]
        schedule = cls(stages, m)
        ops = schedule._calculate_single_rank_operations(rank)
        orders[str(rank)] = [
            [kinds[a.computation_type], a.stage_index, a.microbatch_index]
            for a in ops
            if a is not None
        ]
    return orders


def record_orders() -> dict[str, Any]:
    import torch
    from torch.distributed.pipelining import schedules

    cases = []
    for pp in PP_SIZES:
        for m in (pp, 2 * pp, 4 * pp):
            for name, cls in (("gpipe", schedules.ScheduleGPipe), ("1f1b", schedules.Schedule1F1B)):
                cases.append(
                    {
                        "schedule": name,
                        "pp": pp,
                        "m": m,
                        "v": 1,
                        "orders": _single_stage_orders(cls, pp, m),
                    }
                )
            for v in (1, 2):
                cases.append(
                    {
                        "schedule": "interleaved_1f1b",
                        "pp": pp,
                        "m": m,
                        "v": v,
                        "orders": _interleaved_orders(schedules.ScheduleInterleaved1F1B, pp, m, v),
                    }
                )
    return {"oracle": f"torch {torch.__version__}", "cases": cases}


# --- model-state memory (DeepSpeed) -----------------------------------------------------------


def _meta_models() -> dict[str, Any]:
    import torch
    from transformers import (
        GPT2Config,
        GPT2LMHeadModel,
        LlamaConfig,
        LlamaForCausalLM,
        MistralConfig,
        MistralForCausalLM,
    )

    def llama(h: int, ffn: int, heads: int, layers: int) -> Any:
        return LlamaForCausalLM(
            LlamaConfig(
                hidden_size=h,
                intermediate_size=ffn,
                num_attention_heads=heads,
                num_key_value_heads=8,
                num_hidden_layers=layers,
                vocab_size=128256,
                tie_word_embeddings=False,
            )
        )

    with torch.device("meta"):
        return {
            "llama-3-8b": llama(4096, 14336, 32, 32),
            "llama-3-70b": llama(8192, 28672, 64, 80),
            "mistral-7b": MistralForCausalLM(
                MistralConfig(
                    hidden_size=4096,
                    intermediate_size=14336,
                    num_attention_heads=32,
                    num_key_value_heads=8,
                    num_hidden_layers=32,
                    vocab_size=32000,
                    tie_word_embeddings=False,
                )
            ),
            "gpt-3-175b": GPT2LMHeadModel(
                GPT2Config(n_embd=12288, n_layer=96, n_head=96, n_positions=2048, vocab_size=50257)
            ),
        }


def _counts(model: Any) -> tuple[int, int]:
    """DeepSpeed's stage3 ``model_to_params``, deduplicating shared tensors by identity (meta
    tensors have no storage, so ``data_ptr`` cannot tell them apart)."""
    total = sum(p.numel() for p in model.parameters())  # parameters() yields a tied one once
    largest = max(sum(p.numel() for p in mod.parameters(recurse=False)) for mod in model.modules())
    return total, largest


def _gpu_estimates(total: int, largest: int, per_node: int, nodes: int) -> dict[str, int]:
    from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs
    from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs

    _, zero2 = estimate_zero2_model_states_mem_needs(
        total, num_gpus_per_node=per_node, num_nodes=nodes, cpu_offload=False
    )
    _, zero3, _ = estimate_zero3_model_states_mem_needs(
        total,
        largest,
        num_gpus_per_node=per_node,
        num_nodes=nodes,
        cpu_offload=False,
        cpu_offload_params=False,
        zero_init=True,
    )
    return {"zero2": int(zero2), "zero3": int(zero3)}


def _live_table(model: Any, per_node: int, nodes: int) -> dict[str, float]:
    """The GB the ``_all_live`` estimators print for 'offload_optimizer=none' (GPU column)."""
    from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs_all_live
    from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs_all_live

    out = {}
    for name, fn in (
        ("zero2", estimate_zero2_model_states_mem_needs_all_live),
        ("zero3", estimate_zero3_model_states_mem_needs_all_live),
    ):
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            fn(model, num_gpus_per_node=per_node, num_nodes=nodes)
        rows = [line for line in text.getvalue().splitlines() if "offload_optimizer=none" in line]
        out[name] = float(re.findall(r"([\d.]+)GB", rows[0])[1])  # per CPU | per GPU
    return out


def record_memory() -> dict[str, Any]:
    import deepspeed
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    machines = [(1, 1), (8, 1), (8, 4), (8, 16)]
    cases = []
    for model_id, model in _meta_models().items():
        total, largest = _counts(model)
        for per_node, nodes in machines:
            cases.append(
                {
                    "model": model_id,
                    "gpus_per_node": per_node,
                    "nodes": nodes,
                    "total_params": total,
                    "largest_layer_params": largest,
                    **_gpu_estimates(total, largest, per_node, nodes),
                }
            )
    # ~187M parameters with real (CPU) weights: enough for the printed GB to have 3 digits
    shape = {"layers": 8, "hidden": 1024, "heads": 16, "kv_heads": 4, "ffn": 4096, "vocab": 32000}
    torch.manual_seed(0)
    small = LlamaForCausalLM(
        LlamaConfig(
            hidden_size=1024,
            intermediate_size=4096,
            num_attention_heads=16,
            num_key_value_heads=4,
            num_hidden_layers=8,
            vocab_size=32000,
            tie_word_embeddings=False,
        )
    )
    total, largest = _counts(small)
    live = {
        "model": shape,
        "total_params": total,
        "largest_layer_params": largest,
        "gpus_per_node": 4,
        "nodes": 1,
        **_gpu_estimates(total, largest, 4, 1),
        "printed_gb": _live_table(small, 4, 1),
    }
    return {"oracle": f"deepspeed {deepspeed.__version__}", "cases": cases, "live": live}


# --- collectives (nccl-tests) -----------------------------------------------------------------

# op -> (source file in nccl-tests/src, function)
_GETBW = {
    "all_reduce": ("all_reduce", "AllReduceGetBw"),
    "all_gather": ("all_gather", "AllGatherGetBw"),
    "reduce_scatter": ("reduce_scatter", "ReduceScatterGetBw"),
    "send_recv": ("sendrecv", "SendRecvGetBw"),
}


def _compile_getbw(nccl_tests: Path, build: Path) -> Any:
    """nccl-tests' bus-bandwidth functions, cut out of src/*.cu and compiled as plain C."""
    bodies = []
    for src, fn in _GETBW.values():
        source = (nccl_tests / "src" / f"{src}.cu").read_text(encoding="utf-8")
        match = re.search(r"void " + fn + r"\(.*?\n}\n", source, re.S)
        if match is None:
            raise SystemExit(f"{fn} not found in {src}.cu")
        bodies.append(match.group(0))
    c_file, lib = build / "getbw.c", build / "getbw.so"
    c_file.write_text("#include <stddef.h>\n" + "\n".join(bodies), encoding="utf-8")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(lib), str(c_file)], check=True)
    return ctypes.CDLL(str(lib))


def record_collectives(nccl_tests: Path) -> dict[str, Any]:
    revision = subprocess.run(
        ["git", "-C", str(nccl_tests), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        lib = _compile_getbw(nccl_tests, Path(tmp))
        for op, (_, fn) in _GETBW.items():
            getbw = getattr(lib, fn)
            getbw.argtypes = [
                ctypes.c_size_t,
                ctypes.c_size_t,
                ctypes.c_double,
                ctypes.POINTER(ctypes.c_double),
                ctypes.POINTER(ctypes.c_double),
                ctypes.c_int,
            ]
            for n in (2,) if op == "send_recv" else (2, 4, 8, 16, 64, 512):
                for nbytes in (2**20, 2**26, 2**30, 16 * 10**9):  # all divide by every n
                    # nccl-tests' count is per rank for all-gather and reduce-scatter
                    count = nbytes // n if op in ("all_gather", "reduce_scatter") else nbytes
                    for bus in (450e9, 50e9, 25e9):
                        alg, busbw = ctypes.c_double(), ctypes.c_double()
                        getbw(count, 1, 1.0, ctypes.byref(alg), ctypes.byref(busbw), n)
                        # busbw scales as 1/sec: the time that reports `bus` (GB/s there)
                        seconds = busbw.value * 1e9 / bus
                        cases.append(
                            {
                                "op": op,
                                "n": n,
                                "bytes": nbytes,
                                "bus_bandwidth": bus,
                                "time": seconds,
                            }
                        )
    return {"oracle": f"nccl-tests {revision or 'unknown revision'} *GetBw", "cases": cases}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nccl-tests", type=Path, required=True, help="an nccl-tests checkout")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in (
        ("orders", record_orders()),
        ("memory", record_memory()),
        ("collectives", record_collectives(args.nccl_tests)),
    ):
        path = OUT / f"{name}.json"
        path.write_text(
            json.dumps(data, indent=None, separators=(",", ":")) + "\n", encoding="utf-8"
        )
        print(f"wrote {path} ({len(data['cases'])} cases, {data['oracle']})")


if __name__ == "__main__":
    main()
