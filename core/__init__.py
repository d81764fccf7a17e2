"""Exact convex collision queries (GJK + EPA) in pure numpy; see core/README.md for the API."""

from .broad_phase import overlapping_pairs
from .collide import collide, intersect
from .contact import PENETRATING, SEPARATED, TOUCHING, Contact
from .shapes import Box, Polytope, Shape, Sphere

__all__ = ["collide", "intersect", "Contact", "Shape", "Polytope", "Box", "Sphere",
           "SEPARATED", "TOUCHING", "PENETRATING", "overlapping_pairs"]
