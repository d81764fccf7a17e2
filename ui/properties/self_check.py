"""One object checked against itself as stored on the scene (``CollisionInspectorSelfCheck``, saved with the
.blend): the counts of ``analysis.self_check``; the crossing segments are stored apart, for the overlay
(``analysis.self_check_store``)."""

import bpy
from bpy.props import BoolProperty, FloatProperty, IntProperty, PointerProperty, StringProperty


class CollisionInspectorSelfCheck(bpy.types.PropertyGroup):
    """An object's self-intersections: faces of the object that pass through each other."""

    object: PointerProperty(name="Object", type=bpy.types.Object, description="The object checked")
    name: StringProperty(name="Name", description="Name of the object when it was checked")
    triangles: IntProperty(name="Triangles", description="Triangles of the evaluated object")
    face_pairs: IntProperty(name="Face Pairs", description="Pairs of its triangles that pass through each other")
    coplanar_pairs: IntProperty(name="Folded Pairs",
                                description="Of those, pairs lying in one plane, folded onto each other")
    faces: IntProperty(name="Faces", description="Triangles that take part in an intersection")
    curves: IntProperty(name="Curves", description="Curves along which its faces cross")
    closed: BoolProperty(name="Closed", description="The object encloses a volume")
    covered_twice_measured: BoolProperty(
        name="Covered Twice Measured",
        description="The volume covered twice is known (closed, and every part a manifold surface)")
    covered_twice_volume: FloatProperty(
        name="Covered Twice", unit='VOLUME', precision=6,
        description="Volume inside two or more of its parts, or of its surface's sheets where it crosses itself "
                    "(world units³)")
