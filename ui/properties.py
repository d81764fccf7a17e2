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

from ..analysis.shapes import current_name

STATUS_ITEMS = (
    ('penetrating', "Penetrating", "The convex hulls overlap by more than the touch tolerance", 'ERROR', 0),
    ('touching', "Touching", "The signed distance is within the touch tolerance", 'PIVOT_BOUNDBOX', 1),
    ('clearance', "Clearance", "Apart, but closer than the clearance distance", 'CON_DISTLIMIT', 3),
    ('separated', "Separated", "Apart by more than the touch tolerance and the clearance", 'CHECKMARK', 2),
)

REVIEW_STATE_ITEMS = (
    ('new', "New", "Found by the last analysis and not reviewed yet", 'KEYTYPE_KEYFRAME_VEC', 0),
    ('reviewed', "Reviewed", "Looked at, no verdict yet", 'HIDE_OFF', 1),
    ('approved', "Approved", "Accepted as intended (for example a deliberate contact)", 'CHECKMARK', 2),
    ('ignored', "Ignored", "Not relevant; kept out of the way", 'CANCEL', 3),
    ('resolved', "Resolved", "Clashed in an earlier analysis and no longer does", 'FILE_TICK', 4),
)

SCOPE_ITEMS = (
    ('SELECTED', "Selected", "Every pair among the selected objects"),
    ('ACTIVE', "Active vs Selected", "The active object against each of the other selected objects"),
    ('COLLECTIONS', "Collections", "Collection A against collection B, or collection A against itself when B is empty"),
    ('ALL', "All Objects", "Every pair among the scene's objects (broad phase first)"),
)

