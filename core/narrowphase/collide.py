"""``collide`` and ``intersect``: GJK, then EPA when the shapes overlap, in a pair-local frame (centred, exactly
rescaled, tolerances relative to the pair's size) so that answers do not depend on where or how large the pair is.
See docs/architecture.md, section "Narrow phase: collide's pair-local frame".
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike

from ..contact import Contact, classify, frozen_instance, touch_band
from .epa import Blowup, EpaResult, epa, expand_simplex
from .gjk import GjkResult, closest_on_simplex, gjk, minkowski_support
from .gjk_lockstep import gjk_many
from ..shapes.convex import Polytope, Shape, as_shape
from ..validation import MAX_COORDINATE, MIN_PAIR_SIZE, as_iteration_cap, as_length
from ..vector.vec3 import Vec3, combine, dot, norm, normalized, orthonormal_basis, scale, sub

#: Default solver accuracy, relative to the pair's size.
DEFAULT_RELATIVE_TOLERANCE = 1e-12
#: Floor of the solver accuracy, relative to the pair's size: float64 cannot do better. For shapes whose
#: supports add up larger numbers (``Shape.support_reach`` in the pair's frame: a transform putting a
#: shape's own points far from its local origin) the floor is 4 x SUPPORT_ROUNDING x those numbers.
MIN_RELATIVE_TOLERANCE = 1e-13
#: Bound on how far a computed support value falls short of the exact one, relative to the numbers the
#: support adds up: two 3-term dot products compared, for each of A and B.
SUPPORT_ROUNDING = 12.0 * math.sqrt(3.0) * 2.0 ** -53
#: Pair sizes solved as they are; others are divided by a power of two near their size first.
UNSCALED_SIZES = (2.0 ** -100, 2.0 ** 100)
#: Smallest automatic iteration cap; above it the cap grows with the shapes' vertex counts.
MIN_AUTOMATIC_ITERATIONS = 256


class PreparedPair:
    """Two shapes in their shared local frame (centred, divided by ``unit``), with the tolerances
    that frame implies. Lengths named ``local_*`` are in that frame, the others in world units."""

    def __init__(self, a, b, tolerance, touch_tolerance, max_iterations):
        a, b = as_shape(a, "points_a"), as_shape(b, "points_b")
        self._prepare(a, b, *_checked_options(tolerance, touch_tolerance, max_iterations))

    @classmethod
    def many(cls, shapes_a, shapes_b, tolerance, touch_tolerance, max_iterations) -> list[PreparedPair]:
        """``[PreparedPair(a, b, ...) for a, b in zip(shapes_a, shapes_b)]``, the options checked once."""
        pairs, options = [], None
        for a, b in zip(shapes_a, shapes_b):
            pair = cls.__new__(cls)
            a, b = as_shape(a, "points_a"), as_shape(b, "points_b")
            options = _checked_options(tolerance, touch_tolerance, max_iterations) if options is None else options
            pair._prepare(a, b, *options)
            pairs.append(pair)
        return pairs

    def _prepare(self, a: Shape, b: Shape, tolerance: float | None, touch_tolerance: float | None,
                 cap: int | None) -> None:
        self.a, self.b = a, b
        self.max_iterations = _automatic_cap(a, b) if cap is None else cap
        # Plain floats, written out: a prepared pair is re-solved at every move, and numpy's per-call cost on
        # 3-vectors would be a good part of a small pair's query (the same operations, so the same floats).
        (lax, lay, laz), (hax, hay, haz) = _measurable_bounds(a, "points_a")
        (lbx, lby, lbz), (hbx, hby, hbz) = _measurable_bounds(b, "points_b")
        # np.minimum's and np.maximum's choices, signed zeros included
        lx, ly, lz = lax if lax < lbx else lbx, lay if lay < lby else lby, laz if laz < lbz else lbz
        hx, hy, hz = hax if hax > hbx else hbx, hay if hay > hby else hby, haz if haz > hbz else hbz
        self.center_tuple = cx, cy, cz = 0.5 * (lx + hx), 0.5 * (ly + hy), 0.5 * (lz + hz)
        shift = (-cx, -cy, -cz)
        self.local_a, self.local_b = local_a, local_b = a.translated(shift), b.translated(shift)
        # A support point is the argmax of dot products rounded at eps x the numbers the shape's support adds
        # up in the pair's frame (about the pair's size: not its distance from the origin): its value can fall
        # short of the true support value by this much (world units); lower bounds allow for it.
        reach = max(local_a.support_reach(), local_b.support_reach())
        support_rounding = SUPPORT_ROUNDING * reach
        size = max(hx - lx, hy - ly, hz - lz)
        if 0.0 < size < MIN_PAIR_SIZE:
            raise ValueError(f"points_a and points_b span only {size:.3g} together: pairs smaller than "
                             f"{MIN_PAIR_SIZE:g} are too small to measure in float64")
        # Sizes within 2^-100 .. 2^100 leave every square the solver forms far inside float64's range;
        # beyond, the pair is divided by a power of two near its size (exactly).
        self.unit = unit = 1.0 if UNSCALED_SIZES[0] <= size <= UNSCALED_SIZES[1] or size == 0.0 else \
            math.ldexp(1.0, math.frexp(size)[1])
        self.rounding = MIN_RELATIVE_TOLERANCE * size
        self.tolerance, self.touch_tolerance = pair_tolerances(size, reach, tolerance, touch_tolerance)
        self.local_tolerance, self.local_rounding = self.tolerance / unit, self.rounding / unit
        self.local_support_rounding = support_rounding / unit
        # What GJK and EPA aim for, so that the bounds, widened by the support rounding, meet the tolerance.
        self.local_solver_tolerance = self.local_tolerance - 2.0 * self.local_support_rounding
        self.margin = a.margin + b.margin
        self.a_to_b = (0.5 * (lbx + hbx - lax - hax) / unit, 0.5 * (lby + hby - lay - hay) / unit,
                       0.5 * (lbz + hbz - laz - haz) / unit)
        self.support = minkowski_support(local_a.support, local_b.support, unit)

    @cached_property
    def center(self) -> np.ndarray:
        """The pair's frame's origin in world space (3,)."""
        return np.array(self.center_tuple)

    def first_direction(self) -> Vec3:
        """Search A - B first toward B-to-A: any direction gives the same distance."""
        return scale(self.a_to_b, -1.0) if norm(self.a_to_b) > 0.0 else (1.0, 0.0, 0.0)

    def orient(self, normal: Vec3 | None) -> Vec3:
        """Sign an undetermined normal (flat contact) so that it points from A toward B."""
        if normal is None:
            normal = self.a_to_b if norm(self.a_to_b) > 0.0 else (0.0, 0.0, 1.0)
        normal = normalized(normal)
        alignment = dot(normal, self.a_to_b)
        if alignment == 0.0:  # no preferred side: make the largest component positive
            alignment = max(normal, key=abs)
        return scale(normal, -1.0) if alignment < 0.0 else normal


def _checked_options(tolerance, touch_tolerance, max_iterations) -> tuple[float | None, float | None, int | None]:
    """``collide``'s keywords checked: ``(tolerance, touch_tolerance, iteration cap)``."""
    return (as_length(tolerance, "tolerance", allow_none=True),
            as_length(touch_tolerance, "touch_tolerance", allow_none=True),
            None if max_iterations is None else as_iteration_cap(max_iterations, "max_iterations"))


