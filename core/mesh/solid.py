"""``Solid``: an object's triangles, repaired (coincident vertices welded, nearly closed meshes capped) and classified
once (``'convex'``, ``'parts'``, ``'mesh'`` or ``'hull'``) so that each pair is measured the exact way it needs.
See docs/architecture.md, section "Mesh: solids and their methods".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..vector.arrays import cross, product_in_pieces
from ..shapes.hull import distinct_directions
from ..shapes.convex import Polytope
from .bvh import TriangleBVH
from .cavities import cavity_hosts, loose_part_volumes, with_cavities
from .parts_union import part_overlaps
from .repair import NONE, MeshRepair, repaired
from .self_intersection import self_intersection
from .topology import (bounds_volume, convexity_defect, edge_table, is_closed, loose_parts, part_meshes,
                       share_topology, uses_by_edge)
from .trimesh import TriangleMesh

CONVEX, PARTS, MESH, HULL = "convex", "parts", "mesh", "hull"

#: A part is convex when it equals its hull within this fraction of its size. Blender stores vertices
#: as float32 (about 6e-8 relative), so a modelled plane face is flat only to that precision.
CONVEXITY_TOLERANCE = 1e-6
#: Convex objects with at most this many vertices, convex to rounding (``EXACT_CONVEXITY``), give SAT their
#: facets and edges (``Solid.hull_features``): overlapping pairs of them are measured by SAT in batches.
#: (Blender's float32 vertices leave curved convex meshes convex only to about 1e-7: they use the general
#: methods, which are exact about the mesh itself.)
SAT_MAX_VERTICES = 64
EXACT_CONVEXITY = 1e-12
#: Objects with at least this many triangles build their triangle tree fine only around the boxes of the objects
#: they are measured against (``Solid.focus_tree``), up to ``FOCUS_BOXES`` boxes asked for before it is built.
FOCUS_MIN_TRIANGLES = 100_000
FOCUS_BOXES = 8

_IDENTITY_4 = np.eye(4)
_IDENTITY_4.flags.writeable = False


@dataclass(frozen=True, eq=False)
class Part:
    """One loose part (with the cavities inside it, ``cavities``): its triangles, whether it encloses a volume
    (``topology.bounds_volume``), and how far it is from convex (``topology.convexity_defect``: relative to its size, inf when it cannot be)."""

    mesh: TriangleMesh
    closed: bool
    convexity_defect: float

    @property
    def convex(self) -> bool:
        """Convex within ``CONVEXITY_TOLERANCE``: measured exactly by GJK/EPA on its hull."""
        return self.convexity_defect <= CONVEXITY_TOLERANCE

    @cached_property
    def polytope(self) -> Polytope:
        """The part's hull as a prepared core shape (exact about the part when ``convex``)."""
        return Polytope(self.mesh.vertices)


def outward(mesh: TriangleMesh) -> tuple[TriangleMesh, int]:
    """The mesh with every loose part facing outward (positive enclosed volume), and how many parts were turned.

    Modelling tools leave inside-out parts behind (a mirrored primitive, flipped normals); containment
    and overlap volume need outward faces, so such parts are turned over. A part facing inward inside one facing
    outward is a cavity (``cavities``), kept as it is.
    """
    if len(mesh.triangles) == 0:
        return mesh, 0
    labels, count = loose_parts(mesh)
    volumes = loose_part_volumes(mesh)
    inside_out = volumes < 0.0
    if inside_out.any() and count > 1:
        inside_out &= cavity_hosts(mesh, labels, volumes) < 0
    if not inside_out.any():
        return mesh, 0
    triangles = np.where(inside_out[labels][:, None], mesh.triangles[:, ::-1], mesh.triangles)
    return TriangleMesh.from_arrays(mesh.vertices, triangles), int(inside_out.sum())


