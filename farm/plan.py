"""Which share of a check a shard ``K/N`` measures: the same answer in every process that plans it.

A clash check is split after its broad phase: every shard reads the same objects and finds the same
candidate pairs, then measures the pairs ``balanced_shards`` gives it (longest estimated first, each to
the least loaded shard). An animation scan is split into runs of whole ``SCAN_BLOCK``-frame blocks: the
scan starts its convex pairs' warm starts afresh at every block border, so a shard that scans a run of
blocks measures every frame exactly as one process scanning the whole range does. Standard library only.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence

#: Frames per block of an animation scan (see the module docstring): shards take whole blocks.
SCAN_BLOCK = 16


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` as ``(K, N)`` with ``1 <= K <= N``; ValueError naming the text otherwise."""
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if match is None or not 1 <= int(match[1]) <= int(match[2]):
        raise ValueError(f"not a shard K/N with 1 <= K <= N: {text!r}")
    return int(match[1]), int(match[2])


def balanced_shards(costs: Sequence[float], count: int) -> list[int]:
    """The shard (0 to ``count`` - 1) of each item: items by falling cost (ties: in their order), each to the
    shard with the least cost so far (ties: the lowest shard). Deterministic for the same costs."""
    order = sorted(range(len(costs)), key=lambda item: (-costs[item], item))
    loads = [(0.0, shard) for shard in range(count)]
    shards = [0] * len(costs)
    for item in order:
        load, shard = heapq.heappop(loads)
        shards[item] = shard
        heapq.heappush(loads, (load + costs[item], shard))
    return shards


def scan_blocks(frame_start: int, frame_end: int) -> int:
    """How many ``SCAN_BLOCK``-frame blocks the frames ``frame_start`` to ``frame_end`` make (the last may be short)."""
    return -(-(frame_end - frame_start + 1) // SCAN_BLOCK)


def frame_chunk(frame_start: int, frame_end: int, index: int, count: int) -> tuple[int, int] | None:
    """The frames ``(first, last)`` that shard ``index`` (1-based) of ``count`` scans: a run of whole blocks,
    the runs as even as the blocks allow (the longer ones first); None for the shards past the number of blocks."""
    size, longer = divmod(scan_blocks(frame_start, frame_end), count)
    first_block = (index - 1) * size + min(index - 1, longer)
    end_block = first_block + size + (index - 1 < longer)
    if end_block == first_block:
        return None
    return frame_start + first_block * SCAN_BLOCK, min(frame_end, frame_start + end_block * SCAN_BLOCK - 1)
