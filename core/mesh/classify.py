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
from ..vector.arrays import NEXT_CORNER, PREVIOUS_CORNER, cross
from .repair import EXACT, MeshRepair
from .solid import EXACT_CONVEXITY, SAT_MAX_VERTICES, Part, Solid
from .topology import EdgeTable, edge_table, loose_parts, set_topology
from .trimesh import TriangleMesh

#: Meshes with more triangles than this are classified alone: their own numpy calls are long enough to pay.
SMALL_TRIANGLES = 4096
#: Triangles stacked in one pass at most (its arrays stay some tens of megabytes however many objects there are).
PASS_TRIANGLES = 1 << 18


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
            StackedMeshes([solid.raw_mesh for solid in together]).classify(together)
    return [solid.method for solid in solids]


def prepare_hull_features(solids: Sequence[Solid]) -> None:
    """``Solid.hull_features`` (what SAT needs) of the solids that have them, computed together: the same as each
    solid's own, bit for bit. Solids that have none, or have them already, are left as they are."""
    chosen = list({id(solid): solid for solid in solids if "hull_features" not in solid.__dict__
                   and solid.exactly_convex and len(solid.mesh.vertices) <= SAT_MAX_VERTICES}.values())
    if len(chosen) < 2:
        return
    meshes = [solid.mesh for solid in chosen]
    tables = [edge_table(mesh) for mesh in meshes]
    vertex_counts = np.array([len(mesh.vertices) for mesh in meshes])
    edge_counts = np.array([len(table.edges) for table in tables])
    vertex_starts, edge_starts = np.cumsum(vertex_counts) - vertex_counts, np.cumsum(edge_counts) - edge_counts
    vertices = np.concatenate([mesh.vertices for mesh in meshes])
    areas = np.concatenate([mesh.area_normals for mesh in meshes])
    triangle_mesh = np.repeat(np.arange(len(meshes)), [len(mesh.triangles) for mesh in meshes])
    edges = np.concatenate([table.edges + start for table, start in zip(tables, vertex_starts)])
    triangle_edges = np.concatenate([table.triangle_edges + start for table, start in zip(tables, edge_starts)])
    unit = areas / np.maximum(np.sqrt(np.einsum("ij,ij->i", areas, areas)), np.finfo(float).tiny)[:, None]
    sides = np.argsort(triangle_edges.ravel(), kind="stable").reshape(-1, 2) // 3  # as ``Solid.hull_features``
    bend = cross(unit[sides[:, 0]], unit[sides[:, 1]])
    edges = edges[np.sqrt(np.einsum("ij,ij->i", bend, bend)) > EXACT_CONVEXITY]
    flat = np.einsum("ij,ij->i", areas, areas) > 0.0
    normals, normal_mesh = distinct_directions_of_groups(areas[flat], triangle_mesh[flat], signed=True)
    directions, direction_mesh = distinct_directions_of_groups(
        vertices[edges[:, 1]] - vertices[edges[:, 0]], np.repeat(np.arange(len(meshes)), vertex_counts)[edges[:, 0]],
        signed=False)
    normal_ends = np.searchsorted(normal_mesh, np.arange(len(meshes)), side="right")
    direction_ends = np.searchsorted(direction_mesh, np.arange(len(meshes)), side="right")
    for k, solid in enumerate(chosen):
        solid.__dict__["hull_features"] = (normals[normal_ends[k - 1] if k else 0:normal_ends[k]],
                                           directions[direction_ends[k - 1] if k else 0:direction_ends[k]])


def _batchable(solid: Solid) -> bool:
    if solid.use_hull or solid.placement[0] is not solid or "repair" in solid.__dict__:
        return False
    triangles = len(solid.raw_mesh.triangles)
    return 0 < triangles <= SMALL_TRIANGLES


