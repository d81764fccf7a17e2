"""Exact convex collision queries (GJK + EPA) in pure numpy; see core/README.md for the API."""

from .broadphase.sort_and_sweep import overlapping_pairs
from .narrowphase.collide import collide, intersect
from .contact import PENETRATING, SEPARATED, TOUCHING, Contact
from .planar.gjk_epa import Circle, Polygon, collide_2d
from .shapes.primitives import Capsule, Cone, Cylinder, Rounded
from .contact_patch.batch import contact_regions
from .contact_patch.region import ContactRegion, contact_region
from .narrowphase.sat import cross_check, sat_polytopes
from .shapes.convex import Box, Polytope, Shape, Sphere

__all__ = ["collide", "intersect", "collide_2d", "Contact", "Shape", "Polytope", "Box", "Sphere", "Capsule",
           "Cylinder", "Cone", "Rounded", "Circle", "Polygon", "contact_region", "contact_regions",
           "ContactRegion", "sat_polytopes",
           "cross_check", "SEPARATED", "TOUCHING", "PENETRATING", "overlapping_pairs"]
