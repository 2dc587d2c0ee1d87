"""KV managers behind one interface, chosen by name from `KV_MANAGERS`.

- `paged`: vLLM block allocation without prefix caching; each block has an id (its place in the
  pool), handed out by the free-queue rule prefix caching uses for blocks without a hash, so a
  picture can draw where a request's blocks lie and its block table.
- `prefix_cache`: paged with prefix caching (see `sim.kv.prefix_cache`).
- `reserve_max`: contiguous reservation of prompt + max_tokens at admission (pre-paging).
- `reserve_max_model_len`: contiguous reservation of max_model_len at admission.
- `none`: no KV cache at all (every step recomputes the whole context).
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

from sim.config import EngineConfig
from sim.entities import Request
from sim.kv.prefix_cache import PrefixCachingKV


class KVManager(Protocol):
    """What schedulers need from a KV-cache manager."""

    num_blocks: int
    block_size: int

    def num_free(self) -> int:
        """Free blocks."""
        ...

    def held(self, req: Request) -> int:
        """Blocks the request holds (reserved ones included)."""
        ...

    def reserved_slots(self, req: Request) -> int:
        """Token slots reserved ahead of use (reserve_max only)."""
        ...

    def lookup(self, req: Request) -> list[int]:
        """Cached prefix blocks for a waiting request (empty without prefix caching)."""
        ...

    def whole_fits(self, req: Request, hit: list[int]) -> bool:
        """Admission gate: can the request's whole current sequence get its blocks?"""
        ...

    def admit(self, req: Request, hit: list[int], n: int) -> bool:
        """Move a waiting request in: take its hit, allocate its first `n` tokens."""
        ...

    def admission_blocks(self, req: Request) -> int:
        """Blocks the admission gate asks for the request's whole current sequence."""
        ...

    def chunk_fits(self, req: Request, hit: list[int], n: int) -> bool:
        """The blocks of a first chunk of `n` tokens after the hit fit the free blocks."""
        ...

    def allocate(self, req: Request, n: int) -> bool:
        """Blocks for `n` more tokens; False if there are too few free."""
        ...

    def free(self, req: Request) -> None:
        """Release everything the request holds."""
        ...

    def shared(self) -> list[tuple[tuple[str, ...], int]]:
        """Physical blocks held by more than one request, grouped by their holders (request
        ids in order of first holding): a cached prefix counts once, not once per request."""
        ...

    def block_ids(self, req: Request) -> list[int]:
        """The request's block table: the pool position of each of its blocks, in order (empty
        for the reserving managers, whose reservations are one contiguous run)."""
        ...


