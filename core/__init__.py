"""Exact convex collision queries (GJK + EPA) in pure numpy; see core/README.md for the API."""

from .broad_phase import overlapping_pairs
from .collide import collide, intersect
from .contact import PENETRATING, SEPARATED, TOUCHING, Contact
from .planar import Circle, Polygon, collide_2d
from .primitives import Capsule, Cone, Cylinder, Rounded
from .region import ContactRegion, contact_region, contact_regions
from .sat import cross_check, sat_polytopes
from .shapes import Box, Polytope, Shape, Sphere

__all__ = ["collide", "intersect", "collide_2d", "Contact", "Shape", "Polytope", "Box", "Sphere", "Capsule",
           "Cylinder", "Cone", "Rounded", "Circle", "Polygon", "contact_region", "contact_regions",
           "ContactRegion", "sat_polytopes",
           "cross_check", "SEPARATED", "TOUCHING", "PENETRATING", "overlapping_pairs"]
