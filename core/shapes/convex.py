"""Convex shapes as support mappings: polytopes (hulls of point clouds), boxes and spheres, each a local body under an
affine map, with an optional margin the solver adds exactly.
See docs/architecture.md, section "Shapes: support mappings".
"""

from __future__ import annotations

import itertools

import numpy as np

from ..support.prune import interior_points
from ..support.caps import SupportCaps
from ..support.index import SupportIndex
from ..support.table import SupportTable
from ..validation import MAX_COORDINATE, affine_rows, as_affine, as_length, as_points, as_vector3
from ..vector.arrays import column_extremes

Vec3 = tuple[float, float, float]

#: Point clouds at least this large get a spatial index; below it a full scan is faster (measured on
#: a loaded 2-core machine, CPU time per query, index vs scan: 150 vs 39 us at 30k points, 274 vs 163
#: at 100k, 185 vs 392 at 300k).
INDEX_MIN_POINTS = 150_000

#: Prepared clouds of ``TABLE_POINTS`` points (after pruning) get a ``SupportTable`` once they have
#: answered ``TABLE_AFTER_QUERIES`` support queries (a shape in repeated use). Below, a full scan is
#: as fast; above, building costs more than a second (it grows like points x cells).
TABLE_POINTS = (2000, 50_000)
TABLE_AFTER_QUERIES = 64

#: Clouds of at most this many points (after pruning) answer supports from their points as Python lists (a few
#: hundred kilobytes at most).
LISTED_POINTS = 2000

#: Prepared clouds at least this large drop the points strictly inside their hull (never supports).
PRUNE_MIN_POINTS = 1000

#: The linear part ``Shape.affine`` gives an unturned shape (one read-only object: ``is`` tells it apart).
IDENTITY = np.eye(3)
IDENTITY.flags.writeable = False


