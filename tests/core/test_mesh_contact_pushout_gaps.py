"""The push-out's gap ends (``pushout_gaps``): per triangle pair the offsets along a direction where the triangles meet
(checked against the exact triangle test), the ends of the union's gaps (against a plain sweep), exact push-outs by
hand (a box across a U-bracket's wall, a box inside another), and the search that tries the gap ends before
bisecting against the one that only bisects on seeded non-convex scenes: never longer beyond the bisection's
bracket, every push-out separating by the exact test asked on its own, and far fewer offsets asked.
"""

import numpy as np
import pytest

from core.mesh import Solid
from core.mesh.contact.containment import share_interior, share_interior_moved
from core.mesh.contact.pushout import PUSHOUT_STEPS, certified_pushout, gap_request, pushout_directions
from core.mesh.contact.pushout_gaps import (TriangleTerms, axis_numbers, first_gap_ends, meeting_intervals,
                                           pushout_gap_ends, swept_boxes_meet)
from core.mesh.triangle_intersection import intersect_triangle_pairs
from core.vector.arrays import cross, dot, dot_rows
from mesh_fixtures import box, extrude, l_bracket, manifold_overlap, torus, transformed, uv_sphere
from test_mesh_contact_batched_pushout import U_CHANNEL, seeded_pairs

AXES = np.vstack([np.eye(3), -np.eye(3)])


