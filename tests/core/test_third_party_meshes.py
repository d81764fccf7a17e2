"""Meshes made by others: robot links, gripper parts and props shipped in the ``airo-models`` PyPI package (OBJ and
STL files, the STL ones a triangle soup with every vertex repeated per face), measured as the add-on measures them.

References: manifold3d's volumes of the meshes with its own vertex merging, and coal's BVH distances between the
merged meshes. The files are read by the small readers below (the add-on reads Blender objects, never files).
"""

from pathlib import Path

import airo_models
import manifold3d
import numpy as np
import pytest

import mesh_fixtures as fx
from core.mesh import Solid, collide_solids
from core.mesh.repair import APPROXIMATE, EXACT, repaired
from core.mesh.topology import edge_table
from core.mesh.volume import mesh_volume

ROOT = Path(airo_models.__file__).parent
#: Files whose merged mesh manifold3d accepts as a closed solid, in metres: STL soups, an OBJ whose seams repeat
#: vertices (``backing.obj``, ``magneto_finger.obj``) and OBJ collision meshes shared as indexed.
CLOSED = ["grippers/robotiq_2f_85/meshes/collision/robotiq_arg2f_85_base_link.stl",
          "grippers/fingertips/meshes/backing.obj", "grippers/fingertips/meshes/magneto_finger.obj",
          "arms/ur5e/collision/wrist3.obj", "arms/ur5e/collision/forearm_link_part_1.obj",
          "mobile_platforms/kelo_robile/meshes/kelo_drive_wheel.obj", "cameras/realsense/d435/d435.obj"]
#: A visual mesh cracked where its top cap meets its wall: the two rims (other vertices, up to a few tens of
#: micrometres apart) do not merge, so manifold3d rejects it, but it is nearly closed.
CRACKED = "arms/ur3e/visual/base.obj"


def read_obj(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and fan-triangulated faces of an OBJ file (positions only)."""
    vertices, triangles = [], []
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("v "):
            vertices.append([float(x) for x in line.split()[1:4]])
        elif line.startswith("f "):
            ids = [int(token.split("/")[0]) for token in line.split()[1:]]
            ids = [i - 1 if i > 0 else len(vertices) + i for i in ids]
            triangles.extend([ids[0], ids[k], ids[k + 1]] for k in range(1, len(ids) - 1))
    return np.array(vertices, dtype=np.float64), np.array(triangles, dtype=np.int64)


def read_stl(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """The triangles of a binary STL file, each on its own three vertices (as the format stores them)."""
    data = path.read_bytes()
    count = int(np.frombuffer(data[80:84], dtype="<u4")[0])
    records = np.frombuffer(data[84:84 + 50 * count], dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)),
                                                                      ("a", "<u2")]))
    vertices = records["v"].reshape(-1, 3).astype(np.float64)
    return vertices, np.arange(len(vertices)).reshape(-1, 3)


def read(relative: str) -> tuple[np.ndarray, np.ndarray]:
    path = ROOT / relative
    return read_stl(path) if path.suffix.lower() == ".stl" else read_obj(path)


def merged_manifold(vertices: np.ndarray, triangles: np.ndarray) -> manifold3d.Manifold:
    mesh = manifold3d.Mesh64(vert_properties=vertices, tri_verts=triangles.astype(np.uint64))
    mesh.merge()
    return manifold3d.Manifold(mesh)


def placed(relative: str, offset=(0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """The file's mesh centred on its box's centre, then moved by ``offset``."""
    vertices, triangles = read(relative)
    centre = 0.5 * (vertices.min(axis=0) + vertices.max(axis=0))
    return vertices - centre + np.asarray(offset, dtype=np.float64), triangles


@pytest.mark.parametrize("relative", CLOSED)
def test_closed_meshes_are_exact_with_manifolds_volume(relative):
    vertices, triangles = read(relative)
    reference = merged_manifold(vertices, triangles)
    assert reference.status().name == "NoError"
    repair = repaired(fx.mesh(vertices, triangles))
    assert repair.certainty == EXACT and repair.open_edges == 0
    assert mesh_volume(repair.mesh) == pytest.approx(reference.volume(), rel=1e-9)
    if relative.endswith(".stl"):
        assert repair.welded_vertices == len(vertices) - len(reference.to_mesh64().vert_properties)


def test_a_visual_mesh_cracked_where_its_cap_meets_its_wall_is_nearly_closed():
    """The crack's two rims are capped as one hole: 'approximate', within a bound a thousandth of the volume, of
    the volume it has with the crack's strip filled flat (the rims lie in one plane: taken from a point on it)."""
    vertices, triangles = read(CRACKED)
    assert merged_manifold(vertices, triangles).status().name != "NoError"
    solid = Solid(fx.mesh(vertices, triangles))
    repair = solid.repair
    assert solid.volume_certainty == APPROXIMATE and solid.closed and repair.open_edges > 0 and repair.holes == 1
    table = edge_table(fx.mesh(vertices, triangles))
    rim = vertices[np.unique(table.edges[table.uses == 1])]
    assert np.ptp(rim[:, 2]) < 3e-5  # a plane, to the file's rounding and the crack's width
    plane = fx.mesh(vertices, triangles).corners - rim.mean(axis=0)
    reference = np.einsum("ij,ij->i", plane[:, 0], np.cross(plane[:, 1], plane[:, 2])).sum() / 6.0
    assert abs(mesh_volume(repair.mesh) - reference) <= repair.volume_error < 1e-3 * reference


@pytest.mark.parametrize("offset", [(0.1, 0.02, 0.01), (0.09, 0.0, 0.0), (0.03, 0.005, 0.002), (0.0, 0.0, 0.0)])
def test_a_gripper_base_against_a_wrist_link_matches_coal_and_manifold(offset):
    """The gripper base as an STL soup (welded by the add-on) against a UR5e wrist link (an OBJ), apart and
    overlapping: coal's distance between the merged meshes, manifold3d's volume of their intersection."""
    base = placed(CLOSED[0])
    wrist = placed("arms/ur5e/collision/wrist3.obj", offset)
    a, b = Solid(fx.mesh(*base), name="base"), Solid(fx.mesh(*wrist), name="wrist")
    contact = collide_solids(a, b)
    merged_a, merged_b = merged_manifold(*base), merged_manifold(*wrist)
    overlap = (merged_a ^ merged_b).volume()
    if overlap > 0.0:
        assert contact.status == "penetrating"
        assert contact.overlap_volume == pytest.approx(overlap, rel=1e-6)
        return
    welded = [merged.to_mesh64() for merged in (merged_a, merged_b)]
    reference = fx.coal_distance(*(fx.mesh(np.asarray(m.vert_properties)[:, :3], np.asarray(m.tri_verts))
                                   for m in welded))
    assert contact.status == "separated" and contact.overlap_volume == 0.0
    assert contact.distance == pytest.approx(reference, rel=1e-6, abs=1e-9)
    for point, (vertices, triangles) in ((contact.point_a, base), (contact.point_b, wrist)):  # on the real surfaces
        assert fx.coal_distance(fx.mesh(vertices, triangles), fx.mesh(point[None].repeat(3, 0), [[0, 1, 2]])) < 1e-9