class Shape:
    """Base: an affine map (``linear`` may be None for identity) applied to a local convex body."""

    margin: float = 0.0

    def __init__(self, linear: np.ndarray | None, offset: np.ndarray):
        self._linear = None if linear is None or (linear == IDENTITY).all() else linear
        self._offset = np.asarray(offset, dtype=np.float64)
        self._rows = None if self._linear is None else tuple(map(tuple, self._linear.tolist()))
        self._t = tuple(self._offset.tolist())

    # -- what subclasses provide ---------------------------------------------------------------
    def _local_support(self, direction: Vec3) -> Vec3:
        raise NotImplementedError

    def _with_affine(self, linear: np.ndarray | None, offset: np.ndarray) -> "Shape":
        raise NotImplementedError

    def _moved_copy(self, linear: np.ndarray | None, offset: np.ndarray) -> "Shape":
        """This shape's prepared local body (shared, not copied) under another affine map: the
        ``_with_affine`` of shapes whose body is all in their instance attributes."""
        moved = object.__new__(type(self))
        moved.__dict__.update(self.__dict__)
        if linear is self._linear:  # a translation: only the offset changes
            moved._offset = np.asarray(offset, dtype=np.float64)
            moved._t = tuple(moved._offset.tolist())
        else:
            Shape.__init__(moved, linear, offset)
        return moved

    def _translated_copy(self, offset) -> "Shape":
        """``translated`` of shapes whose body is all in their instance attributes: only the offset changes,
        added in plain floats (a pair's solver shifts both shapes at every query)."""
        x, y, z = offset if isinstance(offset, tuple) else np.asarray(offset, dtype=np.float64).tolist()
        tx, ty, tz = self._t
        moved = object.__new__(type(self))
        moved.__dict__.update(self.__dict__)
        moved._t = (tx + x, ty + y, tz + z)
        moved._offset = np.array(moved._t)
        return moved

    def vertices(self) -> np.ndarray | None:
        """Local points whose hull is the core body, ordered so that the first one with the largest
        value along any direction is this shape's support; None when the body is not a polytope."""
        return None

    def support_rows(self, directions: np.ndarray) -> np.ndarray:
        """Rows of ``vertices()`` with the largest value along each of the local ``directions`` (K, 3)."""
        return np.argmax(self.vertices() @ directions.T, axis=0)

    # -- shared ----------------------------------------------------------------------------------
    def world_vertices(self, rows: np.ndarray | None = None) -> np.ndarray | None:
        """``vertices()`` (or those at ``rows``) mapped to world space (N, 3); None when the body is not a
        polytope."""
        local = self.vertices()
        if local is None:
            return None
        if rows is not None:
            local = local[rows]
        return (local if self._linear is None else local @ self._linear.T) + self._offset

    def support(self, d: Vec3) -> Vec3:
        """Farthest point of the core body (without margin) along ``d``, in world space."""
        rows = self._rows
        if rows is None:
            return self.placed(self._local_support(d))
        (a, b, c), (e, f, g), (h, i, j) = rows
        dx, dy, dz = d
        return self.placed(self._local_support((a * dx + e * dy + h * dz, b * dx + f * dy + i * dz,
                                                c * dx + g * dy + j * dz)))

    def placed(self, local: Vec3) -> Vec3:
        """A point of the local body (three floats) in world space: ``L p + t``, summed in that order (the floats
        ``support`` gives)."""
        px, py, pz = local
        rows, (tx, ty, tz) = self._rows, self._t
        if rows is None:
            return (px + tx, py + ty, pz + tz)
        (a, b, c), (e, f, g), (h, i, j) = rows
        return (a * px + b * py + c * pz + tx, e * px + f * py + g * pz + ty, h * px + i * py + j * pz + tz)

    def placed_vertices(self, rows: list[int]) -> list[Vec3]:
        """``placed`` of each of the ``vertices()`` at ``rows``."""
        return list(map(self.placed, self.vertices()[rows].tolist()))

    @property
    def affine(self) -> tuple[np.ndarray, np.ndarray]:
        """The local-to-world map as (3x3 linear part, translation)."""
        return (IDENTITY if self._linear is None else self._linear), self._offset

    def moved_to(self, linear: np.ndarray, offset: np.ndarray) -> "Shape":
        """This shape's body under the affine map ``x -> linear x + offset`` (replacing its current
        one; no checks: for maps composed from checked matrices). Spheres keep their radius."""
        return self._with_affine(linear, offset)

    def transformed(self, matrix) -> "Shape":
        """This shape moved by the 4x4 affine ``matrix`` (applied after its current transform)."""
        (a, b, c, x), (e, f, g, y), (h, i, j, z) = affine_rows(matrix, "matrix")
        if (a, b, c, e, f, g, h, i, j) == (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0):
            return self.translated((x, y, z))  # a move: the linear part stays as it is (the same floats, for less)
        linear, offset = np.array(((a, b, c), (e, f, g), (h, i, j))), np.array((x, y, z))
        current = IDENTITY if self._linear is None else self._linear
        return self._with_affine(linear @ current, linear @ self._offset + offset)

    def translated(self, offset) -> "Shape":
        """This shape shifted by ``offset``; the solver uses it to work in a pair-local frame."""
        return self._with_affine(self._linear, self._offset + np.asarray(offset, dtype=np.float64))

    def support_reach(self) -> float:
        """A bound on the numbers ``support`` adds up (the body through the linear part, and the offset): its
        answers are exact to a few ulps of this, however near the origin they lie."""
        low, high = self._with_affine(self._linear, np.zeros(3)).bounds()
        return float(np.abs(np.concatenate([low, high])).max() + np.abs(self._offset).max())

    def box(self) -> tuple[list[float], list[float]]:
        """``bounds()`` as two lists of floats."""
        low, high = self.bounds()
        return low.tolist(), high.tolist()

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Exact world-space axis-aligned bounding box (margin included)."""
        low = [self.support(tuple(-e))[k] for k, e in enumerate(np.eye(3))]
        high = [self.support(tuple(e))[k] for k, e in enumerate(np.eye(3))]
        return np.array(low) - self.margin, np.array(high) + self.margin


class Polytope(Shape):
    """The convex hull of a point cloud (e.g. a mesh's vertices), optionally transformed.

    Flat clouds (a plane), segments and single points are valid. Unless ``index=False`` (for one-shot
    queries, where preparing costs more than it saves), clouds of ``PRUNE_MIN_POINTS`` or more drop
    the points certainly inside their hull (``core.support.prune``: solid clouds keep a few percent),
    clouds still of ``INDEX_MIN_POINTS`` or more get a ``SupportIndex``, and clouds of ``TABLE_POINTS``
    points switch to a ``SupportTable`` once in repeated use.
    """

    def __init__(self, points, transform=None, *, index: bool = True):
        cloud = as_points(points, "points")
        linear, offset = (None, np.zeros(3)) if transform is None else as_affine(transform, "transform")
        cloud, offset = _centred(cloud, linear, offset)
        if index and len(cloud) >= PRUNE_MIN_POINTS:
            cloud = cloud[~interior_points(cloud)]
        self._prepare(cloud, linear, offset, index, column_extremes(cloud))

    @classmethod
    def of_clouds(cls, clouds: list[np.ndarray]) -> list[Polytope]:
        """``[Polytope(cloud) for cloud in clouds]``, the same polytopes, with the checks, centring and boxes of the
        (N, 3) arrays of fewer than ``PRUNE_MIN_POINTS`` points done for all of them at once (a dozen numpy calls
        each otherwise: thousands of small objects' hulls); a bad cloud raises what ``Polytope`` raises for it."""
        small = [k for k, cloud in enumerate(clouds) if isinstance(cloud, np.ndarray) and cloud.ndim == 2
                 and cloud.shape[1] == 3 and 0 < len(cloud) < PRUNE_MIN_POINTS]
        made: list = [None] * len(clouds)
        points = np.concatenate([clouds[k] for k in small]).astype(np.float64) if small else np.empty((0, 3))
        if not (np.isfinite(points).all() and not (points.size and np.abs(points).max() > MAX_COORDINATE)):
            small = []  # one of them is bad: ``Polytope`` says which
        counts = np.array([len(clouds[k]) for k in small], dtype=np.int64)
        starts = np.cumsum(counts) - counts
        if small:  # as ``_centred``: a cloud farther from its origin than it is wide moved to its box's centre
            low, high = np.minimum.reduceat(points, starts, axis=0), np.maximum.reduceat(points, starts, axis=0)
            centre = 0.5 * low + 0.5 * high
            moved = np.abs(centre).max(axis=1) > (high - low).max(axis=1)
            offsets = np.where(moved[:, None], np.zeros(3) + centre, 0.0)
            rows = np.repeat(moved, counts)
            points[rows] -= np.repeat(centre[moved], counts[moved], axis=0)
            low[moved] = np.minimum.reduceat(points, starts, axis=0)[moved]
            high[moved] = np.maximum.reduceat(points, starts, axis=0)[moved]
            for k, start, count, box_low, box_high, offset in zip(small, starts.tolist(), counts.tolist(), low, high,
                                                                  offsets):
                made[k] = polytope = object.__new__(cls)
                polytope._prepare(points[start:start + count], None, offset, True, (box_low, box_high))
        return [polytope if polytope is not None else cls(cloud) for polytope, cloud in zip(made, clouds)]

    def _prepare(self, cloud: np.ndarray, linear: np.ndarray | None, offset: np.ndarray, index: bool,
                 box: tuple[np.ndarray, np.ndarray]) -> None:
        """The prepared body of ``cloud`` (checked, centred, pruned), whose box is ``box``, under the affine map."""
        self._index = SupportIndex(cloud) if index and len(cloud) >= INDEX_MIN_POINTS else None
        self._points = cloud if self._index is None else self._index.points
        use_table = index and TABLE_POINTS[0] <= len(cloud) <= TABLE_POINTS[1]
        self._table = _LazyTable() if use_table else None
        self._box = box
        self._box_floats = tuple(corner.tolist() for corner in self._box)
        self._caps = SupportCaps(self._points)
        # Small clouds keep their points as lists of floats too (filled at the first support query, shared by the
        # moved copies): a support point is then read without making a numpy row and a list of it.
        self._listed = [] if len(self._points) <= LISTED_POINTS else None
        self._turned_boxes = _TurnedBoxes()
        super().__init__(linear, offset)

    @property
    def points(self) -> np.ndarray:
        """The local points supports are taken from (moved to their own centre when far from it, interior ones
        dropped, possibly reordered by the index)."""
        return self._points

    def support_reach(self) -> float:
        tx, ty, tz = self._t
        return self._turned_boxes.reach(self._box, self._linear) + max(abs(tx), abs(ty), abs(tz))

    def box(self) -> tuple[list[float], list[float]]:
        if self._linear is None:  # ``bounds()``'s sums, in plain floats
            (lx, ly, lz), (hx, hy, hz) = self._box_floats
            tx, ty, tz = self._t
            return [lx + tx, ly + ty, lz + tz], [hx + tx, hy + ty, hz + tz]
        return super().box()

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """World box: the local box moved when the transform is a translation, else the box of the turned
        points, moved (one pass per linear part, kept: a turned shape dragged about keeps its linear part;
        six support queries when an index makes those cheap)."""
        if self._linear is None:
            return self._box[0] + self._offset, self._box[1] + self._offset
        if self._index is not None:
            return super().bounds()
        low, high = self._turned_boxes.box(self._points, self._linear)
        return low + self._offset, high + self._offset

    def vertices(self) -> np.ndarray:
        return self._points

    def support_candidates(self, direction: np.ndarray, slab: float) -> np.ndarray:
        """Rows of ``vertices()`` (ascending) holding every point within ``slab`` of the highest along the local
        ``direction``: a few percent of a round cloud, kept for nearby directions (``core.support.caps``, shared by
        the moved copies)."""
        return self._caps.candidates(direction, slab)

    def support(self, d: Vec3) -> Vec3:
        """``Shape.support``; for an untransformed cloud scanned in full, its steps written out in one call (GJK and
        EPA ask thousands of supports of small clouds: the same row, the same floats)."""
        listed = self._listed
        if self._rows is not None or self._table is not None or not listed or not self._caps.empty:
            return Shape.support(self, d)
        px, py, pz = listed[self._points.dot(d).argmax()]
        tx, ty, tz = self._t
        return (px + tx, py + ty, pz + tz)

    def placed_vertices(self, rows: list[int]) -> list[Vec3]:
        """``Shape.placed_vertices``; for a moved (unturned) small cloud whose points are listed already, read from
        that list (the same floats: a warm start places its vertices at every query)."""
        listed = self._listed
        if self._rows is not None or not listed:
            return Shape.placed_vertices(self, rows)
        tx, ty, tz = self._t
        return [(px + tx, py + ty, pz + tz) for px, py, pz in map(listed.__getitem__, rows)]

    def _local_support(self, d: Vec3) -> Vec3:
        if self._table is not None:
            point = self._table.support(self._points, d)
            if point is not None:
                return point
        row = self._untabled_row(d)
        listed = self._listed
        if listed is None:
            return tuple(self._points[row].tolist())
        if not listed:  # first use (by this shape or a moved copy): all points as floats once
            listed.extend(self._points.tolist())
        return listed[row]

    def _untabled_row(self, d: Vec3) -> int:
        """The row of the support along ``d`` found without the support table."""
        rows = self._caps.kept(d, 0.0)  # a contact region's cap holds the support along nearby directions
        if rows is not None:
            return rows[self._points[rows].dot(d).argmax()]
        if self._index is not None:
            return self._index.argmax(d)
        return self._points.dot(d).argmax()  # .dot takes the tuple as is

    def support_rows(self, directions: np.ndarray) -> np.ndarray:
        """Rows of ``vertices()`` at the supports along the local ``directions`` (K, 3), as ``_local_support``
        finds them (a built support table, a cap, the index, a scan) but without counting towards a table."""
        table = None if self._table is None else self._table.table
        rows = []
        for d in map(tuple, directions.tolist()):
            row = None if table is None else table.support_row(d)
            rows.append(self._untabled_row(d) if row is None else row)
        return np.array(rows, dtype=np.int64)

    @property
    def support_table_pending(self) -> bool:
        """This cloud gets a support table (``TABLE_POINTS``) and it is not built yet."""
        return self._table is not None and self._table.table is None

    def defer_support_table(self) -> None:
        """Leave building the support table to ``build_support_table`` (queries scan until then) instead of
        building it after ``TABLE_AFTER_QUERIES`` queries: for a shape queried over and over while the user
        waits (live update), whose owner builds the table (tens of milliseconds at 10k points) when idle rather
        than in the middle of that work. Its moved copies share the table and the choice."""
        if self._table is not None:
            self._table.deferred = True

    def build_support_table(self) -> None:
        """Build the support table now (when this cloud gets one and it is not built yet)."""
        if self._table is not None:
            self._table.build(self._points)

    _with_affine = Shape._moved_copy
    translated = Shape._translated_copy


def _centred(cloud: np.ndarray, linear: np.ndarray | None, offset: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A cloud lying farther from its origin than it is wide, moved to its box's centre (the offset takes the
    move up): supports are then chosen among numbers about the cloud's size, not its distance. Coordinates
    within a factor two of the centre's move exactly (Sterbenz); any other is within a size of it, so rounds
    by an ulp of the size at most."""
    low, high = column_extremes(cloud)
    centre = 0.5 * low + 0.5 * high
    if not np.abs(centre).max() > (high - low).max():
        return cloud, offset
    return cloud - centre, offset + (centre if linear is None else linear @ centre)


class _LazyTable:
    """A ``SupportTable`` built on first need, shared by a polytope's moved copies (which share its
    points): after ``TABLE_AFTER_QUERIES`` queries answered by full scans, or only when asked (``deferred``)."""

    def __init__(self):
        self.table, self.scans, self.deferred = None, 0, False

    def support(self, points: np.ndarray, d: Vec3) -> Vec3 | None:
        """The table's answer, or None while the caller should scan (or for a zero direction)."""
        if self.table is None:
            self.scans += 1
            if self.deferred or self.scans < TABLE_AFTER_QUERIES:
                return None
            self.build(points)
        return self.table.support(d)

    def build(self, points: np.ndarray) -> None:
        """The table over ``points``, unless built already."""
        if self.table is None:
            self.table = SupportTable(points)


class _TurnedBoxes:
    """The boxes of a cloud's points under the last few linear maps (``points @ L.T``, per axis least and
    largest), and the largest coordinate of its box's corners under the last one, shared by a polytope's moved
    copies."""

    KEPT = 4

    def __init__(self):
        self._boxes: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
        self._reach: tuple[np.ndarray | None, float] | None = None

    def reach(self, box: tuple[np.ndarray, np.ndarray], linear: np.ndarray | None) -> float:
        """``max |L| @ max(|low|, |high|)`` of the local ``box`` (the identity for ``linear`` None)."""
        if self._reach is None or self._reach[0] is not linear:  # a dragged copy keeps its linear part's array
            low, high = box
            body = np.maximum(np.abs(low), np.abs(high))
            self._reach = linear, float((body if linear is None else np.abs(linear) @ body).max())
        return self._reach[1]

    def box(self, points: np.ndarray, linear: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        key = linear.tobytes()
        found = self._boxes.get(key)
        if found is None:
            turned = points @ linear.T
            found = turned.min(axis=0), turned.max(axis=0)
            if len(self._boxes) >= self.KEPT:
                del self._boxes[next(iter(self._boxes))]
            self._boxes[key] = found
        return found


class Box(Shape):
    """A box centred at its local origin with the given half extents, optionally transformed."""

    def __init__(self, half_extents, transform=None):
        half = as_vector3(half_extents, "half_extents")
        if (half < 0).any():
            raise ValueError(f"half_extents must be non-negative, got {half.tolist()}")
        self._half = tuple(half.tolist())
        self._corners = np.array(list(itertools.product(*((h, -h) for h in self._half))))
        linear, offset = (None, np.zeros(3)) if transform is None else as_affine(transform, "transform")
        super().__init__(linear, offset)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """World box: the centre plus or minus ``|L| @ half_extents`` (the six axis supports at once)."""
        half = np.array(self._half)
        reach = half if self._linear is None else np.abs(self._linear) @ half
        return self._offset - reach, self._offset + reach

    def vertices(self) -> np.ndarray:
        """The corners, + before - on every axis (a tie along an axis picks +, as the support does)."""
        return self._corners

    def _local_support(self, d: Vec3) -> Vec3:
        hx, hy, hz = self._half
        return (hx if d[0] >= 0 else -hx, hy if d[1] >= 0 else -hy, hz if d[2] >= 0 else -hz)

    _with_affine = Shape._moved_copy
    translated = Shape._translated_copy


class Sphere(Shape):
    """A ball: its core is the centre point and its radius is a margin, so answers are exact."""

    def __init__(self, center, radius):
        self.margin = as_length(radius, "radius")
        super().__init__(None, as_vector3(center, "center"))

    @property
    def center(self) -> np.ndarray:
        return self._offset.copy()

    @property
    def radius(self) -> float:
        return self.margin

    def vertices(self) -> np.ndarray:
        return np.zeros((1, 3))

    def _local_support(self, d: Vec3) -> Vec3:
        return (0.0, 0.0, 0.0)

    def transformed(self, matrix) -> "Sphere":
        """The moved sphere; only rotations, uniform scales and translations keep it a sphere."""
        linear, offset = as_affine(matrix, "matrix")
        return Sphere(linear @ self._offset + offset, self.margin * float(similarity_scale(linear)))

    def _with_affine(self, linear, offset) -> "Sphere":
        return Sphere(offset, self.margin)


def similarity_scale(linear: np.ndarray) -> np.ndarray:
    """Scale factor of each (..., 3, 3) linear map that is a similarity (rotation or mirror times a
    uniform scale), the only maps that keep a sphere or a margin round; ValueError if any is not."""
    gram = np.swapaxes(linear, -1, -2) @ linear
    scale2 = gram[..., 0, 0][..., None, None]
    expected = scale2 * np.eye(3)
    close = np.abs(gram - expected) <= 1e-12 * np.maximum(scale2, 1e-300) + 1e-9 * np.abs(expected)
    if not close.all():
        raise ValueError("matrix must be a similarity (rotation, uniform scale, translation) "
                         "to keep a sphere or margin round; use a Polytope for the distorted shape")
    return np.sqrt(scale2[..., 0, 0])


def as_shape(value, name: str) -> Shape:
    """A prepared shape passes through; anything else is read as a point cloud."""
    if isinstance(value, Shape):
        return value
    try:
        return Polytope(value, index=False)
    except ValueError as exc:
        raise ValueError(str(exc).replace("points", name, 1)) from None
