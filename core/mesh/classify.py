"""Classifying many small solids at once: the repair's closedness check, turning loose parts outward, loose parts
and convexity of every mesh (and the facets and edges SAT needs) in one pass over all their triangles stacked (vertex
indices offset per mesh), instead of some fifty numpy calls on a few dozen vertices per object. The answers are the
ones each ``Solid`` would compute alone, bit for bit (the same element-wise arithmetic, per-mesh sums in the same
order); meshes the pass does not cover (without triangles, large, or not closed as indexed: welding and capping)
are left to the solid itself. See docs/architecture.md, "Mesh: classifying many objects at once".
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..shapes.hull import distinct_directions_of_groups
from ..steps import checkpoint
from ..vector.arrays import cross, dot
from .repair import EXACT, MeshRepair
from .solid import EXACT_CONVEXITY, SAT_MAX_VERTICES, Part, Solid
from .stacked import StackedMeshes
from .topology import EdgeTable, edge_table, loose_parts, set_topology, uses_by_edge
from .trimesh import TriangleMesh

#: Meshes with more triangles than this are classified alone: their own numpy calls are long enough to pay.
SMALL_TRIANGLES = 4096
#: Triangles stacked in one pass at most: its arrays stay a few megabytes however many objects there are, near the
#: processor's caches (passes of 1 << 18 took a third longer on a hundred 2,000-triangle objects).
PASS_TRIANGLES = 1 << 16


def classify_solids(solids: Sequence[Solid]) -> list[str]:
    """Classify every solid (``Solid.method``, its parts and repair) and return the methods: those the pass covers
    together, as ``Solid`` would one by one, the others (already classified, moved copies, hulls, meshes the pass
    does not cover) by themselves."""
    chosen = [solid for solid in solids if _batchable(solid)]
    sizes = np.cumsum([len(solid.raw_mesh.triangles) for solid in chosen])
    passes = np.searchsorted(sizes, np.arange(PASS_TRIANGLES, sizes[-1] if len(sizes) else 0, PASS_TRIANGLES),
                             side="right")
    for group in np.split(np.arange(len(chosen)), passes):
        checkpoint()  # (a cancelled caller's worker stops here)
        if len(group) > 1:
            together = [chosen[k] for k in group.tolist()]
            classify_stacked(StackedMeshes([solid.raw_mesh for solid in together]), together)
    return [solid.method for solid in solids]


def prepare_hull_features(solids: Sequence[Solid]) -> None:
    """``Solid.hull_features`` (what SAT needs) of the solids that have them, computed together: the same as each
    solid's own, bit for bit. Solids that have none, or have them already, are left as they are."""
    chosen = list({id(solid): solid for solid in solids if "hull_features" not in solid.__dict__
                   and solid.exactly_convex and len(solid.mesh.vertices) <= SAT_MAX_VERTICES}.values())
    if len(chosen) < 2:
        return
    stack = StackedMeshes([solid.mesh for solid in chosen])
    count, vertices, edges = len(chosen), stack.vertices, stack.table.edges
    areas = np.concatenate([mesh.area_normals for mesh in stack.meshes])
    unit = areas / np.maximum(np.sqrt(np.einsum("ij,ij->i", areas, areas)), np.finfo(float).tiny)[:, None]
    sides = uses_by_edge(stack.table).reshape(-1, 2) // 3  # as ``Solid.hull_features``
    bend = cross(unit[sides[:, 0]], unit[sides[:, 1]])
    edges = edges[np.sqrt(np.einsum("ij,ij->i", bend, bend)) > EXACT_CONVEXITY]
    flat = np.einsum("ij,ij->i", areas, areas) > 0.0
    normals, normal_mesh = distinct_directions_of_groups(areas[flat], stack.owner[flat], signed=True)
    directions, direction_mesh = distinct_directions_of_groups(
        vertices[edges[:, 1]] - vertices[edges[:, 0]], stack.vertex_owner[edges[:, 0]], signed=False)
    normal_ends = np.searchsorted(normal_mesh, np.arange(count), side="right")
    direction_ends = np.searchsorted(direction_mesh, np.arange(count), side="right")
    for k, solid in enumerate(chosen):
        solid.__dict__["hull_features"] = (normals[normal_ends[k - 1] if k else 0:normal_ends[k]],
                                           directions[direction_ends[k - 1] if k else 0:direction_ends[k]])


def _batchable(solid: Solid) -> bool:
    if solid.use_hull or solid.placement[0] is not solid or "repair" in solid.__dict__:
        return False
    triangles = len(solid.raw_mesh.triangles)
    return 0 < triangles <= SMALL_TRIANGLES


