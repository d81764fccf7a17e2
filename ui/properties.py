"""Scene data of Collision Inspector: the settings and the stored results (saved with the .blend).

``bpy.types.Scene.collision_inspector`` points to a ``CollisionInspectorSettings``; each analysed pair
is one ``CollisionInspectorResult`` in its ``results`` collection. Results store world-space numbers
and the object names at analysis time so that the panel and overlay still work after objects are
deleted or renamed.
"""

import bpy
from bpy.props import (
    BoolProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

STATUS_ITEMS = (
    ('penetrating', "Penetrating", "The convex hulls overlap by more than the touch tolerance", 'ERROR', 0),
    ('touching', "Touching", "The signed distance is within the touch tolerance", 'PIVOT_BOUNDBOX', 1),
    ('separated', "Separated", "The convex hulls are apart by more than the touch tolerance", 'CHECKMARK', 2),
)

SOLVER_STATUS_ITEMS = (
    ('converged', "Converged", "The solver's bounds on the signed distance met the tolerance"),
    ('iteration_limit', "Iteration Limit",
     "Max Iterations was reached: the depth is a certain upper bound (pushing B that far along the normal "
     "separates the pair)"),
    ('stalled', "Stalled", "Rounding stopped the refinement early: the value lies within the solver's bounds"),
    ('degenerate', "Degenerate", "Flat, segment or point Minkowski difference, answered exactly"),
)


def _status_icon(status: str) -> str:
    """Icon name shown for a result status (the same as in the enum items)."""
    return next(item[3] for item in STATUS_ITEMS if item[0] == status)


def _redraw_overlay(_self, _context) -> None:
    """Display settings changed: rebuild the overlay's cached drawing."""
    from . import overlay

    overlay.refresh()


def _color(name: str, rgba: tuple, description: str) -> FloatVectorProperty:
    return FloatVectorProperty(
        name=name,
        description=description,
        subtype='COLOR_GAMMA',
        size=4,
        min=0.0,
        max=1.0,
        default=rgba,
        update=_redraw_overlay,
    )


class CollisionInspectorResult(bpy.types.PropertyGroup):
    """One analysed pair: A is the object whose name sorts first."""

    object_a: PointerProperty(name="Object A", type=bpy.types.Object, description="First object of the pair")
    object_b: PointerProperty(name="Object B", type=bpy.types.Object, description="Second object of the pair")
    name_a: StringProperty(name="Name A", description="Name of object A when the pair was analysed")
    name_b: StringProperty(name="Name B", description="Name of object B when the pair was analysed")
    status: EnumProperty(name="Status", items=STATUS_ITEMS, default='separated', description="Contact state")
    signed_distance: FloatProperty(
        name="Signed Distance",
        subtype='DISTANCE',
        precision=6,
        description="Distance between the convex hulls; negative when they penetrate (minus the depth)",
    )
    depth: FloatProperty(
        name="Depth",
        subtype='DISTANCE',
        precision=6,
        description="Penetration depth: the shortest move of B along the normal that separates the pair",
    )
    distance: FloatProperty(
        name="Distance",
        subtype='DISTANCE',
        precision=6,
        description="Gap between the convex hulls when separated",
    )
    tolerance: FloatProperty(
        name="Touch Tolerance Used",
        subtype='DISTANCE',
        precision=6,
        description="Touch tolerance of this analysis",
    )
    normal: FloatVectorProperty(
        name="Normal",
        size=3,
        subtype='DIRECTION',
        description="Unit contact normal, pointing from A toward B",
    )
    point_a: FloatVectorProperty(
        name="Point on A", size=3, subtype='TRANSLATION', description="Witness point on A (world space)"
    )
    point_b: FloatVectorProperty(
        name="Point on B", size=3, subtype='TRANSLATION', description="Witness point on B (world space)"
    )
    solver_status: EnumProperty(
        name="Solver Status",
        items=SOLVER_STATUS_ITEMS,
        default='converged',
        description="How the solver finished",
    )
    hull_note: StringProperty(
        name="Hull Note",
        description="Set when an object is so non-convex that its convex hull changes the answer",
    )

    @property
    def label(self) -> str:
        """'A ↔ B' with the current object names (or those at analysis time once deleted)."""
        name_a = self.object_a.name if self.object_a else self.name_a
        name_b = self.object_b.name if self.object_b else self.name_b
        return f"{name_a} \u2194 {name_b}"

    @property
    def status_icon(self) -> str:
        return _status_icon(self.status)

    @property
    def value(self) -> float:
        """The length that matters for the status: depth, distance, or |signed distance| when touching."""
        if self.status == 'penetrating':
            return self.depth
        if self.status == 'separated':
            return self.distance
        return abs(self.signed_distance)


class CollisionInspectorSettings(bpy.types.PropertyGroup):
    """Tolerances, display options and the results of the last analysis."""

    tolerance: FloatProperty(
        name="Tolerance",
        description="Solver accuracy: iterations stop when the bounds on the signed distance are this close",
        subtype='DISTANCE',
        default=1e-9,
        min=0.0,
        soft_max=0.01,
        precision=9,
        step=0.0001,
    )
    touch_tolerance: FloatProperty(
        name="Touch Tolerance",
        description="Pairs whose signed distance is within this band count as touching",
        subtype='DISTANCE',
        default=1e-5,
        min=0.0,
        soft_max=0.1,
        precision=6,
        step=0.001,
    )
    max_iterations: IntProperty(
        name="Max Iterations",
        description="Iteration cap for each of GJK and EPA; at the cap the best answer so far is kept",
        default=256,
        min=1,
        soft_max=4096,
    )
    show_arrows: BoolProperty(
        name="Arrows",
        description="Draw witness points and contact arrows in the viewport",
        default=True,
        update=_redraw_overlay,
    )
    show_labels: BoolProperty(
        name="Labels",
        description="Draw the depth or distance next to each arrow",
        default=True,
        update=_redraw_overlay,
    )
    arrow_scale: FloatProperty(
        name="Arrow Scale",
        description="Factor on the arrow heads' and points' on-screen size",
        default=1.0,
        min=0.01,
        soft_max=10.0,
        update=_redraw_overlay,
    )
    fixed_length_arrows: BoolProperty(
        name="Fixed-Length Arrows",
        description="Draw every arrow with the same on-screen length, for depths too small to see",
        default=False,
        update=_redraw_overlay,
    )
    fixed_arrow_length: FloatProperty(
        name="Arrow Length",
        description="On-screen length of fixed-length arrows, in pixels",
        subtype='PIXEL',
        default=60.0,
        min=1.0,
        soft_max=500.0,
        update=_redraw_overlay,
    )
    label_size: IntProperty(
        name="Label Size",
        description="Font size of the labels, in pixels",
        subtype='PIXEL',
        default=14,
        min=4,
        soft_max=72,
        update=_redraw_overlay,
    )
    color_penetrating: _color("Penetrating", (1.0, 0.1, 0.1, 1.0), "Colour of penetrating pairs")
    color_touching: _color("Touching", (1.0, 0.85, 0.0, 1.0), "Colour of touching pairs")
    color_separated: _color("Separated", (0.0, 0.8, 0.9, 1.0), "Colour of separated pairs")
    results: CollectionProperty(type=CollisionInspectorResult, name="Results", description="Analysed pairs")
    active_result_index: IntProperty(
        name="Active Result", description="Result shown in detail", default=0, min=0
    )