def random_triangle_pairs(count: int, seed: int):
    rng = np.random.default_rng(seed)
    directions = rng.normal(size=(count, 3))
    directions[: count // 4] = AXES[rng.integers(0, 6, count // 4)]  # some along the axes, as the search asks
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    return rng.uniform(-1.0, 1.0, (count, 3, 3)), rng.uniform(-1.0, 1.0, (count, 3, 3)), directions


def meet(a, b, directions, lengths):
    return intersect_triangle_pairs(a, b + (lengths[:, None] * directions)[:, None, :]).crossing


@pytest.mark.parametrize("seed", range(2))
def test_meeting_intervals_are_where_the_moved_triangles_meet(seed):
    """Inside each interval the exact triangle test finds the pairs crossing, a hair outside it never; pairs with no
    interval do not meet at any of 161 offsets."""
    a, b, directions = random_triangle_pairs(3000, seed)
    low, high = meeting_intervals(TriangleTerms.of(a), TriangleTerms.of(b), directions, np.zeros(len(a)))
    some = low <= high
    assert 0.3 < some.mean() < 0.9
    for share in (0.001, 0.5, 0.999):
        assert meet(a[some], b[some], directions[some], low[some] + share * (high - low)[some]).all()
    for beyond in (-1e-6, 1e-6):
        edge = np.where(beyond < 0.0, low, high)[some] + beyond
        assert not meet(a[some], b[some], directions[some], edge).any()
    met = np.zeros(len(a), dtype=bool)
    for length in np.linspace(-4.0, 4.0, 161):
        met |= meet(a, b, directions, np.full(len(a), length))
    assert not (met & ~some).any()


def item_major_intervals(a, b, directions, shrink):
    """The intervals as first written, a reference: (R, 11) arrays, every rate from n·d and (d × e_a)·e_b."""
    edges_a, edges_b = a[:, [1, 2, 0]] - a, b[:, [1, 2, 0]] - b
    normal_a, normal_b = cross(edges_a[:, 0], edges_a[:, 1]), cross(edges_b[:, 0], edges_b[:, 1])
    on_a, off_a = dot_rows(cross(a, edges_a), edges_b), dot_rows(cross(a[:, [2, 0, 1]], edges_a), edges_b)
    on_b, off_b = dot_rows(edges_a, cross(b, edges_b)), dot_rows(edges_a, cross(b[:, [2, 0, 1]], edges_b))
    b_along_a, a_along_b = dot_rows(normal_a[:, None], b)[:, 0], dot_rows(normal_b[:, None], a)[:, 0]
    level_a, level_b = dot(normal_a, a[:, 0]), dot(normal_b, b[:, 0])
    count = len(a)
    low = np.concatenate([(level_a - b_along_a.max(axis=1))[:, None], (a_along_b.min(axis=1) - level_b)[:, None],
                          (np.minimum(on_a, off_a) + np.minimum(on_b, off_b)).reshape(count, 9)], axis=1)
    high = np.concatenate([(level_a - b_along_a.min(axis=1))[:, None], (a_along_b.max(axis=1) - level_b)[:, None],
                           (np.maximum(on_a, off_a) + np.maximum(on_b, off_b)).reshape(count, 9)], axis=1)
    rate = np.concatenate([dot(normal_a, directions)[:, None], dot(normal_b, directions)[:, None],
                           dot_rows(cross(directions[:, None], edges_a), edges_b).reshape(count, 9)], axis=1)
    axes = np.concatenate([normal_a[:, None], normal_b[:, None],
                           cross(edges_a[:, :, None], edges_b[:, None, :]).reshape(count, 9, 3)], axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        first, last = low / rate, high / rate
    starts, ends = np.where(rate > 0.0, first, last), np.where(rate > 0.0, last, first)
    row, axis = np.nonzero(rate == 0.0)
    length = np.sqrt(dot(axes[row, axis], axes[row, axis]))
    margin = shrink[row] * length
    across = ((low[row, axis] < -margin) & (high[row, axis] > margin)) | (length == 0.0)
    starts[row, axis] = np.where(across, -np.inf, np.inf)
    ends[row, axis] = np.where(across, np.inf, -np.inf)
    return starts.max(axis=1), ends.min(axis=1)


@pytest.mark.parametrize("seed", range(3))
def test_meeting_intervals_bit_for_bit_as_first_written(seed):
    """Coordinates-first arrays, the planes' and the edge pairs' bounds apart and the axes' rates read from the facet
    axes give the intervals of the item-major arithmetic bit for bit (a zero's sign aside), on triangles snapped to
    a coarse grid (parallel faces and edges: rates of 0) along the six axes and other directions."""
    a, b, directions = random_triangle_pairs(4000, seed)
    if seed:
        a, b = np.round(a * 4.0) / 4.0, np.round(b * 4.0) / 4.0
    shrink = np.full(len(a), 1e-9)
    low, high = meeting_intervals(TriangleTerms.of(a), TriangleTerms.of(b), directions, shrink)
    reference_low, reference_high = item_major_intervals(a, b, directions, shrink)
    np.testing.assert_array_equal(low, reference_low)
    np.testing.assert_array_equal(high, reference_high)
    assert (low <= high).mean() > 0.2


def test_axis_slabs_as_the_vertices_products():
    """The axes' slab lengths (read from the meshes' boxes) are the vertices' products' extremes bit for bit, also
    where a box side lies at 0 or both objects' sides do (a product's sign of zero)."""
    for low_b in (0.0, -0.0, 0.25, -0.5):
        a = Solid(box((-1.0, 0.0, -0.5), (0.0, 1.0, 0.5)))
        b = Solid(box((low_b, -0.0, -1.0), (1.5, 0.5, 0.0)))
        for direction in pushout_directions(a, b, []):
            extremes = (a.mesh.vertices @ direction.normal).max(), (b.mesh.vertices @ direction.normal).min()
            product = max(float(extremes[0] - extremes[1]), 0.0)
            assert np.float64(direction.slab).tobytes() == np.float64(product).tobytes()
            assert direction.start == direction.slab


@pytest.mark.parametrize("seed", range(3))
def test_swept_boxes_as_every_coordinate_compared(seed):
    """Triangle pairs' boxes swept along segments (the six axes, with zeros of either sign, and other directions):
    the same answers as comparing all three coordinates of every item with its sweep, on boxes snapped to a grid
    (sides that touch exactly, some at 0 and -0)."""
    rng = np.random.default_rng(seed)
    lows = [np.round(rng.uniform(-2.0, 2.0, (3, 40)) * 2.0) / 2.0 for _side in range(2)]
    highs = [low + np.round(rng.uniform(0.0, 2.0, (3, 40)) * 2.0) / 2.0 for low in lows]
    for low in lows:
        low[low == 0.0] = -0.0
    boxes = (lows[0], highs[0], lows[1], highs[1])
    directions = np.vstack([AXES, rng.normal(size=(4, 3))])
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    lower, reach = rng.uniform(0.0, 0.5, len(directions)), rng.uniform(0.5, 1.5, len(directions))
    lower[:3] = 0.0
    sweep_low = np.minimum(lower[:, None] * directions, reach[:, None] * directions)
    sweep_high = np.maximum(lower[:, None] * directions, reach[:, None] * directions)
    i, j = rng.integers(0, 40, 3000), rng.integers(0, 40, 3000)
    row, k = np.repeat(np.arange(3000), 3), rng.integers(0, len(directions), 9000)
    near = swept_boxes_meet(boxes, i, j, row, k, sweep_low, sweep_high, axis_numbers(directions))
    expected = np.ones(len(row), dtype=bool)
    for c in range(3):
        expected &= lows[0][c, i[row]] <= highs[1][c, j[row]] + sweep_high[k, c]
        expected &= lows[1][c, j[row]] + sweep_low[k, c] <= highs[0][c, i[row]]
    np.testing.assert_array_equal(near, expected)
    assert 0.1 < expected.mean() < 0.9


def test_faces_that_only_touch_do_not_meet():
    """A triangle sliding over another in its plane, or along it on an edge, meets it at no length, with a margin or
    without; one crossing the other's plane keeps its interval, the margin aside."""
    a = np.array([[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]] * 3)
    b = np.array([[[0.2, 0.2, 0.0], [0.5, 0.2, 0.0], [0.2, 0.5, 0.0]],  # in a's plane
                  [[0.2, 0.2, 0.0], [0.5, 0.2, 0.0], [0.3, 0.3, 0.5]],  # standing on a
                  [[0.2, 0.2, -0.5], [0.5, 0.2, 0.5], [0.2, 0.3, 0.5]]])  # through a
    directions = np.array([[1.0, 0.0, 0.0]] * 3)
    low, high = meeting_intervals(TriangleTerms.of(a), TriangleTerms.of(b), directions, np.full(3, 1e-9))
    assert (low > high)[:2].all()
    unshrunk_low, unshrunk_high = meeting_intervals(TriangleTerms.of(a), TriangleTerms.of(b), directions, np.zeros(3))
    assert (unshrunk_low > unshrunk_high)[:2].all()
    assert (low[2], high[2]) == (unshrunk_low[2], unshrunk_high[2]) and low[2] < high[2]


def test_first_gap_ends_as_a_plain_sweep():
    """Random intervals in segments: the ends of covered stretches from each segment's start, as a sweep finds them,
    gaps narrower than the join (and the bisection's bracket) closed."""
    rng = np.random.default_rng(3)
    count = 60
    segment = np.sort(rng.integers(0, count, 400))
    low = rng.uniform(0.0, 10.0, len(segment))
    high = low + rng.exponential(0.5, len(segment))
    starts = rng.uniform(0.0, 3.0, count)
    join = rng.choice([0.0, 0.05], count)
    ends = first_gap_ends(segment, low, high, starts, join, count, gaps=3)
    for s in range(count):
        expected, reach = [], starts[s]
        for first, last in sorted(zip(low[segment == s], high[segment == s])):
            if first > reach + join[s] + reach * 2.0**-PUSHOUT_STEPS:
                expected.append(reach)
            reach = max(reach, last)
        expected = (expected + [reach, np.inf, np.inf, np.inf])[:3]
        np.testing.assert_array_equal(ends[s], expected)


def test_a_vertex_passing_a_face_leaves_no_gap():
    """A ball sunk into a bracket's top face, pushed up: where a ring of its vertices passes the face, the triangles
    below and above the ring hand over at one length; rounding there leaves no gap (the exact test cannot see the cap
    poking through with its rim on the face), so the first gap end is where the ball's pole leaves the face."""
    a = Solid(l_bracket())  # top face z = 1
    b = Solid(transformed(uv_sphere(0.3, rings=16, segments=24), offset=(1.6, 0.5, 1.2)))  # 0.1 deep
    (ends,) = pushout_gap_ends([(a, b, np.array([[0.0, 0.0, 1.0]]), 0.0, 1.0)])
    assert ends[0, 0] == pytest.approx(0.1, abs=1e-12)
    contact_free = (ends[0, 0] + 1e-7) * np.array([0.0, 0.0, 1.0])
    assert manifold_overlap(a.mesh, transformed(b.mesh, offset=contact_free))[0] <= 1e-12


def u_bracket_with_box(box_low, box_high):
    return Solid(extrude(U_CHANNEL, 0.0, 1.0)), Solid(box(box_low, box_high))


def test_gap_ends_of_a_box_across_a_brackets_wall():
    """U-bracket (walls x in [0, 0.2] and [0.8, 1], y in [0, 0.8], base y in [0, 0.2], z in [0, 1]) and a box x in
    [0.1, 0.3], y in [0.5, 1.2], z in [0.3, 0.7] across the left wall: along +x it leaves the wall at 0.1 into the
    slot and meets the right wall again until 0.9; along -x it is out at 0.3, +y 0.3, -y 1.2 (through the base),
    ±z 0.7."""
    a, b = u_bracket_with_box((0.1, 0.5, 0.3), (0.3, 1.2, 0.7))
    expected = {(1, 0, 0): [0.1, 0.9], (-1, 0, 0): [0.3], (0, 1, 0): [0.3], (0, -1, 0): [1.2], (0, 0, 1): [0.7],
                (0, 0, -1): [0.7]}
    (ends,) = pushout_gap_ends([(a, b, AXES, 0.0, 10.0)])
    for axis, found in zip(AXES, ends):
        wanted = expected[tuple(int(v) for v in axis)]
        np.testing.assert_allclose(found[: len(wanted)], wanted, rtol=0, atol=1e-9)
        assert np.isinf(found[len(wanted):]).all()
    asked = []

    def separated(offsets):
        asked.append(len(offsets))
        return np.array([not share_interior_moved(a, b, offset) for offset in offsets])

    gaps = pushout_gap_ends([gap_request(a, b, pushout_directions(a, b, []), 0.0)])[0]  # no hull normal: all six axes
    depth, normal = certified_pushout(a, b, [], separated, 0.0, 1e-9, gaps=gaps)
    assert 0.1 - 1e-9 <= depth <= 0.1 * (1 + 2.0**-PUSHOUT_STEPS) + 1e-9 and normal.tolist() == [1.0, 0.0, 0.0]
    assert sum(asked) <= 2


def test_a_box_inside_another_leaves_by_its_nearest_face():
    """A box wholly inside another: unmoved the surfaces do not meet (a gap at 0, skipped: it is the containment);
    the push-out is the distance from the small box's face to the big one's face beyond it, 0.4 along -y."""
    a, b = Solid(box((0, 0, 0), (2, 2, 2))), Solid(box((0.5, 0.2, 0.9), (1.0, 0.4, 1.0)))
    (ends,) = pushout_gap_ends([(a, b, AXES, 0.0, 10.0)])
    np.testing.assert_allclose(ends[:, :2], [[0.0, 1.5], [0.0, 1.8], [0.0, 1.1], [0.0, 1.0], [0.0, 0.4], [0.0, 1.0]],
                               atol=1e-9)
    asked = []

    def separated(offsets):
        asked.append(len(offsets))
        return np.array([not share_interior_moved(a, b, offset) for offset in offsets])

    gaps = pushout_gap_ends([gap_request(a, b, pushout_directions(a, b, []), 0.0)])[0]
    depth, normal = certified_pushout(a, b, [], separated, 0.0, 1e-9, gaps=gaps)
    assert depth == pytest.approx(0.4, abs=1e-9) and normal.tolist() == [0.0, -1.0, 0.0]
    assert sum(asked) <= 2


def curved_pairs(seed: int, count: int = 4) -> list[tuple[Solid, Solid]]:
    """Balls and tori sunk into brackets and channels at seeded places: rings of vertices pass faces on the way out."""
    rng = np.random.default_rng(seed)
    holders = [Solid(l_bracket()), Solid(extrude(U_CHANNEL, 0.0, 1.0))]
    shapes = [uv_sphere(0.3, rings=12, segments=16), torus(0.3, 0.1, 16, 8)]
    places = rng.uniform((0.2, 0.2, 0.6), (1.6, 0.8, 1.2), (count, 3))
    return [(holders[k % 2], Solid(transformed(shapes[(k // 2) % 2], offset=places[k]))) for k in range(count)]


@pytest.mark.parametrize("seed", range(3))
def test_gap_search_against_bisection_on_seeded_scenes(seed):
    """Turned L-brackets, U-channels and notched plates pushed into each other: the push-out found from the gap ends
    is never longer than the bisecting search's beyond that search's bracket, separates by the exact test asked on its
    own, and costs a small share of the offsets."""
    asked = {"gaps": 0, "bisection": 0}
    compared = 0
    for a, b in seeded_pairs(seed, count=6) + curved_pairs(seed):
        if not share_interior(a, b):
            continue
        candidates = [(np.array([0.6, 0.0, 0.8]), 0.3)]

        def separated(offsets, kind):
            asked[kind] += len(offsets)
            return np.array([not share_interior_moved(a, b, offset) for offset in offsets])

        old_depth, _ = certified_pushout(a, b, candidates, lambda o: separated(o, "bisection"), 0.0, 1e-9, levels=3)
        gaps = pushout_gap_ends([gap_request(a, b, pushout_directions(a, b, candidates), 0.0)])[0]
        assert gaps.shape[0] == len(pushout_directions(a, b, candidates))
        depth, normal = certified_pushout(a, b, candidates, lambda o: separated(o, "gaps"), 0.0, 1e-9, levels=3,
                                          gaps=gaps)
        assert depth <= old_depth * (1 + 2.0 ** (1 - PUSHOUT_STEPS)) + 1e-9
        assert not share_interior_moved(a, b, depth * normal)
        assert manifold_overlap(a.mesh, transformed(b.mesh, offset=(depth + 1e-7) * normal))[0] <= 1e-9
        compared += 1
    assert compared >= 4
    assert asked["gaps"] * 5 < asked["bisection"]


@pytest.mark.parametrize("seed", range(2))
def test_pairs_and_directions_measured_together_as_each_alone(seed):
    """Several pairs with many directions each (a triangle pair's extents found once for all its directions) give,
    bit for bit, the gap ends each direction of each pair gets measured alone."""
    rng = np.random.default_rng(seed)
    pairs = [(a, b) for a, b in seeded_pairs(seed, count=6) + curved_pairs(seed) if share_interior(a, b)]
    requests = []
    for a, b in pairs:
        directions = np.vstack([AXES, rng.normal(size=(2, 3))])
        directions /= np.linalg.norm(directions, axis=1, keepdims=True)
        requests.append((a, b, directions, float(rng.uniform(0.0, 0.05)), float(rng.uniform(0.5, 2.0))))
    together = pushout_gap_ends(requests)
    assert len(requests) >= 4 and sum(np.isfinite(ends).sum() for ends in together) >= 20
    for (a, b, directions, lower, reach), ends in zip(requests, together):
        alone = [pushout_gap_ends([(a, b, direction[None], lower, reach)])[0][0] for direction in directions]
        np.testing.assert_array_equal(ends, alone)