class PagedKV:
    """Paged blocks without prefix caching: a free counter, per-request block counts and block
    tables.

    The free queue starts as every block in pool order; a freed request's blocks go back to its
    head (tail-first, so they come out again in their old order) and allocation pops the head,
    the rule `PrefixCachingKV` follows for blocks without a hash. The queue is kept as the freed
    ids ahead of a counter of never-used ones, so a pool of any size costs nothing to set up."""

    def __init__(self, config: EngineConfig) -> None:
        self.block_size = config.block_size
        self.max_model_len = config.max_model_len
        self.num_blocks = config.num_blocks
        self.free_count = config.num_blocks
        self.req_held: dict[str, int] = {}
        self.req_ids: dict[str, list[int]] = {}
        self.freed_ids: deque[int] = deque()
        self.next_fresh = 0

    def num_free(self) -> int:
        """Free blocks."""
        return self.free_count

    def held(self, req: Request) -> int:
        """Blocks the request holds."""
        return self.req_held.get(req.id, 0)

    def reserved_slots(self, req: Request) -> int:
        """Nothing is reserved ahead."""
        return 0

    def lookup(self, req: Request) -> list[int]:
        """No prefix caching: never a hit."""
        return []

    def whole_fits(self, req: Request, hit: list[int]) -> bool:
        """Blocks for the whole current sequence fit the free blocks."""
        return -(-min(req.tokens, self.max_model_len) // self.block_size) <= self.free_count

    def admit(self, req: Request, hit: list[int], n: int) -> bool:
        """Start from zero computed tokens (or the KV a transfer brought) and allocate the
        first chunk (with a transfer: blocks for the whole context)."""
        req.computed = req.kv_ready
        return self.allocate(req, n)

    def admission_blocks(self, req: Request) -> int:
        """ceil(min(tokens, max_model_len) / block_size)."""
        return -(-min(req.tokens, self.max_model_len) // self.block_size)

    def chunk_fits(self, req: Request, hit: list[int], n: int) -> bool:
        """ceil(min(n, max_model_len) / block_size) blocks are free (no hits here)."""
        return -(-min(n, self.max_model_len) // self.block_size) <= self.free_count

    def allocate(self, req: Request, n: int) -> bool:
        """ceil(min(computed + n, max_model_len) / block_size) minus blocks already held."""
        have = self.req_held.get(req.id, 0)
        need = -(-min(req.computed + n, self.max_model_len) // self.block_size) - have
        if need > self.free_count:
            return False
        if need > 0:
            self.free_count -= need
            self.req_held[req.id] = have + need
            self._take_ids(req, need)
        return True

    def _take_ids(self, req: Request, need: int) -> None:
        ids = self.req_ids.setdefault(req.id, [])
        for _ in range(need):
            if self.freed_ids:
                ids.append(self.freed_ids.popleft())
            else:
                ids.append(self.next_fresh)
                self.next_fresh += 1

    def free(self, req: Request) -> None:
        """Return the request's blocks (their ids to the head of the free queue)."""
        self.free_count += self.req_held.pop(req.id, 0)
        self.freed_ids.extendleft(reversed(self.req_ids.pop(req.id, [])))

    def shared(self) -> list[tuple[tuple[str, ...], int]]:
        """Without prefix caching no block has two holders."""
        return []

    def block_ids(self, req: Request) -> list[int]:
        """The request's block table."""
        return self.req_ids.get(req.id, [])


class ReserveMaxKV(PagedKV):
    """Reserve prompt + max_tokens (capped at max_model_len) at admission, contiguously."""

    def _reservation(self, req: Request) -> int:
        slots = min(req.spec.prompt_len + req.spec.max_tokens, self.max_model_len)
        return -(-slots // self.block_size)

    def admission_blocks(self, req: Request) -> int:
        """The whole reservation."""
        return self._reservation(req)

    def reserved_slots(self, req: Request) -> int:
        """Token slots reserved for the request (held blocks times block size)."""
        return self.req_held.get(req.id, 0) * self.block_size

    def whole_fits(self, req: Request, hit: list[int]) -> bool:
        """The full reservation must fit."""
        return self._reservation(req) <= self.free_count

    def admit(self, req: Request, hit: list[int], n: int) -> bool:
        """Take the whole reservation at once."""
        req.computed = 0
        need = self._reservation(req)
        if need > self.free_count:
            return False
        self.free_count -= need
        self.req_held[req.id] = need
        return True

    def allocate(self, req: Request, n: int) -> bool:
        """Already reserved: never needs more."""
        return True


class ReserveMaxModelLenKV(ReserveMaxKV):
    """Reserve max_model_len slots per request (the pre-vLLM worst case)."""

    def _reservation(self, req: Request) -> int:
        return -(-self.max_model_len // self.block_size)


class NoKV(PagedKV):
    """No KV cache: nothing is stored, so nothing is ever short."""

    def admit(self, req: Request, hit: list[int], n: int) -> bool:
        """Nothing to allocate."""
        req.computed = 0
        return True

    def whole_fits(self, req: Request, hit: list[int]) -> bool:
        """Always fits."""
        return True

    def admission_blocks(self, req: Request) -> int:
        """Nothing is stored."""
        return 0

    def allocate(self, req: Request, n: int) -> bool:
        """Nothing to allocate."""
        return True


KV_MANAGERS: dict[str, type[PagedKV] | type[PrefixCachingKV]] = {
    "paged": PagedKV,
    "prefix_cache": PrefixCachingKV,
    "reserve_max": ReserveMaxKV,
    "reserve_max_model_len": ReserveMaxModelLenKV,
    "none": NoKV,
}


def kv_manager_name(config: EngineConfig) -> str:
    """Which manager a resolved engine configuration uses."""
    if config.policy == "no_kv_cache":
        return "none"
    if config.kv_alloc != "paged":
        return config.kv_alloc
    return "prefix_cache" if config.enable_prefix_caching else "paged"


def build_kv_manager(config: EngineConfig) -> KVManager:
    """The KV manager for a resolved engine configuration."""
    return KV_MANAGERS[kv_manager_name(config)](config)
