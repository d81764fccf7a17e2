"""The add-on's settings on the scene (``bpy.types.Scene.collision_inspector``): tolerances, scope, display
options, inspection modes, and the ``results`` collection of the last analysis (saved with the .blend)."""

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

from .enums import PLANE_MODE_ITEMS, SCOPE_ITEMS, SORT_ITEMS, STATUS_ITEMS
from .result import CollisionInspectorResult
from .self_check import CollisionInspectorSelfCheck


def _redraw_overlay(_self, _context) -> None:
    """Display settings changed: redraw the viewports (the overlay's caches notice what changed)."""
    from .. import overlay

    overlay.tag_redraw()


def _overlap_display_changed(_self, context) -> None:
    """Overlap or See Through switched: redraw, and switch the views' X-ray on or back (``see_through``)."""
    from .. import overlay, see_through

    see_through.sync(context.scene)
    overlay.tag_redraw()


def _live_update_changed(settings, _context) -> None:
    """Live update switched: start from freshly read shapes (switched on, every pair is measured again, at once or
    in idle time: ``live.switched``)."""
    from ...analysis import live

    live.switched(settings)


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


def _select_and_frame(self, context) -> None:
    """The list's active row changed: redraw, and with Select on Click select and frame the pair."""
    from .. import focus

    _redraw_overlay(self, context)
    if self.select_on_click:
        focus.show_pair(context, self.active_result_index)


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
        description="An overlap or a gap smaller than this is 'touching' rather than penetrating or apart",
        subtype='DISTANCE',
        default=1e-5,
        min=0.0,
        soft_max=0.1,
        precision=6,
        step=0.001,
    )
    clearance: FloatProperty(
        name="Clearance",
        description="Separated pairs closer than this are clearance violations; raising it adds results",
        subtype='DISTANCE',
        default=0.0,
        min=0.0,
        soft_max=1.0,
        precision=4,
        step=0.1,
    )
    scope: EnumProperty(
        name="Scope",
        items=SCOPE_ITEMS,
        default='SELECTED',
        description="Which object pairs the analysis measures",
    )
    collection_a: PointerProperty(
        name="Collection A",
        type=bpy.types.Collection,
        description="Objects of this collection (and its children) are object A of each pair",
    )
    collection_b: PointerProperty(
        name="Collection B",
        type=bpy.types.Collection,
        description="Checked against collection A; empty checks collection A against itself",
    )
    possible_pairs: IntProperty(
        name="Possible Pairs", description="Pairs the last analysis' scope allows (what brute force would measure)",
    )
    candidate_pairs: IntProperty(
        name="Candidate Pairs", description="Pairs the last analysis measured (those its broad phase kept)",
    )
    analysed_objects: IntProperty(name="Analysed Objects", description="Objects the last analysis read")
    analysis_seconds: FloatProperty(
        name="Analysis Seconds", description="How long the last analysis took, in seconds", precision=3,
    )
    analysed_scope: StringProperty(
        name="Analysed Scope",
        description="What the stored results cover (scope, collections or objects); analysing the same scope "
                    "again keeps vanished clashes as resolved",
    )
    hide_touching: BoolProperty(
        name="Hide Touching",
        description="Leave touching pairs out of the results list and the viewport",
        default=False,
        update=_redraw_overlay,
    )
    sort_by: EnumProperty(
        name="Sort By",
        items=SORT_ITEMS,
        default='NAME',
        description="Order of the results list (also the order Next and Previous step through)",
    )
    show_statuses: EnumProperty(
        name="Show",
        items=[item[:3] for item in STATUS_ITEMS],
        options={'ENUM_FLAG'},
        default={item[0] for item in STATUS_ITEMS},
        description="Statuses shown in the results list and the viewport",
        update=_redraw_overlay,
    )
    use_hulls: BoolProperty(
        name="Convex Hulls",
        description="Measure each object's convex hull (physics-proxy answers) instead of its real surfaces",
        default=False,
    )
    show_curves: BoolProperty(
        name="Curves and Regions",
        description="Draw where the surfaces cross (intersection curves) and the contact regions of convex pairs",
        default=True,
        update=_redraw_overlay,
    )
    show_overlap: BoolProperty(
        name="Overlap",
        description="Draw the space the active penetrating pair's objects share, as a tinted solid seen through "
                    "them (Blender's exact Boolean, computed once per pair and placement)",
        default=True,
        update=_overlap_display_changed,
    )
    overlap_see_through: BoolProperty(
        name="See Through",
        description="Switch the 3D views' X-ray on while the active penetrating pair's overlap is shown, so both "
                    "objects are see-through; each view's X-ray is put back as it was afterwards",
        default=False,
        update=_overlap_display_changed,
    )
    max_iterations: IntProperty(
        name="Max Iterations",
        description="Iteration cap for each of GJK and EPA; at the cap the best answer so far is kept. "
                    "0: automatic (grows with the shapes, so it never cuts a solve short)",
        default=0,
        min=0,
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
    color_clearance: _color("Clearance", (1.0, 0.5, 0.0, 1.0), "Colour of clearance violations")
    color_separated: _color("Separated", (0.0, 0.8, 0.9, 1.0), "Colour of separated pairs")
    results: CollectionProperty(type=CollisionInspectorResult, name="Results", description="Analysed pairs")
    self_checks: CollectionProperty(type=CollisionInspectorSelfCheck, name="Self-Intersections",
                                    description="Objects checked against themselves (Check Self-Intersections)")
    active_result_index: IntProperty(
        name="Active Result", description="Result shown in detail and highlighted in the viewport", default=0,
        min=0, update=_select_and_frame,
    )
    # Interactive inspection: measuring modes and list behaviour.
    use_rigid_body_shapes: BoolProperty(
        name="Rigid-Body Shapes",
        description="Measure objects with a rigid body as the physics sees them (box, sphere, capsule, cylinder, "
                    "cone or convex hull with the collision margin); Mesh and Compound shapes use the real surfaces",
        default=False,
    )
    plane_mode: EnumProperty(
        name="Plane",
        items=PLANE_MODE_ITEMS,
        default='NONE',
        description="Measure the objects' outlines projected into a plane (floor plans, layouts)",
    )
    plane_normal: FloatVectorProperty(
        name="Plane Normal",
        size=3,
        subtype='DIRECTION',
        default=(0.0, 0.0, 1.0),
        description="Normal of the custom plane",
    )
    select_on_click: BoolProperty(
        name="Select on Click",
        description="Clicking a result in the list selects its two objects and frames the contact",
        default=True,
    )
    # Interactive inspection: live update and animation scan.
    live_update: BoolProperty(
        name="Live Update",
        description="Measure the stored pairs again whenever one of their objects moves or changes shape",
        default=False,
        update=_live_update_changed,
    )
    scan_markers: BoolProperty(
        name="Timeline Markers",
        description="An animation scan adds a timeline marker at each pair's first contact",
        default=False,
    )