def _automatic_cap(a: Shape, b: Shape) -> int:
    """Iteration cap for ``max_iterations=None``: never the reason to stop. Each EPA step adds a new
    point of A - B (or stops), and A - B has at most count_a x count_b of them; each GJK step
    shortens |v| strictly, over simplices of those points. A deep contact of two 2,000-vertex spheres
    takes about 2,000 EPA steps."""
    count_a = len(a.points) if isinstance(a, Polytope) else 8
    count_b = len(b.points) if isinstance(b, Polytope) else 8
    return max(MIN_AUTOMATIC_ITERATIONS, count_a * count_b)


def pair_tolerances(size: float, reach: float, tolerance: float | None, touch_tolerance: float | None
                    ) -> tuple[float, float]:
    """``(solver tolerance, touch band)`` in world units for a pair whose box has largest extent ``size`` and
    whose supports add up numbers as large as ``reach``: the defaults are relative to the size, never below
    the rounding of those supports."""
    floor = max(MIN_RELATIVE_TOLERANCE * size, 4.0 * SUPPORT_ROUNDING * reach)
    return touch_band(size, tolerance, touch_tolerance, DEFAULT_RELATIVE_TOLERANCE, floor)


def _measurable_bounds(shape: Shape, name: str) -> tuple[list, list]:
    """The shape's world box as two lists of floats, refused by name when a transform or radius takes it beyond
    float64's squares."""
    low, high = shape.box()
    reach = max(map(abs, low + high))
    if not reach <= MAX_COORDINATE:
        raise ValueError(f"{name} reaches {reach:.3g} in world space, beyond ±{MAX_COORDINATE:g}: "
                         "too large to measure")
    return low, high


