"""Broad phase: which bounding boxes overlap."""
