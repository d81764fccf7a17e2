"""One analysed pair as stored on the scene (``CollisionInspectorResult``, saved with the .blend).

Results keep world-space numbers (float64 through ``analysis.exact_numbers``) and the object names at analysis
time, so the panel and the overlay still work after objects are deleted or renamed.
"""

import bpy
from bpy.props import (BoolProperty, EnumProperty, FloatProperty, FloatVectorProperty, IntProperty, PointerProperty,
                       StringProperty)

from ...analysis.exact_numbers import ExactNumber
from ...analysis.shapes import current_name
from .enums import (DIRECTIONAL_AXIS_ITEMS, METHOD_ITEMS, REVIEW_STATE_ITEMS, SOLVER_STATUS_ITEMS, STATUS_ITEMS,
                    VOLUME_CERTAINTY_ITEMS, status_icon)


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
    volume_certainty: EnumProperty(
        name="Volume Certainty",
        items=VOLUME_CERTAINTY_ITEMS,
        default='exact',
        description="How sure the overlap volume is: exact, approximate (within the volume error) or none",
    )
    mesh_note: StringProperty(
        name="Mesh Note",
        description="What repairing the objects' triangles changed: open and non-manifold edges, parts or faces "
                    "turned over, faces ignored",
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
    # Interactive inspection: directional depth of the pair.
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
    volume_error = ExactNumber("volume_error", "Bound on the overlap volume's error when its certainty is "
                                               "'approximate' (0 otherwise)")

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
    measured_frame: IntProperty(
        name="Measured Frame",
        description="The frame whose scene the numbers describe: the pair's worst scanned frame (deepest, or "
                    "closest when it never penetrates)",
    )
    frame_bound: BoolProperty(
        name="Frame Bound",
        description="An object of the pair moves or changes in the scanned frames: the viewport draws the result at "
                    "its measured frame only (else the numbers hold at every scanned frame)",
    )
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
        return status_icon(self.status)

    @property
    def value(self) -> float:
        """The length that matters for the status: depth, distance, or |signed distance| when touching."""
        if self.status == 'penetrating':
            return self.depth
        if self.status in {'separated', 'clearance'}:
            return self.distance
        return abs(self.signed_distance)