def collide(points_a: ArrayLike | Shape, points_b: ArrayLike | Shape, *, tolerance: float | None = None,
            touch_tolerance: float | None = None, max_iterations: int | None = None) -> Contact:
    """Contact between the convex hulls of two point clouds (or two prepared ``core`` shapes).

    See ``Contact`` for the conventions. ``tolerance`` is the solver accuracy in world units (default
    1e-12 x the pair's size); ``touch_tolerance`` is the band reported as 'touching' (default: the
    solver accuracy, never less); ``max_iterations`` caps GJK and EPA each (default None: a cap that
    grows with the shapes' vertex counts, so that default settings never stop at it).
    """
    return _solve(PreparedPair(points_a, points_b, tolerance, touch_tolerance, max_iterations))


def _solve(pair: PreparedPair) -> Contact:
    """GJK, then (enclosed origin, or GJK stalled by rounding on a thin A - B) EPA from either side."""
    return solve_pair(pair)[0]


def solve_pair(pair: PreparedPair, start: list | None = None) -> tuple[Contact, EpaResult | None, list | None]:
    """``_solve``'s answer (GJK from the ``start`` simplex when given, see ``gjk``), and EPA's (with its final
    polytope) when that is what the answer comes from, or else GJK's final simplex when the answer is GJK's."""
    begun = seeded(pair, start)
    if isinstance(begun[0], Contact):
        return begun
    result, seed = begun
    found = None if seed.dimension < 3 else epa(pair.support, seed.vertices, tolerance=pair.local_solver_tolerance,
                                                max_iterations=pair.max_iterations, rounding=pair.local_rounding)
    return after_epa(pair, result, seed, found)


def seeded(pair: PreparedPair, start: list | None = None) -> tuple:
    """GJK (from ``start``, see ``solve_pair``), then, when it does not answer, the seed EPA grows: ``(GJK's
    result, the seed)`` (``expand_simplex``); or ``solve_pair``'s answer from GJK (a Contact first)."""
    return _seeded_from(pair, gjk(pair.support, pair.first_direction(), tolerance=pair.local_solver_tolerance,
                                  max_iterations=pair.max_iterations, start=start))


def seeded_many(pairs: list[PreparedPair], arrays: bool = False, sides: tuple | None = None):
    """``[seeded(pair) for pair in pairs]``, the GJK of the pairs solved unscaled run in lockstep (``gjk_many``: the
    same results bit for bit), and so is the seed of each whose GJK tetrahedron ``expand_simplex`` keeps whole. With
    ``arrays``, ``(that list, WholeSeeds)``: those pairs and their seeds' vertices as arrays too. ``sides`` are the
    pairs' ``gjk_lockstep.stacked_sides`` when the caller has them (used when every pair is solved unscaled)."""
    together = [k for k, pair in enumerate(pairs) if pair.unit == 1.0]
    found, whole = gjk_many([pairs[k] for k in together], np.array([pairs[k].local_tolerance for k in together]),
                            sides if len(together) == len(pairs) else None)
    answers: list = [None] * len(pairs)
    for k in whole.index.tolist():
        result = found[k]
        answers[together[k]] = (result, Blowup(list(result.simplex), 3))
    for k, result in zip(together, found):
        if answers[k] is None:
            answers[k] = _seeded_from(pairs[k], result)
    begun = [seeded(pair) if answer is None else answer for pair, answer in zip(pairs, answers)]
    return (begun, whole._replace(index=np.array(together, dtype=np.int64)[whole.index])) if arrays else begun


def _seeded_from(pair: PreparedPair, result: GjkResult) -> tuple:
    """``seeded``'s answer once GJK has given ``result``."""
    if not result.overlapping and result.status != "stalled":
        bounds = (result.lower_bound - pair.local_support_rounding, result.distance)
        return _gjk_contact(pair, result, bounds, 0, result.status), None, result.simplex
    return result, expand_simplex(pair.support, result.simplex, pair.local_tolerance)


