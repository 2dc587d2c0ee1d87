"""Memory per GPU: model states under ZeRO 0-3 and activations under tp, pp and recomputation.

Model states (mixed-precision Adam, Rajbhandari et al., "ZeRO", SC'20), per parameter a GPU
holds (Ψ = the parameters of its pipeline stages divided by tp; N = dp):

==============  =======  ======  ======  ======  ==================================
bytes           ZeRO-0   ZeRO-1  ZeRO-2  ZeRO-3  what
==============  =======  ======  ======  ======  ==================================
bf16 params     2        2       2       2/N
bf16 grads      2        2       2/N     -       ZeRO-3: only a layer's, in the buffer
fp32 grads      4        4/N     4/N     4/N     accounting "deepspeed" only
fp32 master     4        4/N     4/N     4/N     } the paper's K = 12
Adam m and v    8        8/N     8/N     8/N     }
gather buffer   -        -       -       4·W     W = largest weight on the GPU
==============  =======  ======  ======  ======  ==================================

With accounting ``deepspeed`` (the default) these are DeepSpeed's own estimators, which also
count the fp32 gradient partition its optimizer steps on: ``estimate_zero2_model_states_mem_
needs`` gives ``2Ψ + 18Ψ/N`` and ``estimate_zero3_...`` ``4·W + 18Ψ/N`` (`tests/sim/oracles`).
With ``zero_paper`` it is the ZeRO paper's 2Ψ + 2Ψ + 12Ψ, sharded as its stages say, with no
fp32 gradient copy and no gather buffer.

Activations (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
Models", bf16), per layer and micro-batch of ``b`` sequences of ``s`` tokens, hidden ``h``,
``a`` heads, tp degree ``t``:

- no recomputation: ``s·b·h·(34 + 5·a·s/h)`` without tp; ``s·b·h·(10 + 24/t + 5·a·s/(h·t))``
  with tp; ``s·b·h/t·(34 + 5·a·s/h)`` with tp and sequence parallelism;
- selective (attention core recomputed): the same without the ``5·a·s/h`` term;
- full: ``2·s·b·h`` (``/t`` with sequence parallelism), the layer's input only.

A stage's activations times the number of micro-batches it holds at the worst moment of its
rank's order (`sim.training.timeline.peak_live`): GPipe holds all ``m``, 1F1B ``pp - rank``.
"""

from __future__ import annotations

from dataclasses import dataclass

from sim.training.schedules import Action
from sim.training.spec import ModelArch, Parallel, TrainWorkload
from sim.training.timeline import peak_live

BF16 = 2


@dataclass(frozen=True)
class StageParams:
    """Parameters of one virtual stage, before tp: its blocks and embeddings."""

    layers: int
    params: int
    largest: int  # the largest single weight in it


def stage_params(model: ModelArch, stages: int) -> list[StageParams]:
    """Per virtual stage: ``layers / stages`` blocks; the token embedding (and whatever the
    given total has beyond the counted shape: position embeddings, biases) on the first, the
    output layer and final norm on the last (a tied output layer is a copy there when
    ``stages > 1``, as Megatron keeps it)."""
    per = model.layers // stages
    block = per * model.layer_params
    emb = model.embedding_params
    extra = model.params - model.counted_params
    out: list[StageParams] = []
    for s in range(stages):
        params, largest = block, max(model.hidden * model.ffn, model.hidden * model.hidden)
        if s == 0:
            params += emb + extra
            largest = max(largest, emb)
        if s == stages - 1:
            head = emb if (not model.tied_embeddings or stages > 1) else 0
            params += head + model.hidden
            largest = max(largest, emb)
        out.append(StageParams(per, params, largest))
    return out


def rank_params(model: ModelArch, par: Parallel) -> list[int]:
    """Parameters held by each pipeline rank's GPUs (its stages, divided by tp)."""
    stages = stage_params(model, par.stages)
    return [
        sum(stages[r + k * par.pp].params for k in range(par.virtual_stages)) // par.tp
        for r in range(par.pp)
    ]


def model_state_bytes(
    psi: float, largest: float, zero: int, dp: int, accounting: str
) -> dict[str, float]:
    """The model-state parts (bytes) of one GPU holding `psi` parameters (after tp) whose
    largest single weight has `largest` parameters (after tp); see the module's table."""
    deepspeed = accounting == "deepspeed"
    optimizer_shards = dp if zero >= 1 else 1
    # DeepSpeed's ZeRO-3 keeps a layer's bf16 gradients only while it reduce-scatters them,
    # in the per-layer buffer; the paper shards them like the rest.
    grads_bf16 = 0.0 if zero >= 3 and deepspeed else BF16 * psi / (dp if zero >= 2 else 1)
    return {
        "params_bf16": BF16 * psi / (dp if zero >= 3 else 1),
        "grads_bf16": grads_bf16,
        "grads_fp32": (4.0 if deepspeed else 0.0) * psi / optimizer_shards,
        "master_fp32": 4.0 * psi / optimizer_shards,
        "adam_states": 8.0 * psi / optimizer_shards,
        "gather_buffer": 4.0 * largest if zero >= 3 and deepspeed else 0.0,
    }


def layer_activation_bytes(w: TrainWorkload) -> float:
    """Korthikanti et al.'s per-layer activation bytes for one micro-batch on one GPU."""
    s, b, h = w.batch.seq_len, w.batch.micro_batch, w.model.hidden
    a, t, sp = w.model.heads, w.parallel.tp, w.parallel.sequence_parallel
    sbh = s * b * h
    if w.recompute == "full":
        return 2.0 * sbh / (t if sp else 1)
    attention = 0.0 if w.recompute == "selective" else 5.0 * a * s / h
    if sp:
        return sbh / t * (34.0 + attention)
    if t == 1:
        return sbh * (34.0 + attention)
    return sbh * (10.0 + 24.0 / t + attention / t)


def memory_per_rank(w: TrainWorkload, orders: list[list[Action]]) -> list[dict[str, object]]:
    """Per pipeline rank: params, grads, optimizer, activations, buffers, total, hbm, fits
    (bytes, rounded), the finer parts, the parameters it holds (after tp), and
    `microbatches_held`: the most (stage, micro-batch) activations it holds at once (with
    interleaving a micro-batch counts once per stage of the rank that holds it)."""
    par, model = w.parallel, w.model
    stages = stage_params(model, par.stages)
    per_layer = layer_activation_bytes(w)
    weight = [st.layers * per_layer for st in stages]
    out: list[dict[str, object]] = []
    for rank, psi in enumerate(rank_params(model, par)):
        largest = max(stages[rank + k * par.pp].largest for k in range(par.virtual_stages))
        parts = model_state_bytes(psi, largest / par.tp, par.zero, par.dp, w.accounting)
        activations = peak_live(orders[rank], weight)
        held = peak_live(orders[rank], [1.0] * par.stages)
        grouped = {
            "params": parts["params_bf16"],
            "grads": parts["grads_bf16"] + parts["grads_fp32"],
            "optimizer": parts["master_fp32"] + parts["adam_states"],
            "activations": activations,
            "buffers": parts["gather_buffer"],
        }
        total = sum(grouped.values())
        out.append(
            {
                **{k: round(v) for k, v in grouped.items()},
                "total": round(total),
                "hbm": w.hardware.hbm_bytes,
                "fits": total <= w.hardware.hbm_bytes,
                "parts": {k: round(v) for k, v in parts.items()},
                "param_count": psi,
                "microbatches_held": int(held),
                "activation_per_layer": round(per_layer),
            }
        )
    return out
