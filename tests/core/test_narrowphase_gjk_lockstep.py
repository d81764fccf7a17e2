"""GJK in lockstep (``gjk_lockstep.gjk_many``) and the closest points of stacked simplices (``stacked_simplex``) are
the scalar code's bit for bit: every float of every result, on seeded random and degenerate simplices, random pairs of
every kind (turned, flat, single points, exact ties on grids, tiny and far), iteration caps, and the kitbashed roof."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import core
from core.narrowphase import simplex
from core.narrowphase.collide import PreparedPair, seeded, seeded_many
from core.narrowphase.gjk import gjk
from core.narrowphase.epa import expand_simplex
from core.narrowphase.gjk_lockstep import closest_on_simplices, gjk_many, whole_seeds
from core.narrowphase.stacked_simplex import closest_on_segments, closest_on_tetrahedra, closest_on_triangles
from generators import affine, box, cloud, cylinder, random_rotation, sphere

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from kitbash_scene import roof  # noqa: E402  (needs the path above)


def bits(value) -> bytes:
    """The exact floats of a nested structure of numbers (-0.0 and 0.0 told apart)."""
    return np.asarray(value, dtype=np.float64).tobytes()


def random_simplices(seed: int, count: int, corners: int) -> np.ndarray:
    """(count, corners, 3) simplices around the origin: general ones, slivers, collinear and repeated corners,
    corners on a coarse grid (exact zeros and ties), tiny and large ones, and some with the origin inside."""
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(count, corners, 3))
    kind = np.arange(count) % 8
    base, spread = points[:, :1], points[:, 1:2] - points[:, :1]
    ramp = rng.uniform(-1, 1, (count, corners, 1))
    points[kind == 1] = (base + ramp * spread + 1e-9 * rng.normal(size=(count, corners, 3)))[kind == 1]  # slivers
    points[kind == 2] = (base + ramp * spread)[kind == 2]  # collinear to rounding
    points[kind == 3, -1] = points[kind == 3, 0]  # a repeated corner
    points[kind == 4] = np.round(points[kind == 4] * 2.0) / 2.0  # grid: zeros, ties, -0.0 after products
    points[kind == 5] *= 1e-30
    points[kind == 6] = points[kind == 6] * 1e8 + rng.uniform(-1e8, 1e8, (1, 3))
    points[kind == 7] -= points[kind == 7].mean(axis=1, keepdims=True) * rng.uniform(0.5, 1.0, (int((kind == 7).sum()), 1, 1))
    flat = np.arange(count) % 5 == 0  # flat in one axis (on the origin's plane for some)
    points[flat, :, 2] = np.where(np.arange(count)[flat, None] % 2 == 0, 0.0, 0.25)
    return points


def contact_bits(contact: core.Contact) -> tuple:
    return tuple(getattr(contact, name) if isinstance(getattr(contact, name), (str, int)) else
                 bits(getattr(contact, name)) for name in core.Contact.__dataclass_fields__)


def scalar_rows(points: np.ndarray, solver) -> list:
    return [solver(*map(tuple, row.tolist())) for row in points]


@pytest.mark.parametrize("seed", range(3))
def test_stacked_segments_and_triangles_are_the_scalar_ones(seed):
    for corners, stacked, solver in ((2, closest_on_segments, simplex.closest_on_segment),
                                     (3, closest_on_triangles, simplex.closest_on_triangle)):
        points = random_simplices(seed, 4000, corners)
        found, weights = stacked(*(points[:, k] for k in range(corners)))
        for row, (point, row_weights) in enumerate(scalar_rows(points, solver)):
            assert bits(found[row]) == bits(point) and bits(weights[row]) == bits(row_weights), row


@pytest.mark.parametrize("seed", range(3))
def test_stacked_tetrahedra_are_the_scalar_ones(seed):
    points = random_simplices(10 + seed, 4000, 4)
    found, weights, enclosed = closest_on_tetrahedra(points)
    for row, tetrahedron in enumerate(points.tolist()):
        point, row_weights, row_enclosed = simplex.closest_on_tetrahedron([tuple(p) for p in tetrahedron])
        assert bits(found[row]) == bits(point) and bits(weights[row]) == bits(row_weights), row
        assert enclosed[row] == row_enclosed
    assert 0 < enclosed.sum() < len(points)


def test_simplices_of_mixed_sizes():
    points = random_simplices(20, 800, 4)
    sizes = np.arange(800) % 4 + 1
    found, weights, enclosed = closest_on_simplices(points, sizes)
    for row, (size, corners) in enumerate(zip(sizes.tolist(), points.tolist())):
        point, row_weights, row_enclosed = core.narrowphase.gjk.closest_on_simplex([tuple(p) for p in corners[:size]])
        assert bits(found[row]) == bits(point) and bits(weights[row, :size]) == bits(row_weights)
        assert not weights[row, size:].any() and enclosed[row] == row_enclosed


def assert_same_result(together, alone) -> None:
    assert together.overlapping == alone.overlapping and together.status == alone.status
    assert together.iterations == alone.iterations and len(together.simplex) == len(alone.simplex)
    assert bits(together.v) == bits(alone.v) and bits(together.weights) == bits(alone.weights)
    assert bits(together.simplex) == bits(alone.simplex) and bits(together.lower_bound) == bits(alone.lower_bound)
    assert (together.normal is None) == (alone.normal is None)
    assert together.normal is None or bits(together.normal) == bits(alone.normal)


def pair_shapes(seed: int, count: int) -> tuple[list, list]:
    """Pairs of every kind GJK meets: overlapping, touching and apart; hulls, boxes turned by their transform,
    flat and linear clouds, single points, grid clouds with exact ties, tiny and far pairs, boxes and spheres
    (answered by their own supports)."""
    rng = np.random.default_rng(seed)
    grid = np.stack(np.meshgrid(*[np.linspace(-0.5, 0.5, 3)] * 3), axis=-1).reshape(-1, 3)
    makers = (lambda: cloud(rng, int(rng.integers(4, 40))), lambda: sphere(int(rng.integers(12, 80)), 0.5),
              lambda: box(rng.uniform(0.1, 0.6, 3)), lambda: grid, lambda: cylinder(int(rng.integers(3, 12))),
              lambda: np.column_stack([rng.uniform(-0.5, 0.5, (6, 2)), np.zeros(6)]),
              lambda: np.outer(rng.uniform(-0.5, 0.5, 5), rng.normal(size=3)), lambda: rng.normal(size=(1, 3)) * 0.1)
    shapes_a, shapes_b = [], []
    for k in range(count):
        scale = (1.0, 1e-3, 1e3, 1.0)[k % 4]
        points_a, points_b = makers[k % len(makers)]() * scale, makers[(k // 3) % len(makers)]() * scale
        offset = rng.uniform(-50, 50, 3) * scale
        move = np.round(rng.uniform(-0.8, 0.8, 3) * 4.0) / 4.0 if k % 5 == 0 else rng.uniform(-0.8, 0.8, 3)
        if k % 7 == 3:
            shapes_a.append(core.Box(rng.uniform(0.1, 0.5, 3) * scale, affine(random_rotation(rng), offset)))
        elif k % 7 == 5:
            shapes_a.append(core.Polytope(points_a, transform=affine(random_rotation(rng) * 1.5, offset)))
        else:
            shapes_a.append(core.Polytope(points_a + offset))
        shapes_b.append(core.Polytope(points_b + offset + move * scale) if k % 3 else
                        core.Polytope(points_b, transform=affine(random_rotation(rng), offset + move * scale)))
    return shapes_a, shapes_b


@pytest.mark.parametrize("seed", range(3))
def test_gjk_many_is_gjk_pair_by_pair(seed):
    shapes_a, shapes_b = pair_shapes(seed, 400)
    pairs = [PreparedPair(a, b, None, None, None) for a, b in zip(shapes_a, shapes_b)]
    pairs = [pair for pair in pairs if pair.unit == 1.0]
    together, _whole = gjk_many(pairs)
    alone = [gjk(pair.support, pair.first_direction(), tolerance=pair.local_solver_tolerance,
                 max_iterations=pair.max_iterations) for pair in pairs]
    for x, y in zip(together, alone):
        assert_same_result(x, y)
    assert {result.overlapping for result in alone} == {True, False}
    assert_same_seeds(pairs)
    assert {result.status for result in alone} >= {"converged"} and max(r.iterations for r in alone) >= 5


@pytest.mark.parametrize("cap", (1, 2, 3))
def test_iteration_caps(cap):
    shapes_a, shapes_b = pair_shapes(7, 120)
    pairs = [PreparedPair(a, b, None, None, cap) for a, b in zip(shapes_a, shapes_b)]
    pairs = [pair for pair in pairs if pair.unit == 1.0]
    together, _whole = gjk_many(pairs)
    for pair, result in zip(pairs, together):
        assert_same_result(result, gjk(pair.support, pair.first_direction(), tolerance=pair.local_solver_tolerance,
                                       max_iterations=cap))
    assert any(result.status == "iteration_limit" for result in together)


def test_seeds_of_the_roofs_hulls_are_each_pairs_own():
    """The 8 x 10 kitbashed roof's candidate pairs' hulls (thin tiles: many sliver triangles), and pairs too large
    to solve unscaled: ``seeded_many`` is ``seeded`` pair by pair."""
    _names, meshes = roof(8, 10, np.random.default_rng(0))
    hulls = [core.Polytope(vertices) for vertices, _triangles in meshes]
    lows, highs = np.array([h.bounds()[0] for h in hulls]), np.array([h.bounds()[1] for h in hulls])
    candidates = core.overlapping_pairs(lows, highs, margin=1e-5).tolist()
    pairs = [PreparedPair(hulls[i], hulls[j], 1e-9, 1e-5, None) for i, j in candidates]
    points = sphere(40, 0.5)
    pairs += [PreparedPair(points * 1e40, (points + 0.3) * 1e40, None, None, None)]
    assert_same_seeds(pairs)
    assert len(pairs) > 400


def assert_same_seeds(pairs: list[PreparedPair]) -> None:
    """``seeded_many`` is ``seeded`` pair by pair: GJK's contact, or its result and the seed, to the bit; the seeds
    it gives as arrays too are those seeds."""
    begun, whole = seeded_many(pairs, arrays=True)
    for k, w, a, b in zip(whole.index.tolist(), whole.w, whole.a, whole.b):
        assert bits(begun[k][1].vertices) == bits(np.stack([w, a, b], axis=1))
    assert {k for k, found in enumerate(begun) if not isinstance(found[0], core.Contact)
            and found[1].vertices == found[0].simplex and found[1].dimension == 3} >= set(whole.index.tolist())
    for pair, found in zip(pairs, begun):
        single = seeded(pair)
        assert type(found[0]) is type(single[0]) and len(found) == len(single)
        if isinstance(single[0], core.Contact):
            assert contact_bits(found[0]) == contact_bits(single[0]) and bits(found[2]) == bits(single[2])
            continue
        assert_same_result(found[0], single[0])
        seed, alone = found[1], single[1]
        assert bits(seed.vertices) == bits(alone.vertices) and seed.dimension == alone.dimension
        assert bits(seed.lower_bound) == bits(alone.lower_bound) and bits(seed.flat_normal) == bits(alone.flat_normal)


def test_seeds_of_nearly_flat_differences():
    """Overlapping pairs whose A - B is flat to within the tolerance or a little more (a flat square on another, or
    just above it; slabs thinner than the tolerance; points repeated within it): GJK's last tetrahedron is too thin
    or too small for ``expand_simplex`` to keep whole, and the seed is the scalar code's."""
    rng = np.random.default_rng(5)
    pairs = []
    for k in range(160):
        lift = (0.0, 1e-15, 1e-13, 1e-11, 1e-9)[k % 5]
        flat_a = np.column_stack([rng.uniform(-0.5, 0.5, (6, 2)), np.zeros(6)])
        flat_b = np.column_stack([rng.uniform(-0.5, 0.5, (6, 2)), np.full(6, 0.5 * lift)])
        if k % 3:  # A a slab as thick as the lift (B inside it)
            flat_a = np.vstack([flat_a, flat_a + [0.0, 0.0, lift]])
        if k % 3 == 2:  # B's points repeated within the lift
            flat_b = np.vstack([flat_b, flat_b + rng.normal(size=flat_b.shape) * lift])
        turn = random_rotation(rng)
        pairs.append(PreparedPair(flat_a @ turn.T, flat_b @ turn.T, None, None, None))
    whole = gjk_many(pairs, np.array([pair.local_tolerance for pair in pairs]))[1]
    assert_same_seeds(pairs)
    assert 0 < len(whole.index) < len(pairs)


@pytest.mark.parametrize("tolerance", (1e-12, 1e-3, 0.3))
def test_whole_seeds_are_the_tetrahedra_expand_simplex_keeps(tolerance):
    """``whole_seeds`` says True exactly where ``expand_simplex`` keeps GJK's tetrahedron as its seed without a
    support query: vertices apart by more than the tolerance, none within it of the others' plane."""
    points = random_simplices(30, 3000, 4)
    points[::7, 3] = points[::7, 0] + tolerance * 0.5 * np.sign(np.arange(0, 3000, 7) % 2 - 0.5)[:, None]
    whole = whole_seeds(points, np.full(len(points), tolerance))

    def no_support(direction):
        raise AssertionError("a support query")

    kept = []
    for tetrahedron in points.tolist():
        simplex = [(tuple(p), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)) for p in tetrahedron]
        try:
            seed = expand_simplex(no_support, simplex, tolerance)
        except AssertionError:
            kept.append(False)
            continue
        kept.append(seed.dimension == 3 and seed.vertices == simplex)
    assert whole.tolist() == kept
    assert 0 < whole.sum() < len(points)