def after_epa(pair: PreparedPair, result: GjkResult, seed: Blowup,
              found: EpaResult | None) -> tuple[Contact, EpaResult | None, None]:
    """``solve_pair``'s answer from GJK's ``result``, the ``seed`` and EPA's answer from it (None when the seed is
    flat, or a face of it is to rounding)."""
    tol, slack = pair.local_tolerance, pair.local_support_rounding
    lower = max(result.lower_bound, seed.lower_bound) - slack
    if found is None:  # A - B is flat (or a seed face is, to rounding): its nearest point is the answer
        point, simplex, weights = _nearest_point(result, seed)
        distance = norm(point)
        normal = normalized(scale(point, -1.0)) if distance > tol else pair.orient(seed.flat_normal)
        # Flat and measured to the tolerance: 'degenerate'; otherwise rounding kept GJK from the answer.
        status = "degenerate" if seed.dimension < 3 and distance - lower <= tol else "stalled"
        return pair_contact(pair, distance, normal, *_witnesses(simplex, weights), (lower, distance),
                            result.iterations, 0, status), None, None
    bounds = (max(found.lower_bound - slack, lower), min(found.upper_bound, result.distance))
    status = found.status
    if bounds[1] - bounds[0] > tol and status == "converged":
        status = "stalled"  # the face converged, but rounding leaves its plane uncertain beyond the tolerance
    elif bounds[1] - bounds[0] <= tol:
        status = "converged"
    misses = not bounds[0] - tol <= found.signed_distance <= bounds[1] + tol
    if misses and 0.0 < result.distance <= bounds[1] + tol:
        # EPA's face (of an unfinished, thin polytope) misses the certain bounds; GJK's point of A - B
        # is the upper bound itself, with witness points on the shapes.
        return _gjk_contact(pair, result, bounds, found.iterations, status), None, None
    return pair_contact(pair, found.signed_distance, found.normal, found.point_a, found.point_b, bounds,
                        result.iterations, found.iterations, status), found, None


def _gjk_contact(pair: PreparedPair, result: GjkResult, bounds, epa_iterations: int, status: str) -> Contact:
    """The answer from GJK's point of A - B nearest the origin (not enclosed): value |v|, and the normal
    along which GJK found its lower bound (-v when it found none)."""
    normal = normalized(scale(result.v, -1.0)) if result.normal is None else result.normal
    return pair_contact(pair, result.distance, normal,
                        *_witnesses(result.simplex, result.weights), bounds, result.iterations, epa_iterations, status)


def _nearest_point(result: GjkResult, seed: Blowup):
    """The point of A - B nearest the origin among GJK's (unless it enclosed the origin: its weights
    then only roughly put it back) and the closest point of the seed's simplex, with its weights."""
    point, weights, _ = closest_on_simplex([vertex[0] for vertex in seed.vertices])
    best = (point, seed.vertices, weights)
    if not result.overlapping and result.distance < norm(point):
        best = (result.v, result.simplex, result.weights)
    return best


def intersect(points_a: ArrayLike | Shape, points_b: ArrayLike | Shape, *, tolerance: float | None = None,
              touch_tolerance: float | None = None, max_iterations: int | None = None) -> bool:
    """Do the shapes touch or overlap? Same answer as ``collide(...).colliding``, found by GJK alone,
    which stops as soon as the bounds decide it."""
    pair = PreparedPair(points_a, points_b, tolerance, touch_tolerance, max_iterations)
    threshold = (pair.touch_tolerance + pair.margin) / pair.unit
    result = gjk(pair.support, pair.first_direction(), tolerance=pair.local_solver_tolerance,
                 max_iterations=pair.max_iterations, overlap_below=threshold,
                 separated_above=threshold + pair.local_support_rounding)
    if result.status == "stalled":  # rounding on a thin A - B: only the full answer decides
        return _solve(pair).colliding
    return result.overlapping or result.distance * pair.unit - pair.margin <= pair.touch_tolerance


def _witnesses(simplex, weights) -> tuple[Vec3, Vec3]:
    return combine(weights, [v[1] for v in simplex]), combine(weights, [v[2] for v in simplex])


