"""A tiny article folder and a plan that passes every page rule against it (test fixtures)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

SCENARIOS = {
    "kv_cache": "A, B, C decode with and without a KV cache",
    "batching": "static batching vs continuous batching of A, B, C and newcomer D",
    "kv_alloc": "contiguous reservation vs paged KV blocks",
    "preemption": "a request is preempted when KV blocks run out",
    "chunked_prefill": "D's long prompt stalls decodes vs split into chunks",
    "prefix_cache": "a shared prompt prefix recomputed vs reused",
    "admission": "admitting a request whose prompt cannot fit vs waiting",
    "metrics": "TTFT, ITL and throughput of one run",
    "arithmetic": "memory-bound decode vs compute-bound prefill",
    "goodput": "the same requests judged against TTFT and TPOT targets (goodput)",
}

QUOTES = {
    "loop": "调度器每转一圈，就重新挑一批请求让 GPU 往前走一步。",
    "kv": "KV cache 把算过的中间结果存起来，下一步不用重算。",
    "paged": "分页 KV cache 把显存切成小块，按需分配给请求。",
}
URLS = [
    "https://example.org/serving-loop",
    "https://example.org/continuous-batching",
    "https://example.org/paged-attention",
    "https://example.org/chunked-prefill",
]


def write_folder(root: Path) -> Path:
    """Two short Chinese articles and a reading list with four links."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "01-loop.md").write_text(
        f"---\ntitle: 推理主循环\nurl: {URLS[0]}\nlang: zh\n---\n\n# 推理主循环\n\n"
        f"{QUOTES['loop']}写完的请求离场。\n\n{QUOTES['kv']}\n",
        encoding="utf-8",
    )
    (root / "02-paged.md").write_text(
        f"# 分页 KV cache\n\n{QUOTES['paged']}这样就不会浪费显存。\n", encoding="utf-8"
    )
    (root / "reading-list.md").write_text(
        "# 阅读清单\n\n"
        + "\n".join(f"- [文章 {i}]({u}) — 第 {i} 篇" for i, u in enumerate(URLS, 1))
        + "\n",
        encoding="utf-8",
    )
    return root


def _concept(i: int, cid: str, name: str, scenario: str | None) -> dict[str, Any]:
    scene = "timeline" if scenario else "generic"
    panel = {"scene": scene, "scenario": scenario, "focus": ["D"]}
    return {
        "id": cid,
        "name": name,
        "name_en": f"Concept {cid}",
        "solves_problem_of": None if i == 0 else "loop",
        "problem_left": "还有新的麻烦",
        "body": f"{name}让主循环更顺。它有代价。",
        "trouble": {**panel, "caption": "D 在门外干等", "variant": "without" if scenario else None},
        "fix": {**panel, "caption": "D 马上就上场", "variant": "with" if scenario else None},
        "solves": "少等一会儿",
        "costs": "多占一点显存",
        "terms": ["调度器"] if i == 0 else [],
        "citations": [{"source": "01-loop", "quote": QUOTES["loop"]}] if i == 0 else [],
    }


def valid_plan_input() -> dict[str, Any]:
    """What a well-behaved model sends as the tool input: the plan without meta/format."""
    names = [
        ("loop", "主循环", None),
        ("kv_cache", "KV 缓存", "kv_cache"),
        ("batching", "连续批处理", "batching"),
        ("paged", "分页显存", "kv_alloc"),
        ("preempt", "抢占", "preemption"),
        ("chunked", "分块预填充", "chunked_prefill"),
        ("prefix", "前缀缓存", "prefix_cache"),
        ("admit", "准入", "admission"),
    ]
    concepts = [_concept(i, cid, name, sc) for i, (cid, name, sc) in enumerate(names)]
    concepts[1]["trouble"]["caption"] = "D 等了{D.ttft}步"
    return {
        "lang": "zh",
        "title": "推理服务图解",
        "takeaway": "推理服务是一个不停转动的调度循环。",
        "main_thread": {
            "sentence": "调度器每一步挑请求、拼批、算一步。",
            "kind": "loop",
            "stages": [{"label": "排队"}, {"label": "挑人"}, {"label": "算一步"}],
        },
        "cast": [{"id": "A", "role": "老请求"}, {"id": "D", "role": "新请求", "state": "new"}],
        "glossary": [{"term": "调度器", "definition": "决定每一步谁上场的程序。"},
                     {"term": "KV 缓存", "definition": "存着已算过的 token 的键和值的显存。"}],
        "concepts": concepts,
        "ruler": {
            "sentence": "每个技巧都在指标之间取舍。",
            "metrics": [
                {
                    "id": "throughput",
                    "name": "吞吐",
                    "better": "higher",
                    "definition": "每秒写出的字数",
                },
                {
                    "id": "ttft",
                    "name": "首字延迟",
                    "better": "lower",
                    "definition": "等到第一个字的时间",
                },
            ],
        },
        "walkthrough": {"concept": "chunked", "intro": "一步一步看长提示词怎么切开。"},
        "route": [
            {"title": f"文章 {i}", "url": u, "why": "讲清主循环"} for i, u in enumerate(URLS[:3], 1)
        ],
    }


def invalid_plan_input() -> dict[str, Any]:
    """Seven concepts, a 16-character caption, an invented URL, a quote not in the source."""
    plan = copy.deepcopy(valid_plan_input())
    plan["concepts"] = plan["concepts"][:7]
    plan["concepts"][2]["trouble"]["caption"] = "一二三四五六七八九十一二三四五六"
    plan["route"][0]["url"] = "https://invented.example.com/nowhere"
    plan["concepts"][0]["citations"][0]["quote"] = "这句话根本不在任何文章里出现过"
    return plan


