"""Planar queries: GJK/EPA in 2D and the plane mode that projects 3D pairs onto a plane."""
