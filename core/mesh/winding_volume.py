"""Volume and centroid of a region chosen by winding numbers of several closed surfaces: the union of an object's
overlapping parts, where two such unions overlap, the space a surface covers twice (its own sheets crossing).
Each surface is cut along its crossings with the others (and itself), each piece labelled by the winding numbers
in front of it, and the divergence theorem summed over the pieces where the region starts.
See docs/architecture.md, section "Mesh: volumes chosen by winding numbers".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from ..broadphase.sort_and_sweep import overlapping_pairs_between
from .inside import crossing_windings
from .intersection import RELATIVE_TOLERANCE
from .topology import component_offsets, edge_table, uses_by_edge
from .triangle_intersection import exact_integers, pair_crossings
from .trimesh import TriangleMesh

#: Piercings of one edge whose parameters differ by at most this are taken as one point, ordered by the model.
TIED = 1e-12

#: Boundary edges close up to this fraction of the surfaces' size per edge (rounding of the cut's points).
CLOSURE = 1e-9

#: A region: (N, S) winding numbers (one column per solid) -> (N,) whether those points belong to it.
Region = Callable[[np.ndarray], np.ndarray]


def overlap_of_unions(windings: np.ndarray) -> np.ndarray:
    """Inside some part of solid 0 and some part of solid 1."""
    return (windings[:, 0] >= 1) & (windings[:, 1] >= 1)


def covered_twice(windings: np.ndarray) -> np.ndarray:
    """Inside two or more sheets of solid 0 (two overlapping parts, or a surface crossing itself)."""
    return windings[:, 0] >= 2


def region_volume(surfaces: Sequence[TriangleMesh], solids: Sequence[int], region: Region,
                  own_crossings: Sequence[np.ndarray | None] | None = None) -> tuple[float, np.ndarray | None] | None:
    """``(volume, centroid)`` of the points whose winding numbers ``w`` satisfy ``region(w)``; ``w[σ]`` sums the
    winding numbers of the surfaces of solid σ (``solids[k]``: surface k's solid, 0..S-1). Centroid None when
    the volume is 0.

    ``surfaces``: closed manifold meshes facing outward (every edge used once each way); ``region`` must be
    False where every winding is 0. Surface k counts as moved by k times an infinitesimal generic translation
    (the model of ``triangle_intersection``), so coincident faces of different surfaces are resolved as in
    ``volume.overlap_volume``. A surface crossing itself needs ``own_crossings[k]``: the (K, 2) pairs of its own
    triangles that cross (``self_intersection``), decided without that perturbation.
    None when the cut is inconsistent (a non-manifold edge, or rounding that leaves the windings disagreeing
    where they meet, near degenerate triple crossings): the caller falls back to a bound.
    """
    arrangement = _Arrangement.build(surfaces, solids, own_crossings)
    if arrangement is None:
        return None
    return arrangement.volume(region)


def _closed(host: np.ndarray, weight: np.ndarray, p: np.ndarray, q: np.ndarray, c: np.ndarray, size: float) -> bool:
    """Whether the weighted boundary edges P -> Q close up: on every triangle (their sum is 0, as around any set of
    polygons) and over all triangles (their fanned areas sum to 0, as over any closed surface), to rounding. A
    winding taken wrongly somewhere (a triple crossing misjudged where faces of several surfaces coincide) leaves
    a piece without its neighbours, and the volume would depend on where it is fanned from."""
    steps = weight[:, None] * (q - p)
    per_triangle = np.zeros((int(host.max(initial=-1)) + 1, 3))
    np.add.at(per_triangle, host, steps)
    slack = CLOSURE * size * np.bincount(host, weights=np.abs(weight), minlength=len(per_triangle))
    areas = weight[:, None] * np.cross(p - c, q - c)
    return bool((np.abs(per_triangle).max(axis=1, initial=0.0) <= slack).all()
                and (np.abs(areas.sum(axis=0)) <= CLOSURE * size * size * (1.0 + np.abs(weight).sum())).all())


class _Arrangement:
    """The surfaces joined into one mesh, cut along every crossing, with the windings in front of each piece."""

    @classmethod
    def build(cls, surfaces, solids, own_crossings) -> "_Arrangement | None":
        self = cls()
        counts = np.array([len(mesh.triangles) for mesh in surfaces])
        vertex_offsets = np.cumsum([0] + [len(mesh.vertices) for mesh in surfaces])
        self.first_triangle = np.cumsum(np.r_[0, counts])
        vertices = np.concatenate([mesh.vertices for mesh in surfaces])
        triangles = np.concatenate([mesh.triangles + vertex_offsets[k] for k, mesh in enumerate(surfaces)])
        self.mesh = TriangleMesh(vertices, triangles)
        self.part = np.repeat(np.arange(len(surfaces)), counts)
        self.vertex_part = np.repeat(np.arange(len(surfaces)), np.diff(vertex_offsets))
        self.solid_of_part = np.asarray(solids, dtype=np.int64)
        self.solid = self.solid_of_part[self.part]
        self.solid_count = int(self.solid_of_part.max()) + 1
        self.table = edge_table(self.mesh)
        if not ((self.table.uses == 2) & (self.table.forward_uses == 1)).all():
            return None
        self.own = np.zeros(len(surfaces), bool)
        pairs = self._candidate_pairs(surfaces, own_crossings)
        t, s = pairs[:, 0], pairs[:, 1]
        mesh = self.mesh
        self.crossings = pair_crossings(mesh.corners[t], mesh.triangles[t], mesh.area_normals[t],
                                        mesh.corners[s], mesh.triangles[s], mesh.area_normals[s])
        self.pairs = pairs
        self._piercings()
        if not self._vertex_windings(surfaces):
            return None
        self._edge_pieces()
        return self if self._segments() else None

    def _candidate_pairs(self, surfaces, own_crossings) -> np.ndarray:
        """(K, 2) triangle pairs, smaller first: those of different surfaces whose boxes meet (within the crossing
        search's tolerance), and each surface's own crossing pairs."""
        margin = RELATIVE_TOLERANCE * self.mesh.size
        lows = np.array([mesh.vertices.min(axis=0) for mesh in surfaces]) - margin
        highs = np.array([mesh.vertices.max(axis=0) for mesh in surfaces]) + margin
        found = [np.zeros((0, 2), np.int64)]
        for g in range(len(surfaces)):
            for h in range(g + 1, len(surfaces)):
                if (lows[g] <= highs[h]).all() and (lows[h] <= highs[g]).all():
                    a, b = surfaces[g], surfaces[h]
                    pairs = overlapping_pairs_between(a.lows, a.highs, b.lows, b.highs, margin=margin)
                    found.append(pairs + self.first_triangle[[g, h]])
            if own_crossings is not None and own_crossings[g] is not None and len(own_crossings[g]):
                self.own[g] = True
                found.append(np.sort(np.asarray(own_crossings[g], dtype=np.int64), axis=1) + self.first_triangle[g])
        return np.concatenate(found)

    def _step(self, triangles: np.ndarray, amounts: np.ndarray) -> np.ndarray:
        """(N, S) winding changes: ``amounts[k]`` on the column of ``triangles[k]``'s solid."""
        steps = np.zeros((len(triangles), self.solid_count), np.int64)
        steps[np.arange(len(triangles)), self.solid[triangles]] = amounts
        return steps

    def _piercings(self) -> None:
        """Every edge piercing a triangle, once: edge, pierced triangle, parameter from the edge's lower vertex,
        point, and the winding change going from its lower to its higher vertex (+1 entering the triangle's
        solid from the front, -1 leaving it)."""
        c, t, s = self.crossings, self.pairs[:, 0], self.pairs[:, 1]
        edges, pierced, params, points, high_in_front = [], [], [], [], []
        for crosses, own, other, param, point, behind in (
                (c.a_crosses, t, s, c.a_params, c.a_points, c.a_starts),
                (c.b_crosses, s, t, c.b_params, c.b_points, ~c.b_starts)):
            row, corner = np.nonzero(crosses)
            edges.append(self.table.triangle_edges[own[row], corner])
            pierced.append(other[row])
            params.append(param[row, corner])
            points.append(point[row, corner])
            # the corner starting the edge lies behind: the edge runs out through the front, and so does its
            # lower-to-higher direction when the triangle runs along it forward
            high_in_front.append(behind[row, corner] == self.table.forward[own[row], corner])
        edge, other = np.concatenate(edges), np.concatenate(pierced)
        keys = edge * len(self.mesh.triangles) + other
        keys, unique = np.unique(keys, return_index=True)
        self.piercing_keys = keys
        self.piercing_edge, self.piercing_triangle = edge[unique], other[unique]
        self.piercing_param = np.concatenate(params)[unique]
        self.piercing_point = np.concatenate(points)[unique]
        self.piercing_step = self._step(self.piercing_triangle,
                                        np.where(np.concatenate(high_in_front)[unique], -1, 1))

    def _vertex_windings(self, surfaces) -> bool:
        """The windings just in front of every vertex (``vertex_front``): steps along the edges from one vertex per
        surface whose windings are found by rays (its own surface's 0: the vertex furthest along -x is on the
        outside). False when the steps around some cycle of edges do not cancel."""
        edges = self.table.edges
        steps = np.zeros((len(edges), self.solid_count), np.int64)
        np.add.at(steps, self.piercing_edge, self.piercing_step)
        root, offset = component_offsets(len(self.mesh.vertices), edges[:, 0], edges[:, 1], steps)
        if not (offset[edges[:, 1]] - offset[edges[:, 0]] == steps).all():
            return False
        used = np.unique(self.mesh.triangles)
        order = used[np.lexsort((self.mesh.vertices[used, 0], root[used]))]
        anchors = order[np.r_[True, root[order[1:]] != root[order[:-1]]]]
        anchor_part = self.vertex_part[anchors]
        anchored = np.zeros((len(anchors), self.solid_count), np.int64)
        for h, mesh in enumerate(surfaces):
            for later in (True, False):  # anchors of later surfaces move relative to this one, earlier stay
                rows = np.flatnonzero((anchor_part > h) if later else (anchor_part < h))
                if len(rows):
                    anchored[rows, self.solid_of_part[h]] += crossing_windings(
                        mesh, self.mesh.vertices[anchors[rows]], points_move=later)
        base = np.zeros((len(self.mesh.vertices), self.solid_count), np.int64)
        base[root[anchors]] = anchored - offset[anchors]
        self.vertex_front = base[root] + offset
        return True

    def _piercing_order(self) -> np.ndarray:
        """The piercings sorted by edge and along it. Piercings whose parameters are within ``TIED`` (an edge
        through a vertex or an edge of the other surface, or nearly) are ordered exactly: by their parameters in
        integer arithmetic, and where those are equal as in the model, where the pierced plane moves relative to the
        edge by (its surface's index - the edge's) x δ, δ = (ε, ε², ε³)."""
        edge, param = self.piercing_edge, self.piercing_param
        order = np.lexsort((param, edge))
        close = (edge[order][1:] == edge[order][:-1]) & (np.diff(param[order]) <= TIED)
        runs = np.flatnonzero(np.diff(np.r_[False, close, False].astype(np.int8)))  # starts and ends of tied runs
        for first, last in zip(runs[::2], runs[1::2] + 1):
            run = order[first:last]
            places = self._exact_places(run)
            order[first:last] = run[sorted(range(len(run)), key=places.__getitem__)]
        return order

    def _exact_places(self, piercings: np.ndarray) -> list[tuple]:
        """Where each piercing lies along its edge, exactly (integer arithmetic, one scale for all): its parameter,
        then how the model's move shifts it."""
        edges = self.table.edges[self.piercing_edge[piercings]]
        pierced = self.piercing_triangle[piercings]
        points = exact_integers(np.concatenate([self.mesh.corners[pierced], self.mesh.vertices[edges]], axis=1))
        places = []
        for k, (a, b, c, start, end) in enumerate(points.tolist()):
            u, v = [b[i] - a[i] for i in range(3)], [c[i] - a[i] for i in range(3)]
            normal = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
            height = sum(normal[i] * (start[i] - a[i]) for i in range(3))
            span = sum(normal[i] * (start[i] - end[i]) for i in range(3))
            shift = int(self.part[pierced[k]] - self.vertex_part[edges[k, 0]])
            places.append((Fraction(height, span),) + tuple(Fraction(-shift * normal[i], span) for i in range(3)))
        return places

    def _edge_pieces(self) -> None:
        """Every edge cut at its piercings into pieces, each with its ends (from the lower vertex) and the windings
        in front of it; and the windings on the front side of each piercing's triangle (``piercing_front``)."""
        edges, vertices = self.table.edges, self.mesh.vertices
        order = self._piercing_order()
        edge, step = self.piercing_edge[order], self.piercing_step[order]
        point = self.piercing_point[order]
        count = np.bincount(edge, minlength=len(edges))
        first = np.cumsum(count) - count  # each edge's first piercing, in sorted order
        rank = np.arange(len(edge)) - first[edge]
        running = np.cumsum(step, axis=0)
        before = running - step - (running - step)[first[edge]]  # steps of the edge's earlier piercings
        at_piercing = self.vertex_front[edges[edge, 0]] + before
        front = np.minimum(at_piercing, at_piercing + step)
        self.piercing_front = np.empty_like(front)
        self.piercing_front[order] = front
        # pieces: edge e has count[e] + 1, piece j running from break j to break j + 1 (break 0: the lower vertex)
        pieces = count + 1
        piece_edge = np.repeat(np.arange(len(edges)), pieces)
        starts = np.empty((len(piece_edge), 3))
        ends = np.empty((len(piece_edge), 3))
        windings = np.repeat(self.vertex_front[edges[:, 0]], pieces, axis=0)
        first_piece = np.cumsum(pieces) - pieces
        slot = first_piece[edge] + rank  # the piece a piercing ends
        starts[first_piece] = vertices[edges[:, 0]]
        ends[first_piece + pieces - 1] = vertices[edges[:, 1]]
        ends[slot] = point
        starts[slot + 1] = point
        windings[slot + 1] += before + step
        self.piece_edge, self.piece_start, self.piece_end, self.piece_front = piece_edge, starts, ends, windings

    def _segments(self) -> bool:
        """The crossing segments cut at triple crossings, each piece with the windings in front of both its
        triangles (``segment_*``). False when a segment's windings, stepped along it, miss those at its end."""
        c = self.crossings
        mask = c.segment_mask
        start, end = (point[mask] for point in c.segments())
        t, s = self.pairs[mask, 0], self.pairs[mask, 1]
        crosses = np.concatenate([c.a_crosses, c.b_crosses], axis=1)[mask]
        starts = np.concatenate([c.a_starts, c.b_starts], axis=1)[mask]
        rows = np.arange(len(t))
        triangles = self.mesh.triangles
        edge_keys = np.concatenate([self.table.triangle_edges[t], self.table.triangle_edges[s]], axis=1)
        pierced = np.concatenate([np.repeat(s[:, None], 3, 1), np.repeat(t[:, None], 3, 1)], axis=1)
        keys = edge_keys * len(triangles) + pierced
        key_start = keys[rows, np.argmax(crosses & starts, axis=1)]
        key_end = keys[rows, np.argmax(crosses & ~starts, axis=1)]
        front_start = self.piercing_front[np.searchsorted(self.piercing_keys, key_start)]
        front_end = self.piercing_front[np.searchsorted(self.piercing_keys, key_end)]
        triple = self._triple_crossings(t, s, start, end, key_start, key_end)
        if triple is None:
            return False
        segment, param, step = triple
        order = np.lexsort((param, segment))
        segment, param, step = segment[order], param[order], step[order]
        count = np.bincount(segment, minlength=len(t))
        total = np.zeros((len(t), self.solid_count), np.int64)
        np.add.at(total, segment, step)
        if not (front_start + total == front_end).all():
            return False
        pieces = count + 1
        first_piece = np.cumsum(pieces) - pieces
        piece_segment = np.repeat(rows, pieces)
        first_triple = (np.cumsum(count) - count)[segment]
        slot = first_piece[segment] + np.arange(len(segment)) - first_triple  # the piece a triple crossing ends
        low, high = np.zeros(len(piece_segment)), np.ones(len(piece_segment))
        high[slot], low[slot + 1] = param, param
        windings = np.repeat(front_start, pieces, axis=0)
        running = np.cumsum(step, axis=0)
        windings[slot + 1] = front_start[segment] + running - (running - step)[first_triple]
        direction = end - start
        self.segment_t, self.segment_s = t[piece_segment], s[piece_segment]
        self.segment_start = start[piece_segment] + low[:, None] * direction[piece_segment]
        self.segment_end = start[piece_segment] + high[:, None] * direction[piece_segment]
        self.segment_front = windings
        return True

    def _triple_crossings(self, t, s, start, end, key_start, key_end):
        """Where segments meet a third surface: ``(segment, parameter along it, winding change)`` for each, found
        as two segments crossing on a triangle they share (``_host_pairs``), each triple of triangles looked for on
        all three and kept once. Floats decide the pairs that clearly cross or clearly miss (beyond ``TIED`` of
        their lengths); the others, an end on or near the other's line (faces of several surfaces in one plane,
        edges along edges), are decided exactly in the model (``_meet_in_model``). None when a triple's third
        segment is missing (the model disagreeing with itself near a degenerate crossing)."""
        count = len(t)
        first, second, plane = self._host_pairs(t, s, key_start, key_end)
        normal = self.mesh.area_normals[plane]
        p, q = start[first], end[first]
        u, v = start[second], end[second]

        def turn(a, b, c):
            return np.einsum("ij,ij->i", normal, np.cross(b - a, c - a))

        def length(vector):
            return np.sqrt(np.einsum("ij,ij->i", vector, vector))

        at_u, at_v = turn(p, q, u), turn(p, q, v)
        at_p, at_q = turn(u, v, p), turn(u, v, q)
        area = length(normal)
        apart_first = TIED * area * length(q - p) * (length(u - p) + length(v - p))
        apart_second = TIED * area * length(v - u) * (length(p - u) + length(q - u))
        clear_first = np.minimum(np.abs(at_u), np.abs(at_v)) > apart_first
        clear_second = np.minimum(np.abs(at_p), np.abs(at_q)) > apart_second
        meet = (at_u * at_v < 0.0) & (at_p * at_q < 0.0) & clear_first & clear_second
        apart = ((at_u * at_v > 0.0) & clear_first) | ((at_p * at_q > 0.0) & clear_second)
        unsure = np.flatnonzero(~meet & ~apart)  # an end on (or within rounding of) the other's line: decided exactly
        if len(unsure):
            third_a = np.where(t[first[unsure]] == plane[unsure], s[first[unsure]], t[first[unsure]])
            third_b = np.where(t[second[unsure]] == plane[unsure], s[second[unsure]], t[second[unsure]])
            meet[unsure] = self._meet_in_model(np.stack([plane[unsure], third_a, third_b], axis=1))
        exact = np.zeros(len(meet), bool)
        exact[unsure] = True
        first, second, plane, exact = first[meet], second[meet], plane[meet], exact[meet]
        along = np.clip(at_p[meet] / np.where(exact, 1.0, at_p[meet] - at_q[meet]), 0.0, 1.0)
        third_first = np.where(t[second] == plane, s[second], t[second])  # the first segment meets this triangle
        third_second = np.where(t[first] == plane, s[first], t[first])
        _, once = np.unique(np.sort(np.stack([plane, third_first, third_second], axis=1), axis=1), axis=0,
                            return_index=True)
        first, second, plane, along, exact = first[once], second[once], plane[once], along[once], exact[once]
        third_first, third_second = third_first[once], third_second[once]
        point = start[first] + along[:, None] * (end[first] - start[first])
        # where the segments only touch, their crossing is ill-defined: the point where the three planes meet
        point[exact] = self._planes_point(np.stack([plane[exact], third_first[exact], third_second[exact]], axis=1))
        low, high = np.minimum(third_first, third_second), np.maximum(third_first, third_second)
        pair_keys = t * len(self.part) + s
        sorted_keys = np.argsort(pair_keys)
        wanted = low * len(self.part) + high
        at = np.minimum(np.searchsorted(pair_keys[sorted_keys], wanted), count - 1)
        if not (pair_keys[sorted_keys[at]] == wanted).all():
            return None
        third = sorted_keys[at]  # the segment of the two other triangles, through the same point
        segments = np.concatenate([first, second, third])
        crossed = np.concatenate([third_first, third_second, plane])
        points = np.concatenate([point, point, point])
        direction = end[segments] - start[segments]
        length = np.maximum(np.einsum("ij,ij->i", direction, direction), np.finfo(float).tiny)
        param = np.clip(np.einsum("ij,ij->i", points - start[segments], direction) / length, 0.0, 1.0)
        return segments, param, self._step(crossed, -self._facing(t[segments], s[segments], crossed))

    def _host_pairs(self, t: np.ndarray, s: np.ndarray, key_start: np.ndarray, key_end: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(first, second, host)``: the pairs of segments lying on one triangle (the host) that may cross: with the
        segments of later surfaces, and of the same surface where it crosses itself; not those sharing an end."""
        host = np.concatenate([t, s])
        which = np.concatenate([np.arange(len(t)), np.arange(len(t))])
        other_part = self.part[np.concatenate([s, t])]
        order = np.lexsort((other_part, host))
        host, which, other_part = host[order], which[order], other_part[order]
        host_end = np.searchsorted(host, host, side="right")
        group = host * len(self.part) + other_part
        begin = np.where(self.own[other_part], np.arange(len(host)) + 1, np.searchsorted(group, group, side="right"))
        number = host_end - begin
        i = np.repeat(np.arange(len(host)), number)
        j = np.repeat(begin, number) + np.arange(number.sum()) - np.repeat(np.cumsum(number) - number, number)
        first, second = which[i], which[j]
        shared = ((key_start[first] == key_start[second]) | (key_start[first] == key_end[second])
                  | (key_end[first] == key_start[second]) | (key_end[first] == key_end[second]))
        return first[~shared], second[~shared], host[i[~shared]]

    def _facing(self, first: np.ndarray, second: np.ndarray, crossed: np.ndarray) -> np.ndarray:
        """(K,) the sign of (n_first x n_second) . n_crossed: +1 where the segment of the first two triangles (along
        n_first x n_second) leaves the crossed one's solid through its front. Exact: floats where their rounding
        cannot change it, integers otherwise."""
        normals = self.mesh.area_normals
        a, b, c = normals[first], normals[second], normals[crossed]
        value = np.einsum("ij,ij->i", np.cross(a, b), c)
        bound = TIED * np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1) * np.linalg.norm(c, axis=1)
        signs = np.sign(value).astype(np.int64)
        for row in np.flatnonzero(np.abs(value) <= bound):
            corners = exact_integers(self.mesh.corners[[first[row], second[row], crossed[row]]]).tolist()
            exact = [_cross([y - x for x, y in zip(k[0], k[1])], [y - x for x, y in zip(k[0], k[2])]) for k in corners]
            det = _dot(_cross(exact[0], exact[1]), exact[2])
            signs[row] = (det > 0) - (det < 0)
        return signs

    def _planes_point(self, triples: np.ndarray) -> np.ndarray:
        """(K, 3) the point where the planes of each row's three triangles meet (they do: ``_meet_in_model``)."""
        normals = self.mesh.area_normals[triples]
        offsets = np.einsum("kij,kij->ki", normals, self.mesh.corners[triples][:, :, 0])
        return np.linalg.solve(normals, offsets[:, :, None])[:, :, 0]

    def _meet_in_model(self, triples: np.ndarray) -> np.ndarray:
        """(K,) whether the three triangles of each row share a point in the model (surface k moved by k δ,
        δ = (ε, ε², ε³)), exactly: the point X where their planes meet (Cramer's rule, times det N) lies on the
        inner side of every edge of all three. Each sign is that of a polynomial linear in δ: its value, else its
        first non-zero derivative. Planes sharing a line or a direction (det N = 0) meet in no point."""
        corners = exact_integers(self.mesh.corners[triples.ravel()].reshape(len(triples), 9, 3))
        shifts = self.part[triples].tolist()
        found = np.zeros(len(triples), bool)
        for row, (points, shift) in enumerate(zip(corners.tolist(), shifts)):
            found[row] = _meet(points, shift)
        return found

    def volume(self, region: Region) -> tuple[float, np.ndarray | None] | None:
        """The divergence theorem over the pieces where ``region`` starts: each piece's boundary edges, weighted by
        how much the region's indicator jumps across its triangle there, fanned from its triangle's first corner.
        None when those edges do not close (``_closed``)."""
        mesh, table = self.mesh, self.table
        unit = np.eye(self.solid_count, dtype=np.int64)

        def jump(triangles, windings):  # indicator behind the triangle minus in front of it
            behind = windings + unit[self.solid[triangles]]
            return region(behind).astype(np.int64) - region(windings).astype(np.int64)

        # edge pieces: each triangle's uses of its edges, in the triangle's direction; both triangles of an edge are
        # of one surface, so one jump per piece
        owner = uses_by_edge(table)  # each edge's two uses, side by side
        edge_triangle = (owner // 3).reshape(-1, 2)[:, 0]
        piece_jump = jump(edge_triangle[self.piece_edge], self.piece_front)
        live = np.flatnonzero(piece_jump != 0)
        uses = table.triangle_edges.ravel()
        live_edge = np.zeros(len(table.edges), bool)
        live_edge[self.piece_edge[live]] = True
        use = np.flatnonzero(live_edge[uses])
        by_edge = np.argsort(self.piece_edge[live], kind="stable")
        live = live[by_edge]
        first = np.searchsorted(self.piece_edge[live], uses[use])
        number = np.searchsorted(self.piece_edge[live], uses[use], side="right") - first
        use_of = np.repeat(use, number)
        pick = live[np.repeat(first, number) + np.arange(number.sum()) - np.repeat(np.cumsum(number) - number,
                                                                                     number)]
        forward = table.forward.ravel()[use_of]
        parts = [(use_of // 3, np.where(forward[:, None], self.piece_start[pick], self.piece_end[pick]),
                  np.where(forward[:, None], self.piece_end[pick], self.piece_start[pick]), piece_jump[pick])]
        # segment pieces: on t along the segment, on s against it; the side behind the other triangle on the left
        t, s, front = self.segment_t, self.segment_s, self.segment_front
        on_t = jump(t, front + unit[self.solid[s]]) - jump(t, front)
        on_s = jump(s, front + unit[self.solid[t]]) - jump(s, front)
        parts.append((t, self.segment_start, self.segment_end, on_t))
        parts.append((s, self.segment_end, self.segment_start, on_s))
        origin = 0.5 * (mesh.vertices.min(axis=0) + mesh.vertices.max(axis=0))
        host = np.concatenate([part[0] for part in parts])
        weight = np.concatenate([part[3] for part in parts]).astype(np.float64)
        keep = weight != 0.0
        host, weight = host[keep], weight[keep]
        c = mesh.corners[host, 0] - origin
        p = np.concatenate([part[1] for part in parts])[keep] - origin
        q = np.concatenate([part[2] for part in parts])[keep] - origin
        if not _closed(host, weight, p, q, c, mesh.size):
            return None
        volumes = weight * np.einsum("ij,ij->i", c, np.cross(p, q)) / 6.0
        volume = float(volumes.sum())
        if volume <= 0.0:
            return 0.0, None
        return volume, origin + (volumes[:, None] * (c + p + q)).sum(axis=0) / (4.0 * volume)


def _cross(u: list, v: list) -> list:
    return [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]


def _dot(u: list, v: list) -> int:
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


def _meet(points: list, shift: list) -> bool:
    """``_Arrangement._meet_in_model`` of one triple: ``points`` the 9 corners (3 per triangle) as integers,
    ``shift`` each triangle's multiple of δ."""
    corners = [points[0:3], points[3:6], points[6:9]]
    normals = [_cross([b - a for a, b in zip(c[0], c[1])], [b - a for a, b in zip(c[0], c[2])]) for c in corners]
    det = _dot(normals[0], _cross(normals[1], normals[2]))
    if det == 0:
        return False
    # adj(N) columns: X * det = adj(N) d with d_i = n_i . (corner_i + k_i δ); adj(N) = [n1 x n2, n2 x n0, n0 x n1]
    columns = [_cross(normals[1], normals[2]), _cross(normals[2], normals[0]), _cross(normals[0], normals[1])]
    offsets = [_dot(normals[i], corners[i][0]) for i in range(3)]
    value = [sum(columns[i][axis] * offsets[i] for i in range(3)) for axis in range(3)]
    # derivative along δ's component c: d_i gains k_i n_i[c]
    slopes = [[sum(columns[i][axis] * shift[i] * normals[i][c] for i in range(3)) for axis in range(3)]
              for c in range(3)]
    for k in range(3):
        normal, triangle = normals[k], corners[k]
        for edge in range(3):
            p, q = triangle[edge], triangle[(edge + 1) % 3]
            along = [b - a for a, b in zip(p, q)]
            terms = [_dot(normal, _cross(along, [value[axis] - det * p[axis] for axis in range(3)]))]
            for c in range(3):  # the corner moves with its triangle: X - p gains (slope - det k e_c) δ_c
                moved = [slopes[c][axis] - (det * shift[k] if axis == c else 0) for axis in range(3)]
                terms.append(_dot(normal, _cross(along, moved)))
            sign = next((1 if term > 0 else -1 for term in terms if term != 0), 0)
            if sign * (1 if det > 0 else -1) <= 0:
                return False
    return True
