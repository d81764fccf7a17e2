"""Time Analyse of a cube inside Blender's own UV sphere of SEGMENTS x SEGMENTS (default 1,000), cracked along its seam.

    .venv/bpy-5.0.1/bin/python benchmarks/bench_blender_sphere.py [SEGMENTS]
    blender --background --factory-startup --python benchmarks/bench_blender_sphere.py -- [SEGMENTS]

The sphere is built by ``bpy.ops.mesh.primitive_uv_sphere_add`` (minutes at 1,000: its build is slow, not timed
here; kept in the temporary folder as ``blender_sphere_SEGMENTS.blend`` for the next run). Prints the sphere's open
edges as Blender indexes it and how far apart the seam's two sides are, then the result of Analyse (status, overlap
volume against the cube's, volume certainty and bound, note) and its CPU seconds.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import bpy
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "scripts"), str(REPO / "benchmarks")]  # also when Blender runs the script
from addon_loader import load_registered_addon  # noqa: E402  (needs the path above)
from timing import machine_load  # noqa: E402

SEGMENTS = 1000
CUBE = 0.5


def arguments() -> list[str]:
    return sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]


def blender_sphere(segments: int) -> bpy.types.Object:
    """Blender's own UV sphere (radius 1) named "Sphere", built once and kept in the temporary folder."""
    path = Path(tempfile.gettempdir()) / f"blender_sphere_{segments}.blend"
    if path.exists():
        bpy.ops.wm.open_mainfile(filepath=str(path))
        return bpy.data.objects["Sphere"]
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    started = time.process_time()
    bpy.ops.mesh.primitive_uv_sphere_add(radius=1.0, segments=segments, ring_count=segments)
    sphere = bpy.context.active_object
    sphere.name = "Sphere"
    print(f"built in {time.process_time() - started:.1f} s CPU")
    bpy.ops.wm.save_as_mainfile(filepath=str(path))
    return sphere


def seam_crack(mesh: bpy.types.Mesh) -> tuple[int, float]:
    """``(open edges, widest gap)``: edges used by one face, and the largest distance from a vertex on them to the
    nearest other such vertex (the crack's width)."""
    positions = np.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", positions)
    edges = np.empty(len(mesh.edges) * 2, dtype=np.int64)
    mesh.edges.foreach_get("vertices", edges)
    corners = np.empty(len(mesh.loops), dtype=np.int64)
    mesh.loops.foreach_get("edge_index", corners)
    uses = np.bincount(corners, minlength=len(mesh.edges))
    rim = np.unique(edges.reshape(-1, 2)[uses == 1])
    if len(rim) < 2:
        return 0, 0.0
    points = positions.reshape(-1, 3)[rim]
    nearest = [np.sort(np.linalg.norm(points - point, axis=1))[1] for point in points]
    return int((uses == 1).sum()), float(max(nearest))


def main() -> None:
    segments = int(arguments()[0]) if arguments() else SEGMENTS
    sphere = blender_sphere(segments)
    addon = load_registered_addon()
    open_edges, gap = seam_crack(sphere.data)
    print(f"Blender {bpy.app.version_string}: UV sphere {segments} x {segments}, {len(sphere.data.vertices):,} vertices,"
          f" {len(sphere.data.polygons):,} faces; {open_edges} open edges as indexed, widest gap {gap:.2e}")
    bpy.ops.mesh.primitive_cube_add(size=CUBE, location=(0.1, 0.05, 0.0))
    cube = bpy.context.active_object
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in (sphere, cube))
    bpy.context.view_layer.objects.active = sphere
    started = time.process_time()
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    seconds = time.process_time() - started
    (result,) = bpy.context.scene.collision_inspector.results
    print(f"  {result.status}, overlap {result.overlap_volume:.9f} (cube {CUBE ** 3}), {result.volume_certainty} "
          f"± {result.volume_error:.2e}, note {result.mesh_note!r}")
    print(f"  Analyse: {seconds:.2f} s CPU ({machine_load()}); add-on {addon.__name__}")


if __name__ == "__main__":
    main()