def values_for(panel: Any) -> dict[str, str]:
    """Stands in for the simulator: the placeholders every scenario can fill."""
    return {"D.ttft": "3", "D.wait": "2"}


# ---------------------------------------------------------------------------------------------
# examples/serving-frontier: a plan that passes every page rule (the registry's included),
# built from the ingested folder so its quotes and URLs are the folder's own.

FRONTIER_CARDS = [
    # id, name, source (quoted), scene, scenario, technique, trouble caption, fix caption
    ("streaming", "Streaming", "streaming-ttft-vs-e2el", "clock", "streaming", None,
     "D sees nothing until the end", "first words after {D.ttft} steps"),
    # page.toml's [progress] names continuous_batching: a plan must have a card with that id
    ("continuous_batching", "Time to first token", "streaming-ttft-vs-e2el", "clock", "metrics", None,
     "D waits {D.ttft} ms for a word", "D's first word after {D.ttft} ms"),
    ("kv_cache", "A smaller KV cache", "kv-cache-capacity-fp8", "kv_blocks", "fp8_kv", "fp8_kv",
     "wide values: the blocks run out", "half-size values: twice the blocks"),
    ("speculative_decoding", "Speculative decoding", "speculative-decoding-explained",
     "timeline", "spec_decode", "spec_decode", "one token per step: {steps} steps",
     "drafts accepted: {steps} steps"),
    ("tensor_parallelism", "Tensor parallelism", "tensor-parallelism", "bars", "tensor_parallel",
     "tensor_parallel", "two GPUs, a slow step", "four GPUs share each step"),
    ("disaggregation", "Disaggregation", "prefill-and-decode-on-separate-gpus", "clock",
     "disaggregation", "disaggregation", "a prompt stalls B's tokens", "decodes keep an even pace"),
    ("goodput", "Goodput", "goodput-and-slos", "clock", "batching", "continuous_batching",
     "D waits {D.wait} steps in line", "D joins at once"),
    ("load_testing", "Load testing", "finding-the-knee-load-testing-an-llm-server", "budget",
     "chunked_prefill", "chunked_prefill", "one long prompt fills a step", "prompts cut into chunks"),
]


def frontier_plan_input(corpus: Any) -> dict[str, Any]:
    """An English plan for examples/serving-frontier, as a model would send it: every quote a
    passage of the named source, route URLs from the reading list, knobs on the spec-decode card."""
    concepts = []
    for i, (cid, name, source, scene, scenario, technique, trouble, fix) in enumerate(
        FRONTIER_CARDS
    ):
        paragraph = next(p.text for p in corpus.source(source).paragraphs if len(p.text) > 60)
        panel = {"scene": scene, "scenario": scenario, "focus": ["D"]}
        concepts.append(
            {
                "id": cid,
                "name": name,
                "name_en": name,
                "solves_problem_of": None if i == 0 else FRONTIER_CARDS[i - 1][0],
                "problem_left": "a new problem shows up",
                "body": f"{name} fixes what the previous card left. It has a price.",
                "trouble": {**panel, "caption": trouble, "variant": "without"},
                "fix": {**panel, "caption": fix, "variant": "with"},
                "solves": "less waiting",
                "costs": "more moving parts",
                "terms": ["goodput"] if cid == "goodput" else [],
                "citations": [{"source": source, "quote": paragraph[:120]}],
                "technique": technique,
            }
        )
    accept = {"name": "acceptance", "value": 0.5}
    concepts[3]["trouble"]["knobs"] = [accept]
    concepts[3]["fix"]["knobs"] = [accept, {"name": "draft_k", "value": 4}]
    urls = [e.url for e in corpus.reading_list if e.matched_source][:3]
    return {
        "lang": "en",
        "title": "Serving LLMs at the frontier",
        "takeaway": "Each technique trades one serving metric against another.",
        "main_thread": {
            "sentence": "Every step the scheduler picks requests, runs them and streams tokens.",
            "kind": "loop",
            "stages": [{"label": "queue"}, {"label": "pick"}, {"label": "GPU step"},
                       {"label": "stream"}],
        },
        "cast": [{"id": "A", "role": "an old request"}, {"id": "B", "role": "an old request"},
                 {"id": "C", "role": "an old request"},
                 {"id": "D", "role": "a new request", "state": "new"}],
        "glossary": [{"term": "goodput",
                      "definition": "Requests per second that met every latency target."},
                     {"term": "LLM", "definition": "A large language model."},
                     {"term": "KV cache",
                      "definition": "The keys and values of tokens already computed."}],
        "concepts": concepts,
        "ruler": {
            "sentence": "What each technique does to throughput and latency.",
            "metrics": [
                {"id": "throughput", "name": "throughput", "better": "higher",
                 "definition": "output tokens per second"},
                {"id": "ttft", "name": "TTFT", "better": "lower",
                 "definition": "time to the first token"},
                {"id": "itl", "name": "ITL", "better": "lower",
                 "definition": "time between two tokens"},
            ],
        },
        "walkthrough": {"concept": "speculative_decoding",
                        "intro": "Step by step: drafts proposed, checked and accepted."},
        "route": [{"title": f"Stop {k}", "url": u, "why": "the next thing to read"}
                  for k, u in enumerate(urls, 1)],
    }
