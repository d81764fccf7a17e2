"""Benchmark of objects made of overlapping non-convex parts: the exact overlap volume (surfaces cut along their
crossings, ``winding_volume``) next to the bound it replaced (pairwise part overlaps and triple bounds,
``approximate_union_overlap``), and the volume covered twice by a surface crossing itself.

Run from the repository root in the core environment, which has manifold3d (it builds the meshes with the test
fixtures and times manifold3d's boolean of the unions next to core):

    .venv/core/bin/python benchmarks/bench_parts_union.py [--quick]

Scenes: A = two tori through each other (and an L-bracket), B = a torus or a rod through them; A = a chain of 12
linked rings, B = a small box at one end; at two sizes. Figures: CPU seconds (best of a few runs), with the load.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "core"))
sys.path.insert(0, str(REPO / "benchmarks"))
import generators  # noqa: E402  (needs the paths above)
import mesh_fixtures as fixtures  # noqa: E402
from core.mesh import Solid  # noqa: E402
from core.mesh.contact.volumes import pair_volume  # noqa: E402
from core.mesh.parts_union import approximate_union_overlap, covered_twice  # noqa: E402
from core.mesh.self_intersection import self_intersection  # noqa: E402
from core.mesh.volume import overlap_volume  # noqa: E402
from timing import best_cpu, machine_load  # noqa: E402

STANDING = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def scenes():
    for major, minor in ((24, 12), (128, 64)):
        ring = fixtures.torus(0.6, 0.2, major, minor)
        parts_a = [ring, fixtures.transformed(ring, STANDING, (0.6, 0.0, 0.0)),
                   fixtures.transformed(fixtures.l_bracket(0.8, 0.3, 0.4), offset=(-0.2, -0.7, -0.2))]
        parts_b = [fixtures.transformed(fixtures.rod(0.15, -1.0, 1.0, 4 * major), fixtures.rotation_z(0.4) @ STANDING,
                                        (0.3, 0.0, 0.1))]
        yield f"tori+L against a rod ({major}x{minor})", parts_a, parts_b
        yield f"tori+L against a torus ({major}x{minor})", parts_a, [
            fixtures.transformed(fixtures.torus(0.5, 0.2, major, minor), fixtures.rotation_z(0.3), (0.4, -0.3, 0.1))]
        chain = [fixtures.transformed(ring, STANDING if k % 2 else np.eye(3), (0.5 * k, 0.0, 0.0)) for k in range(12)]
        yield f"12 linked rings, a box at one end ({major}x{minor})", chain, [
            fixtures.box((-0.7, -0.2, -0.2), (0.1, 0.2, 0.3))]


def bound(a: Solid, b: Solid):
    """What the overlap cost before: the parts' pairwise overlaps and the bound on the shared space."""
    crossing = {(i, j): overlap_volume(p.mesh, q.mesh) for i, p in enumerate(a.parts) for j, q in enumerate(b.parts)
                if (p.mesh.lows.min(axis=0) <= q.mesh.highs.max(axis=0)).all()
                and (q.mesh.lows.min(axis=0) <= p.mesh.highs.max(axis=0)).all()}
    return approximate_union_overlap([p.mesh for p in a.parts], [p.convex for p in a.parts], a.part_overlaps,
                                     [q.mesh for q in b.parts], [q.convex for q in b.parts], b.part_overlaps, crossing)


def main() -> None:
    repeats = 1 if "--quick" in sys.argv else 3
    print(machine_load())
    print(f"{'scene':<46}{'triangles':>10}{'bound (s)':>11}{'exact (s)':>11}{'manifold3d (s)':>16}  "
          "volume: exact, bound ± error, manifold3d")
    for name, parts_a, parts_b in scenes():
        a, b = Solid(fixtures.joined(*parts_a)), Solid(fixtures.joined(*parts_b))
        _ = a.part_overlaps, b.part_overlaps  # classified once, as an analysis does before measuring
        t_bound, (rough, _, error) = best_cpu(lambda: bound(a, b), repeats)
        t_exact, (volume, _, exact_error) = best_cpu(lambda: pair_volume(a, b), repeats)
        assert exact_error == 0.0

        def reference():
            union_a, union_b = fixtures.manifold(parts_a[0]), fixtures.manifold(parts_b[0])
            for part in parts_a[1:]:
                union_a = union_a + fixtures.manifold(part)
            for part in parts_b[1:]:
                union_b = union_b + fixtures.manifold(part)
            return (union_a ^ union_b).volume()

        t_manifold, expected = best_cpu(reference, repeats)
        triangles = len(a.mesh.triangles) + len(b.mesh.triangles)
        print(f"{name:<46}{triangles:>10,}{t_bound:>11.3f}{t_exact:>11.3f}{t_manifold:>16.3f}  "
              f"{volume:.10f}, {rough:.6f} ± {error:.6f}, {expected:.10f}")
    for major, minor in ((24, 12), (128, 64)):
        first = fixtures.torus(0.6, 0.25, major, minor)
        second = fixtures.transformed(fixtures.torus(0.5, 0.2, major, minor), fixtures.rotation_z(0.3) @ STANDING,
                                      (0.7, 0.1, 0.0))
        surface = fixtures.mesh(*generators.tube_joined(first.vertices, first.triangles, second.vertices,
                                                        second.triangles))
        t_found, found = best_cpu(lambda: self_intersection(surface), repeats)
        own = [found.pairs[~found.coplanar]]
        t_twice, twice = best_cpu(lambda: covered_twice([surface], [False], [], own), repeats)
        expected = (fixtures.manifold(first) ^ fixtures.manifold(second)).volume()
        print(f"self-crossing surface ({major}x{minor}, {len(surface.triangles):,} triangles): self_intersection "
              f"{t_found:.3f} s, covered twice {t_twice:.3f} s: {twice:.10f} (manifold3d {expected:.10f})")


if __name__ == "__main__":
    main()
