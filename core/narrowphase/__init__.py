"""Narrow phase for convex shapes: GJK, EPA (cold and warm), batches, directional depth, SAT."""
