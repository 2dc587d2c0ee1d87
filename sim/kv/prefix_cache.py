"""Paged KV blocks with prefix caching: hash chains, ref counts and an LRU free queue.

Only full blocks are cached, keyed by a hash chain (parent hash + the block's token ids).
Freed blocks go to the free queue: hashed blocks at the tail (LRU order), unhashed at the
head (reused first); a request frees its blocks tail-first. Allocation pops the head and
evicts the popped block's hash. A hit raises ref counts and takes blocks off the queue.
"""

from __future__ import annotations

from collections import OrderedDict

from sim.config import EngineConfig
from sim.entities import Request


class KVBlock:
    """One physical block: id, reference count and (once full and cached) its chain hash."""

    __slots__ = ("id", "ref", "hash")

    def __init__(self, block_id: int) -> None:
        self.id = block_id
        self.ref = 0
        self.hash: int | None = None


class BlockHasher:
    """Interns (parent hash, block content) pairs to small ints: an exact, deterministic chain."""

    def __init__(self, block_size: int) -> None:
        self.block_size = block_size
        self._ids: dict[tuple[int, object], int] = {}

    def _content(self, req: Request, block: int) -> object:
        spec, bs = req.spec, self.block_size
        if spec.prompt_ids is not None and (block + 1) * bs <= spec.prompt_len:
            return spec.prompt_ids[block * bs : (block + 1) * bs]
        # Unshared prompt tokens are unique to the prompt's owner (parallel samples share
        # their parent's), generated tokens to the request.
        if spec.prompt_owner is not None and (block + 1) * bs <= spec.prompt_len:
            return ("own", spec.prompt_owner, block)
        return ("own", spec.id, block)

    def hashes(self, req: Request, num_blocks: int) -> list[int]:
        """Chain hashes of the request's first `num_blocks` full blocks (memoised on it)."""
        chain = req.block_hashes
        while len(chain) < num_blocks:
            parent = chain[-1] if chain else -1
            key = (parent, self._content(req, len(chain)))
            chain.append(self._ids.setdefault(key, len(self._ids)))
        return chain[:num_blocks]


class PrefixCachingKV:
    """Paged allocation with automatic prefix caching (vLLM `enable_prefix_caching`)."""

    def __init__(self, config: EngineConfig) -> None:
        self.block_size = config.block_size
        self.max_model_len = config.max_model_len
        self.num_blocks = config.num_blocks
        self.blocks = [KVBlock(i) for i in range(config.num_blocks)]
        self.free_queue: OrderedDict[int, None] = OrderedDict(
            (i, None) for i in range(config.num_blocks)
        )
        self.cached: dict[int, dict[int, None]] = {}
        self.req_blocks: dict[str, list[int]] = {}
        self.req_cached: dict[str, int] = {}
        self.hasher = BlockHasher(config.block_size)

    def num_free(self) -> int:
        """Blocks in the free queue (including cached, evictable ones)."""
        return len(self.free_queue)

    def held(self, req: Request) -> int:
        """Blocks the request holds."""
        return len(self.req_blocks.get(req.id, ()))

    def reserved_slots(self, req: Request) -> int:
        """Paged allocation reserves nothing ahead."""
        return 0

    def lookup(self, req: Request) -> list[int]:
        """Block ids of the longest cached prefix, capped at `tokens - 1` (whole blocks)."""
        max_blocks = (req.tokens - 1) // self.block_size
        hit: list[int] = []
        for h in self.hasher.hashes(req, max_blocks):
            owners = self.cached.get(h)
            if not owners:
                break
            hit.append(next(iter(owners)))
        return hit

    def _needed(self, req: Request, upto_tokens: int) -> int:
        blocks = -(-min(upto_tokens, self.max_model_len) // self.block_size)
        return blocks - self.held(req)

    def whole_fits(self, req: Request, hit: list[int]) -> bool:
        """Admission gate: blocks for the whole current sequence after the hit fit the free ones."""
        total = -(-min(req.tokens, self.max_model_len) // self.block_size)
        evictable = sum(1 for b in hit if self.blocks[b].ref == 0)
        return total - len(hit) + evictable <= self.num_free()

    def admission_blocks(self, req: Request) -> int:
        """ceil(min(tokens, max_model_len) / block_size) (before any prefix hit)."""
        return -(-min(req.tokens, self.max_model_len) // self.block_size)

    def chunk_fits(self, req: Request, hit: list[int], n: int) -> bool:
        """Blocks for hit + n tokens, minus the hit blocks, plus the hit blocks that sit in the
        free queue (taking them removes them from it), fit the free queue."""
        blocks = -(-min(len(hit) * self.block_size + n, self.max_model_len) // self.block_size)
        evictable = sum(1 for b in hit if self.blocks[b].ref == 0)
        return blocks - len(hit) + evictable <= self.num_free()

    def admit(self, req: Request, hit: list[int], n: int) -> bool:
        """Take the hit blocks, set computed to the hit, then allocate for `n` new tokens."""
        for bid in hit:
            block = self.blocks[bid]
            if block.ref == 0:
                del self.free_queue[bid]
            block.ref += 1
        self.req_blocks[req.id] = list(hit)
        self.req_cached[req.id] = len(hit)
        req.computed = max(len(hit) * self.block_size, req.kv_ready)
        return self.allocate(req, n)

    def allocate(self, req: Request, n: int) -> bool:
        """Blocks for `n` more tokens after `computed`; False (nothing taken) if too few free."""
        need = self._needed(req, req.computed + n)
        if need > len(self.free_queue):
            return False
        owned = self.req_blocks.setdefault(req.id, [])
        for _ in range(need):
            bid, _unused = self.free_queue.popitem(last=False)
            block = self.blocks[bid]
            if block.hash is not None:
                owners = self.cached[block.hash]
                del owners[bid]
                if not owners:
                    del self.cached[block.hash]
                block.hash = None
            block.ref = 1
            owned.append(bid)
        self._cache_full_blocks(req, min(req.computed + n, req.tokens))
        return True

    def _cache_full_blocks(self, req: Request, num_tokens: int) -> None:
        full = num_tokens // self.block_size
        done = self.req_cached.get(req.id, 0)
        if full <= done:
            return
        owned = self.req_blocks[req.id]
        hashes = self.hasher.hashes(req, full)
        for i in range(done, full):
            block = self.blocks[owned[i]]
            if block.hash is None:
                block.hash = hashes[i]
                self.cached.setdefault(hashes[i], {})[block.id] = None
        self.req_cached[req.id] = full

    def free(self, req: Request) -> None:
        """Release the request's blocks tail-first: hashed to the LRU tail, unhashed to the head."""
        self.req_cached.pop(req.id, None)
        for bid in reversed(self.req_blocks.pop(req.id, [])):
            block = self.blocks[bid]
            block.ref -= 1
            if block.ref == 0:
                self.free_queue[bid] = None
                if block.hash is None:
                    self.free_queue.move_to_end(bid, last=False)

    def block_ids(self, req: Request) -> list[int]:
        """The request's block table (a cached prefix's blocks are its holders' alike)."""
        return self.req_blocks.get(req.id, [])

    def shared(self) -> list[tuple[tuple[str, ...], int]]:
        """Blocks with more than one holder, counted per group of holders."""
        holders: dict[int, list[str]] = {}
        for rid, owned in self.req_blocks.items():
            for bid in owned:
                holders.setdefault(bid, []).append(rid)
        groups: dict[tuple[str, ...], int] = {}
        for ids in holders.values():
            if len(ids) > 1:
                groups[tuple(ids)] = groups.get(tuple(ids), 0) + 1
        return list(groups.items())
