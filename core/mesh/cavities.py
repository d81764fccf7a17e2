"""Cavities: a loose part that faces inward, inside a part that faces outward, is the inner wall of a hollow (a shell
made by Solidify, a hollow casting, a tank), not an inside-out part: its inside is empty space. Such a part is kept
as it is and measured with the part around it, so that a shell's solid is its wall alone.
See docs/architecture.md, "Mesh: solids and their methods".
"""

from __future__ import annotations

import numpy as np

from ..steps import checkpoint
from ..vector.arrays import cross
from .inside import winding_numbers
from .topology import loose_parts, once_per_mesh, submesh
from .trimesh import TriangleMesh


def part_volumes(mesh: TriangleMesh, labels: np.ndarray, count: int) -> np.ndarray:
    """(count,) six times each loose part's signed volume (positive: it faces outward), from the mesh's centre."""
    checkpoint()  # (a cancelled caller's worker stops here)
    corners = mesh.corners - mesh.vertices.mean(axis=0)
    tetrahedra = np.einsum("ij,ij->i", corners[:, 0], cross(corners[:, 1], corners[:, 2]))
    return np.bincount(labels, weights=tetrahedra, minlength=count)


@once_per_mesh
def loose_part_volumes(mesh: TriangleMesh) -> np.ndarray:
    """``part_volumes`` of the mesh's loose parts (``topology.loose_parts``), computed once per mesh: turning its parts
    outward and listing them both ask for them."""
    labels, count = loose_parts(mesh)
    return part_volumes(mesh, labels, count)


def cavity_hosts(mesh: TriangleMesh, labels: np.ndarray, volumes: np.ndarray) -> np.ndarray:
    """(count,) for each part that faces inward (``volumes`` < 0), the smallest part facing outward and larger that
    holds it (its box around the part's, a vertex of the part inside it by ``winding_numbers``); -1 for every other
    part. Only parts facing inward are looked at, so a mesh without any costs nothing."""
    hosts = np.full(len(volumes), -1, dtype=np.int64)
    inward = np.flatnonzero(volumes < 0.0)
    if not len(inward):
        return hosts
    lows = np.full((len(volumes), 3), np.inf)
    highs = np.full((len(volumes), 3), -np.inf)
    np.minimum.at(lows, labels, mesh.corners.min(axis=1))
    np.maximum.at(highs, labels, mesh.corners.max(axis=1))
    for part in inward:
        around = np.flatnonzero((volumes > -volumes[part]) & (lows <= lows[part]).all(axis=1)
                                & (highs >= highs[part]).all(axis=1))
        if not len(around):
            continue
        point = mesh.vertices[mesh.triangles[np.argmax(labels == part), 0]][None]
        holding = [host for host in around[np.argsort(volumes[around], kind="stable")]
                   if winding_numbers(submesh(mesh, labels == host), point)[0] > 0.5]
        if holding:
            hosts[part] = holding[0]
    return hosts


def with_cavities(pieces: list[TriangleMesh], hosts: np.ndarray) -> list[TriangleMesh]:
    """The loose parts ``pieces`` (one per label, in order) with each cavity joined to its host (``hosts``), the
    cavities themselves left out: each piece left a solid of its own, its hollows inside it."""
    if not (hosts >= 0).any():
        return pieces
    joined = []
    for k, piece in enumerate(pieces):
        if hosts[k] >= 0:
            continue
        held = [piece, *(pieces[cavity] for cavity in np.flatnonzero(hosts == k))]
        if len(held) == 1:
            joined.append(piece)
            continue
        offsets = np.cumsum([0] + [len(part.vertices) for part in held[:-1]])
        joined.append(TriangleMesh.from_arrays(np.concatenate([part.vertices for part in held]),
                                               np.concatenate([part.triangles + offset
                                                               for part, offset in zip(held, offsets)])))
    return joined
