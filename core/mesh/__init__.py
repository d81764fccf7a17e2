"""Exact queries on triangle meshes (non-convex objects): distance, intersection, containment, volume.

Pure numpy, vectorised over triangles; meshes are ``TriangleMesh`` values (world-space float64
vertices and int64 triangle indices).
"""

from .contact.batch import ApartSolids, collide_solid_pairs, measure_solid_pairs
from .contact.dispatch import collide_solids
from .contact.result import SolidContact
from .distance import MeshDistance, mesh_distance, nearest_on_surface
from .intersection import SurfaceIntersection, surface_intersection, surfaces_cross
from .solid import CONVEX, HULL, MESH, PARTS, Part, Solid
from .topology import is_closed, is_convex, loose_parts
from .trimesh import TriangleMesh
from .volume import mesh_volume, overlap_volume
from .inside import contains, winding_numbers

__all__ = ["TriangleMesh", "Solid", "Part", "collide_solids", "collide_solid_pairs", "measure_solid_pairs",
           "ApartSolids", "SolidContact",
           "mesh_distance", "MeshDistance", "nearest_on_surface", "surface_intersection", "SurfaceIntersection",
           "surfaces_cross", "overlap_volume",
           "mesh_volume", "contains", "winding_numbers", "loose_parts", "is_closed", "is_convex",
           "CONVEX", "PARTS", "MESH", "HULL"]