def pair_contact(pair: PreparedPair, local_signed_distance: float, normal: Vec3, point_a: Vec3, point_b: Vec3,
                 local_bounds, gjk_iterations: int, epa_iterations: int, solver_status: str) -> Contact:
    """Back to world units (exactly: ``unit`` is a power of two), add the margins, keep the value
    inside its bounds and make the witness points satisfy the convention exactly."""
    unit = pair.unit
    core_low, core_high = local_bounds[0] * unit, local_bounds[1] * unit
    core_value = min(max(local_signed_distance * unit, core_low), core_high)
    signed_distance = core_value - pair.margin + 0.0  # + 0.0 turns -0.0 into 0.0
    point_a = combine((unit, pair.a.margin), (point_a, normal))
    point_b = combine((unit, -pair.b.margin), (point_b, normal))
    middle = scale(combine((1.0, 1.0), (point_a, point_b)), 0.5)
    half = scale(normal, 0.5 * signed_distance)
    local_a, local_b = sub(middle, half), combine((1.0, 1.0), (middle, half))
    cx, cy, cz = pair.center_tuple
    return frozen_instance(
        Contact,
        status=classify(signed_distance, pair.touch_tolerance),
        signed_distance=signed_distance,
        normal=np.array((normal[0] + 0.0, normal[1] + 0.0, normal[2] + 0.0)),  # no -0.0 components
        point_a=np.array((local_a[0] + cx, local_a[1] + cy, local_a[2] + cz)),  # back from the pair's frame
        point_b=np.array((local_b[0] + cx, local_b[1] + cy, local_b[2] + cz)),
        # Rounding may put a bound an ulp past the value itself; the value is always inside.
        bounds=(min(core_low - pair.margin, signed_distance), max(core_high - pair.margin, signed_distance)),
        tolerance=pair.touch_tolerance,
        gjk_iterations=gjk_iterations,
        epa_iterations=epa_iterations,
        solver_status=solver_status,
        tangents=np.array(orthonormal_basis(normal)),
    )


def pair_contacts(pairs: list[PreparedPair], local_signed_distances: np.ndarray, normals: np.ndarray,
                  points_a: np.ndarray, points_b: np.ndarray, local_bounds: np.ndarray, gjk_iterations: list,
                  epa_iterations: list, solver_statuses: list) -> list[Contact]:
    """``pair_contact`` of many pairs (values (n,), vectors (n, 3), bounds (n, 2)), its arithmetic over arrays in
    the same order (Python's ``min``/``max`` picks, ``combine``'s sums from 0.0): the same floats."""
    unit = np.array([pair.unit for pair in pairs])
    margin = np.array([pair.margin for pair in pairs])
    margin_a, margin_b = np.array([pair.a.margin for pair in pairs]), np.array([pair.b.margin for pair in pairs])
    core_low, core_high = local_bounds[:, 0] * unit, local_bounds[:, 1] * unit
    value = local_signed_distances * unit
    value = np.where(core_low > value, core_low, value)
    value = np.where(core_high < value, core_high, value)
    signed = value - margin + 0.0
    point_a = (0.0 + unit[:, None] * points_a) + margin_a[:, None] * normals
    point_b = (0.0 + unit[:, None] * points_b) + (-margin_b)[:, None] * normals
    middle = ((0.0 + 1.0 * point_a) + 1.0 * point_b) * 0.5
    half = normals * (0.5 * signed)[:, None]
    center = np.array([pair.center_tuple for pair in pairs])
    low, high = core_low - margin, core_high - margin
    low, high = np.where(signed < low, signed, low), np.where(signed > high, signed, high)
    x, y, z = normals[:, 0], normals[:, 1], normals[:, 2]  # ``orthonormal_basis`` of each normal
    sign = np.copysign(1.0, z)
    a = -1.0 / (sign + z)
    b = x * y * a
    tangents = np.stack([np.column_stack([1.0 + sign * x * x * a, sign * b, -sign * x]),
                         np.column_stack([b, sign + y * y * a, -y])], axis=1)
    return [frozen_instance(Contact, status=classify(distance, pair.touch_tolerance), signed_distance=distance,
                            normal=normal, point_a=a_here, point_b=b_here, bounds=(low_here, high_here),
                            tolerance=pair.touch_tolerance, gjk_iterations=gjk, epa_iterations=epa,
                            solver_status=status, tangents=basis)
            for pair, distance, normal, a_here, b_here, low_here, high_here, gjk, epa, status, basis in zip(
                pairs, signed.tolist(), normals + 0.0, (middle - half) + center,
                ((0.0 + 1.0 * middle) + 1.0 * half) + center, low.tolist(), high.tolist(), gjk_iterations,
                epa_iterations, solver_statuses, tangents)]