SORT_ITEMS = (
    ('NAME', "Name", "By object A's name, then object B's"),
    ('DEPTH', "Depth", "Deepest penetration first (smallest signed distance first)"),
    ('DISTANCE', "Distance", "Closest to contact first (smallest |signed distance| first)"),
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
    """Display settings changed: redraw the viewports (the overlay's caches notice what changed)."""
    from . import overlay

    overlay.tag_redraw()


def _live_update_changed(settings, _context) -> None:
    """Live update switched: start from freshly read shapes (switched on, every pair is measured again, at once or
    in idle time: ``live.switched``)."""
    from ..analysis import live

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


#: How a pair was measured (``core.mesh.solid``): identifier, name, description.
METHOD_ITEMS = [
    ('convex', "Convex", "Both objects are convex: GJK/EPA, exact"),
    ('parts', "Part by Part", "Loose convex parts measured pair by pair with GJK/EPA, exact"),
    ('mesh', "Mesh", "Non-convex objects measured on their triangles"),
    ('hull', "Convex Hulls", "The objects' convex hulls, as physics engines see them (asked for)"),
]


#: The float64 numbers of a result, in the order of its ``exact`` ID property: name -> (start, size).
EXACT_LAYOUT = {"signed_distance": (0, 1), "normal": (1, 3), "point_a": (4, 3), "point_b": (7, 3),
                "overlap_volume": (10, 1), "depth_lower_bound": (11, 1), "region_area": (12, 1),
                "distance_lower_bound": (13, 1)}
EXACT_SIZE = 14
#: The single-precision copies (RNA properties, for ``foreach_get`` when drawing and sorting) of exact numbers.
VIEW_COPIES = {"signed_distance": "signed_distance_view", "normal": "normal_view", "point_a": "point_a_view",
               "point_b": "point_b_view", "overlap_volume": "overlap_volume_view"}


class ExactNumber:
    """A result number kept at float64 in the result's ``exact`` ID property (saved with the .blend).

    Blender's float properties are single precision; a witness point 2e5 m from the origin would lose
    millimetres. Reading gives a float (or a tuple of three); writing also updates the float32 copy that
    the overlay and the list's sorting read in bulk.
    """

    def __init__(self, name: str, doc: str):
        self.name, self.__doc__ = name, doc
        self.start, self.size = EXACT_LAYOUT[name]

    def __get__(self, result, _owner=None):
        if result is None:
            return self
        values = list(result.get("exact", ()))
        values += [0.0] * (EXACT_SIZE - len(values))  # (none yet, or saved when there were fewer)
        picked = tuple(float(v) for v in values[self.start:self.start + self.size])
        return picked[0] if self.size == 1 else picked

    def __set__(self, result, value) -> None:
        write_exact(result, {self.name: value})


def write_exact(result, numbers: dict) -> None:
    """Write exact numbers (``{name in EXACT_LAYOUT: value}``) with one read and one write of the result's
    ``exact`` ID property, and their single-precision copies (a live update rewrites them all per pair)."""
    values = list(result.get("exact", ()))
    values += [0.0] * (EXACT_SIZE - len(values))
    for name, value in numbers.items():
        start, size = EXACT_LAYOUT[name]
        written = [float(value)] if size == 1 else [float(v) for v in value]
        values[start:start + size] = written
        view = VIEW_COPIES.get(name)
        if view is not None:
            setattr(result, view, written[0] if size == 1 else written)
    result["exact"] = values


#: Directions of the directional depth (issue 11): world axes, the view direction or the result's normal.
DIRECTIONAL_AXIS_ITEMS = [
    ('NONE', "None", "Not measured"),
    ('X', "X", "Along world +X"),
    ('Y', "Y", "Along world +Y"),
    ('Z', "Z", "Along world +Z"),
    ('NEG_X', "-X", "Along world -X"),
    ('NEG_Y', "-Y", "Along world -Y"),
    ('NEG_Z', "-Z", "Along world -Z"),
    ('VIEW', "View", "Along the view direction, into the screen"),
    ('NORMAL', "Normal", "Along the result's contact normal (A toward B)"),
]

#: Planes of the plane mode (issue 11).
PLANE_MODE_ITEMS = [
    ('NONE', "Off", "Measure in 3D"),
    ('TOP', "Top", "Project into the top view's plane (normal +Z)"),
    ('FRONT', "Front", "Project into the front view's plane (normal -Y)"),
    ('SIDE', "Side", "Project into the right view's plane (normal +X)"),
    ('VIEW', "View", "Project into the plane of the current 3D view"),
    ('CUSTOM', "Custom", "Project into the plane with the Plane Normal below"),
]


def _select_and_frame(self, context) -> None:
    """The list's active row changed: redraw, and with Select on Click select and frame the pair."""
    from . import focus

    _redraw_overlay(self, context)
    if self.select_on_click:
        focus.show_pair(context, self.active_result_index)


class CollisionInspectorResult(bpy.types.PropertyGroup):
    """One analysed pair: A is the object whose name sorts first."""

    object_a: PointerProperty(name="Object A", type=bpy.types.Object, description="First object of the pair")
    object_b: PointerProperty(name="Object B", type=bpy.types.Object, description="Second object of the pair")
    name_a: StringProperty(name="Name A", description="Name of object A when the pair was analysed")
    name_b: StringProperty(name="Name B", description="Name of object B when the pair was analysed")
    status: EnumProperty(name="Status", items=STATUS_ITEMS, default='separated', description="Contact state")
    signed_distance_view: FloatProperty(
        name="Signed Distance (display)",
        subtype='DISTANCE',
        precision=6,
        description="Single-precision copy of the signed distance, for sorting and drawing",
    )
    tolerance: FloatProperty(
        name="Touch Tolerance Used",
        subtype='DISTANCE',
        precision=6,
        description="Touch tolerance of this analysis",
    )
    overlap_volume_view: FloatProperty(
        name="Overlap Volume (display)", unit='VOLUME', precision=6,
        description="Single-precision copy of the overlap volume, for the viewport's labels",
    )
    normal_view: FloatVectorProperty(
        name="Normal (display)", size=3, subtype='DIRECTION',
        description="Single-precision copy of the contact normal, for drawing",
    )
    point_a_view: FloatVectorProperty(
        name="Point on A (display)", size=3, subtype='TRANSLATION',
        description="Single-precision copy of the witness point on A, for drawing",
    )
    point_b_view: FloatVectorProperty(
        name="Point on B (display)", size=3, subtype='TRANSLATION',
        description="Single-precision copy of the witness point on B, for drawing",
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
    review_state: EnumProperty(
        name="Review State",
        items=REVIEW_STATE_ITEMS,
        default='new',
        description="The reviewer's verdict; kept when analysing again while the pair still clashes",
    )
    method: EnumProperty(
        name="Method",
        items=METHOD_ITEMS,
        default='convex',
        description="How the pair was measured",
    )
    has_volume: BoolProperty(
        name="Has Volume",
        description="Both objects are closed, so the overlap volume exists (open meshes enclose none)",
        default=True,
    )
    depth_is_estimate: BoolProperty(
        name="Depth Is an Estimate",
        description="The push-out was checked to separate the pair but may be longer than the shortest one",
        default=False,
    )
    distance_is_estimate: BoolProperty(
        name="Distance Is an Estimate",
        description="Apart, answered from the last exact distance while an object moved: the distance is at most "
                    "the one shown (two points on the surfaces) and at least the lower bound; measured once it stops",
        default=False,
    )
    cross_check: StringProperty(
        name="SAT Cross-Check",
        description="What the separating-axis test said of this result: 'agrees', or the disagreement",
    )
    stale: BoolProperty(
        name="Stale",
        description="One of the two objects moved or changed shape since the analysis: analyse again",
    )
    volume_pending: BoolProperty(
        name="Volume Pending",
        description="Measured by the live update while an object moved: the overlap volume (and a non-convex "
                    "pair's shortest push-out, or an estimated distance) follow once it stops",
    )
    # Interactive inspection (issue 11): directional depth of the pair.
    directional_axis: EnumProperty(
        name="Directional Axis",
        items=DIRECTIONAL_AXIS_ITEMS,
        default='NONE',
        description="Axis along which the directional depth was measured",
    )
    directional_distance: FloatProperty(
        name="Directional Distance",
        subtype='DISTANCE',
        precision=6,
        description="How far B must move along the directional axis to separate from A (or, apart, to touch "
                    "it); infinite when moving along it never touches",
    )

    signed_distance = ExactNumber("signed_distance", "Distance between the objects; negative when they penetrate")
    normal = ExactNumber("normal", "Unit contact normal, pointing from A toward B")
    point_a = ExactNumber("point_a", "Witness point on A (world space)")
    point_b = ExactNumber("point_b", "Witness point on B (world space)")
    overlap_volume = ExactNumber("overlap_volume", "Volume enclosed by both objects (0 when they do not overlap)")
    depth_lower_bound = ExactNumber("depth_lower_bound", "No push-out shorter than this can separate the pair")
    distance_lower_bound = ExactNumber("distance_lower_bound",
                                       "The objects are at least this far apart (when the distance is an estimate)")
    region_area = ExactNumber("region_area", "Area of the contact region (0 for a point or an edge)")

    def write_exact(self, numbers: dict) -> None:
        """Set several of the exact numbers above at once (``{name: value}``; see ``write_exact``)."""
        write_exact(self, numbers)

    @property
    def depth(self) -> float:
        """Penetration depth (float64): the push-out along the normal that separates the pair; 0 unless penetrating."""
        return max(-self.signed_distance, 0.0)

    @depth.setter
    def depth(self, value: float) -> None:
        self.signed_distance = -float(value)

    @property
    def distance(self) -> float:
        """Gap between the objects (float64); 0 unless apart."""
        return max(self.signed_distance, 0.0)

    @distance.setter
    def distance(self, value: float) -> None:
        self.signed_distance = float(value)
    # Animation scan (``analysis.scan``): the pair's worst frame is what the numbers above describe.
    scanned: BoolProperty(name="Scanned", description="Measured at every frame of an animation scan")
    first_contact_frame: IntProperty(
        name="First Contact Frame", description="First scanned frame where the pair touches or penetrates",
    )
    deepest_frame: IntProperty(name="Deepest Frame", description="Scanned frame of the deepest penetration")
    max_depth: FloatProperty(
        name="Max Depth", subtype='DISTANCE', precision=6,
        description="Deepest penetration over the scanned frames (0 when it never penetrates)",
    )
    contact_frames: StringProperty(
        name="Contact Frames", description="Frame intervals in contact during the scan, e.g. \"1-10 40-52\"",
    )

    @property
    def label(self) -> str:
        """'A ↔ B' with the current object names (or those at analysis time once deleted); an instanced
        object is "Instancer ▸ Object" under the instancer's current name."""
        return f"{current_name(self.object_a, self.name_a)} \u2194 {current_name(self.object_b, self.name_b)}"

    @property
    def status_icon(self) -> str:
        return _status_icon(self.status)

    @property
    def value(self) -> float:
        """The length that matters for the status: depth, distance, or |signed distance| when touching."""
        if self.status == 'penetrating':
            return self.depth
        if self.status in {'separated', 'clearance'}:
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
    active_result_index: IntProperty(
        name="Active Result", description="Result shown in detail and highlighted in the viewport", default=0,
        min=0, update=_select_and_frame,
    )
    # Interactive inspection (issue 11): measuring modes and list behaviour.
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
