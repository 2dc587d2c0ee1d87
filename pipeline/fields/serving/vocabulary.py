"""The words serving's pictures write, by language (`pipeline.fields.vocabulary`): the clock's
TTFT, ITL and p99, the budget line, the block pool, the drafts. A plan that defines one keeps its
own sentence; the rest are defined here, in tujie's words, where the page first uses them."""

from __future__ import annotations

from pipeline.fields.vocabulary import Term

VOCABULARY: dict[str, tuple[Term, ...]] = {
    "en": (
        Term("token", "The unit a language model reads and writes: a word or a piece of one",
             ("tokens",)),
        Term("prefill", "A request's first pass, over its whole prompt at once: it writes the "
             "prompt's KV cache and gives the first new token", ("prefills",)),
        Term("decode", "Each later step of a request: one more token, read against its KV cache",
             ("decodes", "decoding")),
        Term("KV cache", "The keys and values the model saved for every token so far, kept in "
             "GPU memory so no later step computes them again", ("KV",)),
        Term("block", "A fixed-size piece of KV-cache memory that holds a few tokens' keys and "
             "values", ("blocks", "KV block", "KV blocks")),
        Term("weights", "The model's learned numbers, all read from GPU memory at every step"),
        Term("token budget", "The most tokens one step may compute", ("budget",)),
        Term("preemption", "The scheduler taking a running request's memory back, to run it "
             "again from its prompt later", ("preempted", "preempt", "preempts")),
        Term("stall", "A long pause in an answer that is running: a step that gives it no new "
             "token, or one that a long prefill makes slow", ("stalls", "stalled"),
             ("stutter", "stutters", "hiccup", "hiccups")),
        Term("TTFT", "Time to first token: from a request's arrival to its first new token"),
        Term("ITL", "Inter-token latency: the gap between two tokens of one answer"),
        Term("TPOT", "Time per output token: an answer's time after its first token, divided by "
             "the tokens that followed it"),
        Term("p50", "The median: half of the measured values are at or below it", ("P50",)),
        Term("p99", "The value that only the slowest one in a hundred measurements passes",
             ("P99",)),
        Term("throughput", "The tokens a server writes per second over a whole run"),
        Term("goodput", "The requests per second that finish within their latency targets"),
        Term("SLO", "Service-level objective: the latency a request must stay within to count "
             "as served well"),
        Term("GPU", "The chip that runs the model; its memory holds the weights and the KV "
             "cache"),
        Term("hash", "A short fingerprint computed from a block's tokens: equal tokens give "
             "equal hashes"),
        Term("draft", "A token a small, fast model guesses ahead, which the big model then "
             "checks", ("drafts",)),
        Term("bf16", "A 16-bit number format: 2 bytes per value"),
        Term("FP8", "An 8-bit number format: 1 byte per value", ("fp8",)),
    ),
    "zh": (
        Term("token", "语言模型读和写的单位：一个词或词的一部分", (), ("词元", "令牌")),
        Term("预填充", "请求的第一次计算：一口气读完整个提示词，写好它的 KV cache，并给出第一个新 token",
             ("预填", "prefill")),
        Term("解码", "之后的每一步：借着 KV cache 再写出一个 token", ("decode",)),
        Term("KV cache", "模型为已读的每个 token 存下的键和值，放在显存里，后面的步不必再算",
             ("KV 缓存", "KV")),
        Term("KV 块", "KV cache 里固定大小的一格，存几个 token 的键和值", ("块",)),
        Term("显存", "GPU 上的内存，放模型的权重和 KV cache"),
        Term("权重", "模型学到的参数，每一步都要从显存里读一遍"),
        Term("token 预算", "一步最多能算的 token 数", ("预算",)),
        Term("抢占", "调度器收回一个在跑请求的显存，之后再从提示词起把它重算一遍", ("被抢占",)),
        Term("TTFT", "首 token 延迟：从请求到达到它的第一个新 token 写出来", ("首字延迟",)),
        Term("ITL", "出字间隔：同一个回答里相邻两个 token 之间的时间", ("出字间隔",)),
        Term("TPOT", "每个输出 token 的时间：回答在第一个 token 之后用的时间，除以之后的 token 数"),
        Term("p50", "中位数：一半的测量值不超过它", ("P50",)),
        Term("p99", "一百次测量里只有最慢的一次超过的那个值", ("P99",)),
        Term("吞吐", "整次运行里平均每秒写出的 token 数"),
        Term("有效吞吐", "每秒在延迟目标之内完成的请求数", ("goodput",)),
        Term("SLO", "服务等级目标：请求的延迟要守住的上限"),
        Term("GPU", "运行模型的芯片，它的显存放权重和 KV cache"),
        Term("哈希", "按一个块里的 token 算出的短指纹：token 相同，指纹才相同"),
        Term("草稿", "小而快的模型先猜出的 token，再由大模型检查", ("draft",)),
        Term("bf16", "一种 16 位的数字格式：每个数 2 字节"),
        Term("FP8", "一种 8 位的数字格式：每个数 1 字节", ("fp8",)),
    ),
}