class Solid:
    """A measurable object: its mesh, its loose parts and the method that follows from them.

    ``use_hull`` forces the convex-hull method (the physics engines' view of the object). Everything
    derived (parts, hull, BVH) is computed on first use, so a solid that no candidate pair touches
    costs nothing beyond its construction.
    """

    #: For a moved copy (``transformed``): ``(source solid, 4x4 matrix)``; its triangles are moved on first use.
    _placement: tuple | None = None
    #: Whether the support tables of this solid's polytopes wait for ``pending_support_tables``' owner
    #: (``defer_support_tables``).
    _tables_deferred = False
    #: The boxes its triangle tree is to be fine around (``focus_tree``): none asked for yet, or None: fine everywhere.
    _tree_focus: tuple | None = ()

    def __init__(self, mesh: TriangleMesh, *, use_hull: bool = False, name: str = "object"):
        self.raw_mesh = mesh
        self.name = name
        self.use_hull = use_hull

    @cached_property
    def raw_mesh(self) -> TriangleMesh:
        """The triangles as given (set by ``__init__``); a moved copy's are its source's, moved, made on first use."""
        source, matrix = self._placement
        return _moved_mesh(source.mesh, matrix, self.name)

    @cached_property
    def repair(self) -> MeshRepair:
        """The triangles repaired (``repair.repaired``: welded, nearly closed meshes capped) and what was changed
        (a moved copy's: its source's, whose mesh is not moved)."""
        if self._placement is not None:
            return self._placement[0].repair
        return repaired(self.raw_mesh)

    @cached_property
    def _outward(self) -> tuple[TriangleMesh, int]:
        """The repaired triangles with every loose part facing outward, and how many parts were turned."""
        return outward(self.repair.mesh)

    @cached_property
    def mesh(self) -> TriangleMesh:
        """The triangles measured: repaired, every loose part facing outward (see ``outward``; a moved copy's are its
        source's, moved; as given when hulls are asked for)."""
        return self.raw_mesh if self.use_hull or self._placement is not None else self._outward[0]

    @property
    def turned_parts(self) -> int:
        """How many loose parts were inside out and turned over (a moved copy: its source's)."""
        if self.use_hull:
            return 0
        return self._placement[0].turned_parts if self._placement is not None else self._outward[1]

    @property
    def volume_certainty(self) -> str:
        """How sure the volume this object encloses is: 'exact' (closed after welding), 'approximate' (nearly closed:
        holes capped, within ``volume_error``) or 'none' (an open surface, or hulls asked for: no volume)."""
        return NONE if self.use_hull else self.repair.certainty

    @property
    def volume_error(self) -> float:
        """A bound on the error of the enclosed volume (world units³; 0 unless 'approximate'), scaled with a moved
        copy's map."""
        if self.use_hull:
            return 0.0
        if self._placement is None:
            return self.repair.volume_error
        return self.repair.volume_error * abs(float(np.linalg.det(self._placement[1][:3, :3])))

    @cached_property
    def parts(self) -> tuple[Part, ...]:
        """The loose parts (a mesh without triangles, e.g. a point cloud, is one non-closed part)."""
        if self._placement is not None:  # a moved copy: its source's parts, moved (classification is kept)
            source, matrix = self._placement
            return tuple(_moved_part(part, self.mesh if part.mesh is source.mesh
                                     else _moved_mesh(part.mesh, matrix, self.name), matrix) for part in source.parts)
        if len(self.mesh.triangles) == 0:
            return (Part(self.mesh, closed=False, convexity_defect=np.inf),)
        pieces = part_meshes(self.mesh)
        if len(pieces) > 1:  # cavities (the only parts still facing inward) joined to the parts around them
            labels, _count = loose_parts(self.mesh)
            volumes = loose_part_volumes(self.mesh)
            if (volumes < 0.0).any():
                pieces = with_cavities(pieces, cavity_hosts(self.mesh, labels, volumes))
        return tuple(Part(piece, bounds_volume(piece), convexity_defect(piece)) for piece in pieces)

    @cached_property
    def part_overlaps(self) -> list[tuple[int, int]]:
        """The pairs of closed parts that share interior (``parts_union.part_overlaps``): the object's solid is
        their union, and its volumes count that shared space once (a moved copy's: its source's)."""
        if self._placement is not None:
            return self._placement[0].part_overlaps
        if len(self.parts) < 2:
            return []
        return part_overlaps([part.mesh for part in self.parts], [part.closed for part in self.parts],
                             [part.convexity_defect <= EXACT_CONVEXITY for part in self.parts])

    @cached_property
    def own_crossings(self) -> tuple[np.ndarray, ...]:
        """Per part, the (K, 2) pairs of its own triangles that cross (``self_intersection``; folds lying in one plane
        left out, as they cover nothing twice): what cutting a part that crosses itself needs. None found for convex
        or open parts. Found on first use (a moved copy: its source's, which an affine map keeps)."""
        if self._placement is not None:
            return self._placement[0].own_crossings
        found = []
        for part in self.parts:
            crossing = None if part.convex or not part.closed else self_intersection(part.mesh)
            found.append(np.zeros((0, 2), np.int64) if crossing is None else crossing.pairs[~crossing.coplanar])
        return tuple(found)

    @cached_property
    def method(self) -> str:
        """'hull', 'convex', 'parts' or 'mesh' (see the module docstring)."""
        if self.use_hull or len(self.mesh.triangles) == 0:
            return HULL
        if self._open_before_parts or not all(part.convex for part in self.parts):
            return MESH
        return CONVEX if len(self.parts) == 1 else PARTS

    @cached_property
    def closed(self) -> bool:
        """Every part encloses a volume, so the object has an inside (containment, overlap volume)."""
        if self._open_before_parts:  # (each edge is in one part: every part's are balanced when all the mesh's are)
            return bounds_volume(self.mesh)
        return all(part.closed for part in self.parts)

    @property
    def _open_before_parts(self) -> bool:
        """This solid's own mesh, not yet split into its parts, has an edge not used once each way (``is_closed``):
        the part holding it is then not convex (``convexity_defect``), so ``method`` and ``closed`` follow from the
        whole mesh's edge table, without splitting a sculpt into its parts (a quarter of a second for a million
        triangles), which only what measures parts on their own asks for."""
        return ("parts" not in self.__dict__ and self._placement is None and not self.use_hull
                and len(self.mesh.triangles) > 0 and not is_closed(self.mesh))

    @cached_property
    def exactly_convex(self) -> bool:
        """Convex to rounding (``EXACT_CONVEXITY``), not just within ``CONVEXITY_TOLERANCE``: its triangles
        are its hull's facets, so face planes bound it exactly (SAT, clipped volumes)."""
        return self.method == CONVEX and self.parts[0].convexity_defect <= EXACT_CONVEXITY

    @cached_property
    def hull_features(self) -> tuple[np.ndarray, np.ndarray] | None:
        """``(facet normals, edge directions)`` as distinct unit rows when the object is convex, small
        (``SAT_MAX_VERTICES``) and its triangles are its hull's facets to rounding (``EXACT_CONVEXITY``):
        what SAT needs to be exact; None for any other object."""
        if not self.exactly_convex or len(self.mesh.vertices) > SAT_MAX_VERTICES:
            return None
        mesh = self.mesh
        areas = mesh.area_normals
        unit = areas / np.maximum(np.sqrt(np.einsum("ij,ij->i", areas, areas)), np.finfo(float).tiny)[:, None]
        table = edge_table(mesh)
        # each edge's two triangles (a closed mesh uses every edge twice): an edge inside a flat face (its
        # triangles' normals the same to rounding, EXACT_CONVEXITY) is no edge of the hull
        sides = uses_by_edge(table).reshape(-1, 2) // 3
        bend = cross(unit[sides[:, 0]], unit[sides[:, 1]])
        edges = table.edges[np.sqrt(np.einsum("ij,ij->i", bend, bend)) > EXACT_CONVEXITY]
        return (distinct_directions(areas[np.einsum("ij,ij->i", areas, areas) > 0.0], signed=True),
                distinct_directions(mesh.vertices[edges[:, 1]] - mesh.vertices[edges[:, 0]], signed=False))

    @cached_property
    def hull(self) -> Polytope:
        """The convex hull of all vertices, as a prepared core shape (a moved copy's: its source's, moved, so that
        the copies of a dragged non-convex object share one, prepared once)."""
        if self._placement is not None:
            source, matrix = self._placement
            return source.hull.transformed(matrix)
        return self._own_hull(Polytope(self.raw_mesh.vertices))

    def _own_hull(self, hull: Polytope) -> Polytope:
        """``hull`` as this solid's, its support table left to the owner when the solid's tables are deferred."""
        if self._tables_deferred:
            hull.defer_support_table()
        return hull

    @cached_property
    def bvh(self) -> TriangleBVH:
        """The triangle tree for distance and nearest-point queries (a moved copy's: its source's, moved)."""
        if self._placement is not None:
            source, matrix = self._placement
            return source.bvh.moved(self.mesh, matrix)
        if not self._tree_focus:
            return TriangleBVH.build(self.mesh)
        lows, highs = zip(*self._tree_focus)
        return TriangleBVH.build(self.mesh, focus=(np.array(lows), np.array(highs)))

    def focus_tree(self, low: np.ndarray, high: np.ndarray) -> None:
        """Have the triangle tree, when it is built, fine around the box [``low``, ``high``] (and the boxes asked for
        before) and coarse elsewhere (``TriangleBVH.build``'s focus: as exact, slower to query far from the boxes):
        what a big object measured against small ones needs. Nothing for objects under ``FOCUS_MIN_TRIANGLES``, with
        a tree fine everywhere, or for a box inside one asked for before; a focused tree already built, asked for
        another place, is dropped to be built fine everywhere (as are trees asked for more than ``FOCUS_BOXES``
        boxes), so that a sculpt met at ever new places (a scan's frames) is built at most twice. A moved copy asks
        its source, with the box moved back."""
        low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
        if self._placement is not None:
            source, matrix = self._placement
            if "bvh" not in self.__dict__ and len(source.mesh.triangles) >= FOCUS_MIN_TRIANGLES:  # (else: nothing)
                source.focus_tree(*_box_under(np.linalg.inv(matrix), low, high))
            return
        boxes, built = self._tree_focus, self.__dict__.get("bvh")
        if len(self.mesh.triangles) < FOCUS_MIN_TRIANGLES or boxes is None or (built is not None and not built.focused):
            return
        if any((box_low <= low).all() and (high <= box_high).all() for box_low, box_high in boxes):
            return
        if built is not None or len(boxes) == FOCUS_BOXES:
            self.widen_tree()
        else:
            self._tree_focus = boxes + ((low, high),)

    def widen_tree(self) -> None:
        """Have the triangle tree fine everywhere (a focused one dropped, built again on use): for a drag, whose
        object may go anywhere (a moved copy's source's too)."""
        if "bvh" in self.__dict__ and self.bvh.focused:
            del self.__dict__["bvh"]
        if self._placement is not None:
            self._placement[0].widen_tree()
        self._tree_focus = None

    @cached_property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """World box of the vertices (a moved copy's from its moved hull, or from its source's vertices moved, without
        making its triangles: they may never be needed)."""
        if self._placement is not None and "raw_mesh" not in self.__dict__:
            if "hull" in self.__dict__:
                return self.hull.bounds()
            source, matrix = self._placement
            vertices = moved_vertices(source.mesh, matrix)
            return vertices.min(axis=0), vertices.max(axis=0)
        return self.raw_mesh.box

    @property
    def placement(self) -> tuple:
        """``(prepared source solid, 4x4 matrix)``: a moved copy's source and map, else this solid and the identity."""
        return self._placement if self._placement is not None else (self, _IDENTITY_4)

    def translated(self, offset) -> "Solid":
        """The same object moved by ``offset`` (see ``transformed``)."""
        matrix = np.eye(4)
        matrix[:3, 3] = offset
        return self.transformed(matrix)

    def transformed(self, matrix) -> "Solid":
        """The same object under the invertible 4x4 affine ``matrix`` (a move, rotation or scale).

        An affine map keeps loose parts, closedness and convexity, so the classification is shared and
        prepared hulls are moved (``Polytope.transformed``) instead of rebuilt; the triangles (and parts) are
        moved when first needed, and turned over when the map mirrors so that they still face outward (a
        convex copy measured on its hull, e.g. in a scan's frames, may never need them). The triangle tree is
        the source's, moved (``TriangleBVH.moved``), when first needed.
        This solid is classified and its hulls prepared first, once, so that every moved copy shares them.
        """
        self.prepared_polytopes()
        matrix = np.asarray(matrix, dtype=np.float64)
        solid = Solid.__new__(Solid)
        solid.name, solid.use_hull, solid._placement = self.name, self.use_hull, (self, matrix)
        if "hull" in self.__dict__:
            solid.__dict__["hull"] = self.hull.transformed(matrix)
        solid.__dict__["method"] = self.method
        if "parts" in self.__dict__ or "closed" in self.__dict__:  # known without the moved triangles (the parts'
            # classification is kept)
            solid.__dict__["closed"], solid.__dict__["exactly_convex"] = self.closed, self.exactly_convex
        return solid

    def prepared_polytopes(self) -> list[Polytope]:
        """Classify, and prepare the hulls the method measures with (what ``transformed`` shares): the hull for
        'convex' and 'hull', each part's for 'parts', none for 'mesh'."""
        if self.method in (CONVEX, HULL):
            return [self.hull]
        if self.method == PARTS:
            return [part.polytope for part in self.parts]
        return []

    def defer_support_tables(self) -> None:
        """Leave building the support tables of this solid's polytopes to whoever asks
        ``pending_support_tables`` (``Polytope.defer_support_table``: queries scan until then), those made later
        too: a non-convex object's hull is made at its first penetrating measurement, which may be in the middle
        of a drag, and would build its table there after a few dozen queries. Moved copies share the choice."""
        self._tables_deferred = True
        for polytope in self._made_polytopes():
            polytope.defer_support_table()

    def pending_support_tables(self) -> list[Polytope]:
        """The polytopes made so far whose deferred support tables are not built yet (see
        ``defer_support_tables``; none when the tables are not deferred)."""
        if not self._tables_deferred:
            return []
        return [polytope for polytope in self._made_polytopes() if polytope.support_table_pending]

    def _made_polytopes(self) -> list[Polytope]:
        """The prepared polytopes, and the hull when it is made but not among them."""
        made = self.prepared_polytopes()
        if "hull" in self.__dict__ and self.method not in (CONVEX, HULL):
            made.append(self.hull)
        return made