class StackedMeshes:
    """The meshes' vertices and triangles one after another, triangles on stacked vertex indices; ``classify`` fills
    in the solids' classification (the ``Solid`` of each mesh, in order)."""

    def __init__(self, meshes: list[TriangleMesh]):
        self.meshes = meshes
        self.vertex_counts = np.array([len(mesh.vertices) for mesh in meshes])
        self.triangle_counts = np.array([len(mesh.triangles) for mesh in meshes])
        self.vertex_starts = np.cumsum(self.vertex_counts) - self.vertex_counts
        self.triangle_starts = np.cumsum(self.triangle_counts) - self.triangle_counts
        self.vertices = np.concatenate([mesh.vertices for mesh in meshes])
        self.vertex_mesh = np.repeat(np.arange(len(meshes)), self.vertex_counts)
        self.triangle_mesh = np.repeat(np.arange(len(meshes)), self.triangle_counts)
        self.triangles = (np.concatenate([mesh.triangles for mesh in meshes])
                          + self.vertex_starts[self.triangle_mesh][:, None])

    def _per_mesh(self, owner: np.ndarray, flags: np.ndarray) -> np.ndarray:
        """How many of the rows that ``owner`` assigns to meshes have ``flags``, per mesh."""
        return np.bincount(owner, weights=flags, minlength=len(self.meshes)).astype(np.int64)

    def classify(self, solids: list[Solid]) -> None:
        """Give each of ``solids`` (one per mesh) its repair, outward mesh and, with one loose part, its ``parts``,
        when its mesh is closed as indexed (``topology.bounds_volume``: nothing to weld or cap)."""
        labels, part_count = loose_parts(TriangleMesh(self.vertices, self.triangles))  # (parts ignore orientation)
        part_mesh = np.empty(part_count, dtype=np.int64)
        part_mesh[labels] = self.triangle_mesh
        part_counts = np.bincount(part_mesh, minlength=len(self.meshes))
        part_starts = np.cumsum(part_counts) - part_counts
        triangles, turned = self._outward(labels, part_mesh)
        stacked = TriangleMesh(self.vertices, triangles)
        table = edge_table(stacked)  # its edges sort mesh after mesh, as each mesh's own
        edge_mesh = self.vertex_mesh[table.edges[:, 0]]
        edge_counts = np.bincount(edge_mesh, minlength=len(self.meshes))
        edge_starts = np.cumsum(edge_counts) - edge_counts
        bounds_volume = self._per_mesh(edge_mesh, 2 * table.forward_uses != table.uses) == 0  # turning keeps it
        closed = self._per_mesh(edge_mesh, (table.uses != 2) | (table.forward_uses != 1)) == 0
        defects = self._convexity_defects(stacked, table, closed & (part_counts == 1), edge_counts)
        for k, solid in enumerate(solids):
            if not bounds_volume[k]:
                continue  # open or unevenly used edges: welded and capped by ``repair.repaired``, alone
            raw = self.meshes[k]
            rows = slice(self.triangle_starts[k], self.triangle_starts[k] + self.triangle_counts[k])
            mesh = raw if not turned[k] else TriangleMesh.from_arrays(
                raw.vertices, triangles[rows] - self.vertex_starts[k])
            edges = slice(edge_starts[k], edge_starts[k] + edge_counts[k])
            set_topology(mesh, EdgeTable(table.edges[edges] - self.vertex_starts[k],
                                         table.triangle_edges[rows] - edge_starts[k], table.forward[rows],
                                         table.uses[edges], table.forward_uses[edges]),
                         (labels[rows] - part_starts[k], int(part_counts[k])))
            mesh.__dict__["area_normals"] = stacked.area_normals[rows]
            solid.__dict__["repair"] = MeshRepair(raw, EXACT)
            solid.__dict__["_outward"] = (mesh, int(turned[k]))
            if part_counts[k] == 1:
                solid.__dict__["parts"] = (Part(mesh, True, float(defects[k])),)

    def _outward(self, labels: np.ndarray, part_mesh: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``solid.outward`` of every mesh: the stacked triangles with inside-out parts turned, and how many parts
        each mesh had turned."""
        centres = np.array([mesh.vertices.mean(axis=0) for mesh in self.meshes])  # np.mean's own summing order
        corners = self.vertices[self.triangles] - centres[self.triangle_mesh][:, None, :]
        tetrahedra = np.einsum("ij,ij->i", corners[:, 0], cross(corners[:, 1], corners[:, 2]))
        inside_out = np.bincount(labels, weights=tetrahedra, minlength=len(part_mesh)) < 0.0
        triangles = np.where(inside_out[labels][:, None], self.triangles[:, ::-1], self.triangles)
        return triangles, self._per_mesh(part_mesh, inside_out)

    def _convexity_defects(self, stacked: TriangleMesh, table: EdgeTable, candidate: np.ndarray,
                           edge_counts: np.ndarray) -> np.ndarray:
        """``topology.convexity_defect`` of every mesh (inf where not ``candidate``: closed, one loose part)."""
        count, triangles = len(self.meshes), stacked.triangles
        defects = np.full(count, np.inf)
        used = np.bincount(triangles.ravel(), minlength=len(self.vertices)) > 0
        euler = self._per_mesh(self.vertex_mesh, used) - edge_counts + self.triangle_counts
        candidate = candidate & (euler == 2)
        if not candidate.any():
            return defects
        edge_of = table.triangle_edges.ravel()
        order = np.argsort(edge_of, kind="stable")  # each edge's two (triangle, corner) uses, side by side
        sides = order[candidate[self.triangle_mesh[order // 3]]].reshape(-1, 2)
        triangle, corner = np.divmod(sides, 3)
        far_corner = triangles[triangle[:, ::-1], (corner[:, ::-1] + 2) % 3]
        normals = stacked.area_normals[triangle]
        unit = normals / np.maximum(np.linalg.norm(normals, axis=2, keepdims=True), np.finfo(float).tiny)
        corners = stacked.corners
        heights = np.einsum("ijk,ijk->ij", unit, self.vertices[far_corner] - corners[triangle, 0]).max(axis=1)
        side_mesh = self.triangle_mesh[triangle[:, 0]]
        height = np.full(count, -np.inf)
        np.maximum.at(height, side_mesh, heights)
        sizes = (np.maximum.reduceat(self.vertices, self.vertex_starts, axis=0)
                 - np.minimum.reduceat(self.vertices, self.vertex_starts, axis=0)).max(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            relative = np.where(sizes > 0.0, height / np.where(sizes > 0.0, sizes, 1.0),
                                np.where(height > 0.0, np.inf, 0.0))
        into = corners[:, NEXT_CORNER] - corners
        out = corners[:, PREVIOUS_CORNER] - corners
        angles = np.arctan2(np.linalg.norm(cross(into, out), axis=2), np.einsum("ijk,ijk->ij", into, out))
        sums = np.bincount(triangles.ravel(), weights=angles.ravel(), minlength=len(self.vertices))
        angle_defect = np.full(count, np.inf)
        np.minimum.at(angle_defect, self.vertex_mesh[used], 2.0 * np.pi - sums[used])
        found = np.maximum(np.maximum(relative, -angle_defect), 0.0)
        return np.where(candidate, found, defects)