def classify_stacked(stack: StackedMeshes, solids: list[Solid]) -> None:
    """Give each of ``solids`` (one per mesh of ``stack``, in order) its repair, outward mesh and, with one loose
    part, its ``parts``, when its mesh is closed as indexed (``topology.bounds_volume``: nothing to weld or cap)."""
    count, vertices, vertex_mesh = len(stack.meshes), stack.vertices, stack.vertex_owner
    labels, part_count = loose_parts(TriangleMesh(vertices, stack.ids))  # (parts ignore orientation)
    part_mesh = np.empty(part_count, dtype=np.int64)
    part_mesh[labels] = stack.owner
    part_counts = np.bincount(part_mesh, minlength=count)
    part_starts = np.cumsum(part_counts) - part_counts
    triangles, turned = _outward(stack, labels, part_mesh)
    outward = TriangleMesh(vertices, triangles)
    table = edge_table(outward)  # its edges sort mesh after mesh, as each mesh's own
    edge_mesh = vertex_mesh[table.edges[:, 0]]
    edge_counts = np.bincount(edge_mesh, minlength=count)
    edge_starts = np.cumsum(edge_counts) - edge_counts
    bounds_volume = _per_mesh(edge_mesh, 2 * table.forward_uses != table.uses, count) == 0  # turning keeps it
    closed = _per_mesh(edge_mesh, (table.uses != 2) | (table.forward_uses != 1), count) == 0
    defects = _convexity_defects(stack, vertex_mesh, outward, table, closed & (part_counts == 1), edge_counts)
    for k, solid in enumerate(solids):
        if not bounds_volume[k] or (turned[k] and part_counts[k] > 1):
            continue  # open or unevenly used edges: welded and capped by ``repair.repaired``, alone; parts facing
            # inward among others may be cavities (``solid.outward``)
        raw, start = stack.meshes[k], stack.vertex_starts[k]
        rows = slice(stack.triangle_starts[k], stack.triangle_starts[k + 1])
        mesh = raw if not turned[k] else TriangleMesh.from_arrays(raw.vertices, triangles[rows] - start)
        edges = slice(edge_starts[k], edge_starts[k] + edge_counts[k])
        set_topology(mesh, EdgeTable(table.edges[edges] - start, table.triangle_edges[rows] - edge_starts[k],
                                     table.forward[rows], table.uses[edges], table.forward_uses[edges]),
                     (labels[rows] - part_starts[k], int(part_counts[k])))
        mesh.__dict__["area_normals"] = outward.area_normals[rows]
        solid.__dict__["repair"] = MeshRepair(raw, EXACT)
        solid.__dict__["_outward"] = (mesh, int(turned[k]))
        if part_counts[k] == 1:
            solid.__dict__["parts"] = (Part(mesh, True, float(defects[k])),)


def _per_mesh(owner: np.ndarray, flags: np.ndarray, count: int) -> np.ndarray:
    """How many of the rows that ``owner`` assigns to the ``count`` meshes have ``flags``, per mesh."""
    return np.bincount(owner, weights=flags, minlength=count).astype(np.int64)


def _outward(stack: StackedMeshes, labels: np.ndarray, part_mesh: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``solid.outward`` of every mesh: the stacked triangles with inside-out parts turned, and how many parts
    each mesh had turned."""
    centres = stack.vertex_means  # np.mean's own summing order
    corners = stack.vertices[stack.ids] - centres[stack.owner][:, None, :]
    tetrahedra = np.einsum("ij,ij->i", corners[:, 0], cross(corners[:, 1], corners[:, 2]))
    inside_out = np.bincount(labels, weights=tetrahedra, minlength=len(part_mesh)) < 0.0
    triangles = np.where(inside_out[labels][:, None], stack.ids[:, ::-1], stack.ids)
    return triangles, _per_mesh(part_mesh, inside_out, len(stack.meshes))


def _convexity_defects(stack: StackedMeshes, vertex_mesh: np.ndarray, outward: TriangleMesh, table: EdgeTable,
                       candidate: np.ndarray, edge_counts: np.ndarray) -> np.ndarray:
    """``topology.convexity_defect`` of every mesh (inf where not ``candidate``: closed, one loose part)."""
    count, triangles, vertices = len(stack.meshes), outward.triangles, stack.vertices
    defects = np.full(count, np.inf)
    used = np.bincount(triangles.ravel(), minlength=len(vertices)) > 0
    euler = _per_mesh(vertex_mesh, used, count) - edge_counts + stack.counts
    candidate = candidate & (euler == 2)
    if not candidate.any():
        return defects
    order = uses_by_edge(table)  # each edge's two (triangle, corner) uses, side by side
    sides = order[candidate[stack.owner[order // 3]]].reshape(-1, 2)
    triangle, corner = np.divmod(sides, 3)
    far_corner = triangles[triangle[:, ::-1], (corner[:, ::-1] + 2) % 3]
    areas = outward.area_normals  # each triangle's unit normal once, then each side's
    unit = (areas / np.maximum(np.linalg.norm(areas, axis=1, keepdims=True), np.finfo(float).tiny))[triangle]
    corners = outward.corners
    heights = np.einsum("ijk,ijk->ij", unit, vertices[far_corner] - corners[triangle, 0])
    heights = np.maximum(heights[:, 0], heights[:, 1])
    side_mesh = stack.owner[triangle[:, 0]]
    height = np.full(count, -np.inf)
    np.maximum.at(height, side_mesh, heights)
    low, high = stack.vertex_boxes
    sizes = (high - low).max(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        relative = np.where(sizes > 0.0, height / np.where(sizes > 0.0, sizes, 1.0),
                            np.where(height > 0.0, np.inf, 0.0))
    into, out = np.empty_like(corners), np.empty_like(corners)  # each corner's edges to the next and previous
    np.subtract(corners[:, 1:], corners[:, :2], out=into[:, :2])  # (slices: fancy indexing on the corner axis
    np.subtract(corners[:, 0], corners[:, 2], out=into[:, 2])  # costs several times as much)
    np.subtract(corners[:, :2], corners[:, 1:], out=out[:, 1:])
    np.subtract(corners[:, 2], corners[:, 0], out=out[:, 0])
    crossed = cross(into, out)
    angles = np.arctan2(np.sqrt(dot(crossed, crossed)), np.einsum("ijk,ijk->ij", into, out))
    sums = np.bincount(triangles.ravel(), weights=angles.ravel(), minlength=len(vertices))
    angle_defect = np.full(count, np.inf)
    np.minimum.at(angle_defect, vertex_mesh[used], 2.0 * np.pi - sums[used])
    found = np.maximum(np.maximum(relative, -angle_defect), 0.0)
    return np.where(candidate, found, defects)
