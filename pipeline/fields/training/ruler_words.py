"""What each row of the training ruler is compared with, and on which workload, in the page's
language (P22: a ruler names its baselines and workloads). The sweep
(`sim.presets.training_sweep`) writes its rows in English (`label` "X vs Y", `workload` the
whole workload line); the Chinese words are written here from the same presets, with the same
numbers, and `tests/render/test_ruler_tradeoff.py` holds them to the sweep's."""

from __future__ import annotations

from pipeline.artifacts.sim import TechniqueView

# workload key -> (zh title, zh description, en title); the en description is the sweep's own
WORKLOADS = {
    "dp16": ("两台机器 16 卡数据并行",
             "Llama-3-8B，16 张 H100 分在 2 台机器，数据并行，每张卡每步 4 个微批、每批一条 2,048 "
             "token 的序列",
             "16 GPUs in 2 nodes, data parallel"),
    "dp8_recompute": ("单机 8 卡，大微批",
                      "Llama-3-8B，8 张 H100，ZeRO-1，每个微批 2 条 2,048 token 的序列",
                      "8 GPUs, larger micro-batches"),
    "70b": ("70B 大模型三维并行",
            "Llama-3-70B，64 张 H100：机内张量并行 8、流水线 4 段、数据并行 2，ZeRO-1，"
            "每步 64 条 8,192 token 的序列（32 个微批）",
            "a 70B model on 64 GPUs"),
    "70b_pp4": ("70B 大模型，流水线 4 段",
                "Llama-3-70B，64 张 H100，流水线 4 段，ZeRO-1，每步 64 条 8,192 token 的序列",
                "a 70B model, pipeline of 4"),
    "70b_3d": ("70B 大模型，8 台机器",
               "Llama-3-70B，64 张 H100 分在 8 台机器，数据并行 4 份，ZeRO-1，选择性重算，每步 64 条 "
               "4,096 token 的序列",
               "a 70B model on 8 nodes"),
    "dp16_batch128": ("两台机器 16 卡，每步 128 条序列",
                      "Llama-3-8B，16 张 H100 分在 2 台机器，数据并行加 ZeRO-1，序列长 2,048 token，"
                      "每步共 128 条序列",
                      "16 GPUs in 2 nodes, a batch of 128"),
    "dp16_mb4": ("两台机器 16 卡，每步 4 个微批",
                 "Llama-3-8B，16 张 H100 分在 2 台机器，数据并行加 ZeRO-1，序列长 2,048 token，"
                 "每张卡每步 4 个微批",
                 "16 GPUs in 2 nodes, 4 micro-batches"),
}
# technique id -> (zh baseline, en baseline, workload key)
PLAIN_DP = ("普通数据并行（每张卡存全套模型状态；这一行：{zh}）",
            "plain data parallelism (every GPU holds all model states; this row: {en})")


def _plain_dp(zh: str, en: str) -> tuple[str, str, str]:
    return PLAIN_DP[0].format(zh=zh), PLAIN_DP[1].format(en=en), "dp16"


ROWS = {
    "zero_1": _plain_dp("ZeRO-1，切分优化器状态", "ZeRO-1, the optimizer states sharded"),
    "zero_2": _plain_dp("ZeRO-2，梯度也切分，每个微批反向后都要 reduce-scatter",
                        "ZeRO-2, gradients sharded too, so it reduce-scatters after every "
                        "micro-batch's backward pass"),
    "zero_3": _plain_dp("ZeRO-3，权重也切分，每层前向、反向前都要收集权重",
                        "ZeRO-3, weights sharded too, gathered before every layer's forward "
                        "and backward pass"),
    "full_recompute": ("不重算（激活全部存着）", "no recomputation (every activation kept)",
                       "dp8_recompute"),
    "tp_for_recompute": ("全量重算，数据并行 8 份（这一行：每层拆到 2 张卡、数据并行 4 份，不重算）",
                         "full recomputation, data parallel 8 (this row: each layer split over 2 "
                         "GPUs, data parallel 4, nothing recomputed)", "dp8_recompute"),
    "one_f_one_b": ("GPipe 排法（先做完所有前向再做反向）",
                    "the GPipe schedule (all forwards, then all backwards)", "70b"),
    "interleaving": ("普通 1F1B（每张卡一段）", "plain 1F1B (one stage per GPU)", "70b"),
    "more_tp": ("张量并行 4 张卡、数据并行 4 份（这一行是张量并行 8 张卡、数据并行 2 份）",
                "tensor parallel over 4 GPUs, data parallel 4 (this row: over 8 GPUs, data "
                "parallel 2)", "70b_pp4"),
    "three_d": ("每层拆到 16 张卡、跨 2 台机器（这一行：机内 8 张卡拆每层，流水线 2 段跨机器）",
                "each layer split over 16 GPUs across two nodes (this row: over 8 GPUs in a "
                "node, 2 pipeline stages across nodes)", "70b_3d"),
    "grad_accumulation": ("每张卡一次算完 8 条序列（同样的总批量）",
                          "one micro-batch of 8 sequences per GPU (the same global batch)",
                          "dp16_batch128"),
    "comm_overlap": ("反向全部算完再做梯度同步", "the all-reduce after the whole backward",
                     "dp16_mb4"),
}
MACHINE = {
    "zh": "计算按 H100 bf16 稠密峰值的一半估算，通信按环形集合通信估算",
    "en": "compute at half the H100's dense bf16 peak, collectives as rings",
}


def row_words(tech: TechniqueView, lang: str) -> tuple[str, str, str] | None:
    """(baseline, workload title, workload description) of one ruler row, or None for a
    technique this table does not know (the ruler then names no workloads)."""
    row = ROWS.get(tech.id)
    if row is None:
        return None
    baseline_zh, baseline_en, key = row
    title_zh, description_zh, title_en = WORKLOADS[key]
    if lang == "zh":
        return baseline_zh, title_zh, description_zh
    return baseline_en, title_en, tech.workload_description
