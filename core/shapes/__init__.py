"""Convex shapes as support mappings: polytopes, boxes, spheres, primitives, hulls, rigid bodies."""
