"""What users build their objects with: mirrored (negative-scaled) objects, modifier stacks (Array, Mirror, Solidify,
Boolean, Screw), curves and text, FBX round trips, objects far from the origin and tiny ones.

References are independent of the add-on: analytic answers from each scene's construction, Blender's exact Boolean
modifier for overlap volumes and bmesh for volumes (``test_analysis_real_imports``).
"""

import bpy
import pytest

from test_operators_analyse import add_cube, only_result, rename  # noqa: I001
from test_analysis_real_imports import boolean_overlap


def add_torus(name: str, **transform) -> bpy.types.Object:
    bpy.ops.mesh.primitive_torus_add(major_radius=1.0, minor_radius=0.25)
    return rename(bpy.context.active_object, name, **transform)


@pytest.mark.parametrize("scale", [(-1.0, 1.0, 1.0), (1.0, -2.0, 1.0), (-1.0, -1.0, -1.0)])
def test_a_mirrored_object_is_measured_as_it_looks_with_no_note_about_its_faces(empty_scene, scale):
    torus = add_torus("Torus", scale=scale)  # mirrored by a negative scale: its faces still face outward
    box = add_cube("Box", size=0.4, location=(1.0, 0.0, 0.2))
    result = only_result(box, torus)
    assert result.status == 'penetrating'
    assert result.mesh_note == ""  # nothing in the mesh was turned over: the mirror is the object's transform
    assert result.volume_certainty == 'exact'
    assert result.overlap_volume == pytest.approx(boolean_overlap(torus, box), rel=1e-6)

