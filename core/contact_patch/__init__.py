"""Contact patches: the whole region where two convex shapes touch."""