def prepare_hulls(solids: Sequence[Solid]) -> None:
    """``Solid.hull`` of the solids that have none yet (moved copies aside), built together
    (``Polytope.of_clouds``): the same hulls as each solid's own, for the thousands of small objects of a check."""
    chosen = list({id(solid): solid for solid in solids
                   if "hull" not in solid.__dict__ and solid._placement is None}.values())
    for solid, hull in zip(chosen, Polytope.of_clouds([solid.raw_mesh.vertices for solid in chosen])):
        solid.__dict__["hull"] = solid._own_hull(hull)


def _moved_mesh(mesh: TriangleMesh, matrix: np.ndarray, name: str) -> TriangleMesh:
    """``mesh`` under the affine ``matrix``, its triangles turned over when the map mirrors (still outward)."""
    mirrored = np.linalg.det(matrix[:3, :3]) < 0.0
    moved = TriangleMesh.from_arrays(moved_vertices(mesh, matrix),
                                     mesh.triangles[:, ::-1] if mirrored else mesh.triangles, name)
    if not mirrored:
        share_topology(mesh, moved)
    return moved


def moved_vertices(mesh: TriangleMesh, matrix: np.ndarray) -> np.ndarray:
    """The vertices of ``mesh`` under the affine ``matrix`` (a moved copy's, as ``_moved_mesh`` makes them)."""
    return product_in_pieces(mesh.vertices, matrix[:3, :3].T) + matrix[:3, 3]


def _box_under(matrix: np.ndarray, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The box around the box [``low``, ``high``] under the affine ``matrix``."""
    centre, half = 0.5 * (low + high), 0.5 * (high - low)
    moved, reach = matrix[:3, :3] @ centre + matrix[:3, 3], np.abs(matrix[:3, :3]) @ half
    return moved - reach, moved + reach


def _moved_part(part: Part, mesh: TriangleMesh, matrix: np.ndarray) -> Part:
    """``part`` with the moved ``mesh``, its prepared hull (if any) moved by ``matrix``."""
    moved = Part(mesh, part.closed, part.convexity_defect)
    if "polytope" in part.__dict__:
        moved.__dict__["polytope"] = part.polytope.transformed(matrix)
    return moved
