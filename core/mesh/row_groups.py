"""Rows of stacked meshes screened a group at a time (``RowGroups``): every ``GROUP`` consecutive rows of a mesh share
one box, so that a query asked of every triangle of a mesh (a point's nearest triangle, the triangles a point's ray
may cross) tests the groups' boxes first and then only the rows of the groups that pass. A box test that a row's box
passes is passed by every box around it (rounding is monotone), so the rows found are the rows found testing every
row, in the same order.
"""

from __future__ import annotations

import numpy as np

from .stacked import StackedMeshes, pairings

#: Consecutive rows of a mesh boxed together (a mesh's rows are usually in a spatially coherent order).
GROUP = 32


class RowGroups:
    """``stack``'s rows in groups of at most ``GROUP``, mesh by mesh: group ``first[m] + g`` holds rows
    ``starts[...]`` to ``starts[...] + sizes[...]`` of mesh m; ``lows``, ``highs`` the boxes around their boxes."""

    def __init__(self, stack: StackedMeshes):
        self.counts = (stack.counts + GROUP - 1) // GROUP
        self.first = np.concatenate([[0], np.cumsum(self.counts)]).astype(np.int64)
        owner = np.repeat(np.arange(len(self.counts)), self.counts)
        local = (np.arange(len(owner)) - self.first[owner]) * GROUP
        self.starts = stack.first[owner] + local
        self.sizes = np.minimum(GROUP, stack.counts[owner] - local)
        if len(owner):
            self.lows = np.minimum.reduceat(stack.lows, self.starts, axis=0)
            self.highs = np.maximum.reduceat(stack.highs, self.starts, axis=0)
        else:
            self.lows = self.highs = np.empty((0, 3))

    def pairs(self, owners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every (query, group) of query q's mesh ``owners[q]``: (query, group), query by query, groups in order."""
        query, _one, local, _starts = pairings(np.ones(len(owners), dtype=np.int64), self.counts[owners])
        return query, self.first[owners[query]] + local

    def rows(self, query: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows of ``groups``, each with its ``query``: (query, row), in the order of the groups, rows in order."""
        sizes = self.sizes[groups]
        ends = np.cumsum(sizes)
        rows = np.arange(int(ends[-1]) if len(ends) else 0) + np.repeat(self.starts[groups] - (ends - sizes), sizes)
        return np.repeat(query, sizes), rows
