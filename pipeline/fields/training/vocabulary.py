"""The words training's pictures write, by language (`pipeline.fields.vocabulary`): the memory
bar's weights, grads, optimizer and activations, the step's forward and backward, the
collectives and the links. A plan that defines one keeps its own sentence; the rest are defined
here, in tujie's words, where the page first uses them."""

from __future__ import annotations

from pipeline.fields.vocabulary import Term

VOCABULARY: dict[str, tuple[Term, ...]] = {
    "en": (
        Term("forward pass", "The pass that runs a batch through the layers to its loss",
             ("forward",)),
        Term("backward pass", "The pass back through the layers that computes the gradients",
             ("backward",)),
        Term("gradient", "How much each weight should change to lower the loss",
             ("gradients", "grads")),
        Term("weights", "The model's learned numbers (its parameters)", ("weight",)),
        Term("optimizer states", "What the optimizer keeps for each weight between steps (for "
             "Adam: two running averages and an fp32 copy)", ("optimizer state", "optimizer")),
        Term("activations", "The values the forward pass keeps for the backward pass",
             ("activation",)),
        Term("all-reduce", "A collective after which every GPU holds the sum of all GPUs' "
             "values", ("all-reduces",), ("allreduce", "all reduce", "allreduces")),
        Term("ring all-reduce", "An all-reduce that passes pieces around a ring of GPUs, every "
             "link busy at once"),
        Term("token", "The unit a language model reads and writes: a word or a piece of one",
             ("tokens",)),
        Term("sequence", "One training example: a stretch of text the model learns to "
             "continue, token by token", ("sequences", "seq")),
        Term("micro-batch", "A slice of the batch that runs through the model on its own",
             ("micro-batches",), ("microbatch", "microbatches", "micro batch", "micro batches")),
        Term("bubble", "Time a pipeline stage sits idle, waiting for work", ("bubbles",)),
        Term("bucket", "A group of gradients sent in one all-reduce as soon as all of them are "
             "ready", ("buckets",)),
        Term("GPU", "The chip that trains the model; its memory holds the weights, gradients, "
             "optimizer states and activations"),
        Term("HBM", "The GPU's own memory (high-bandwidth memory)"),
        Term("node", "One server with several GPUs joined by fast links", ("nodes",)),
        Term("NVLink", "The fast link between the GPUs inside one node"),
        Term("MFU", "Model FLOPs utilization: the share of the GPUs' peak arithmetic the "
             "training really uses"),
        Term("FSDP", "Fully sharded data parallel: each GPU keeps a slice of the weights, "
             "gradients and optimizer states and gathers the rest when it needs them"),
        Term("ZeRO", "A scheme that splits optimizer states (stage 1), gradients (2) and weights "
             "(3) across the data-parallel GPUs"),
        Term("bf16", "A 16-bit number format: 2 bytes per value"),
        Term("fp32", "A 32-bit number format: 4 bytes per value"),
    ),
    "zh": (
        Term("前向", "把一批数据逐层算到损失的那一遍", ("前向传播", "forward")),
        Term("反向", "从损失逐层往回、算出梯度的那一遍", ("反向传播", "backward")),
        Term("梯度", "每个权重该往哪边改、改多少，才能让损失变小", ("gradient",)),
        Term("权重", "模型学到的参数", ("weights",)),
        Term("优化器状态", "优化器在两步之间为每个权重存的东西（Adam：两个滑动平均和一份 fp32 副本）",
             ("优化器",)),
        Term("激活", "前向时留给反向用的中间结果", ("激活值",)),
        Term("全归约", "一种集合通信：做完后每张 GPU 都拿到所有 GPU 数值的和", ("all-reduce",),
             ("allreduce",)),
        Term("环形全归约", "把数据分成块、沿一圈 GPU 传的全归约，每条链路同时在忙"),
        Term("token", "语言模型读和写的单位：一个词或词的一部分", (), ("词元", "令牌")),
        Term("序列", "一条训练样本：一段文字，模型学着一个 token 一个 token 地往下接"),
        Term("微批次", "从一批里切出的一小份，单独走一遍模型", ("微批", "micro-batch")),
        Term("气泡", "流水线某一段没活干、空等的时间"),
        Term("GPU", "训练模型的芯片，它的显存放权重、梯度、优化器状态和激活"),
        Term("显存", "GPU 上的内存", ("HBM",)),
        Term("节点", "一台装着几张 GPU、用快速链路连起来的服务器"),
        Term("NVLink", "同一节点内 GPU 之间的快速链路"),
        Term("MFU", "模型算力利用率：训练真正用上的算力占 GPU 峰值的比例"),
        Term("FSDP", "全分片数据并行：每张 GPU 只存权重、梯度和优化器状态的一份，要用时再收齐"),
        Term("ZeRO", "把优化器状态（第 1 级）、梯度（第 2 级）和权重（第 3 级）分到各数据并行 GPU 上的做法"),
        Term("bf16", "一种 16 位的数字格式：每个数 2 字节"),
        Term("fp32", "一种 32 位的数字格式：每个数 4 字节"),
    ),
}
