"""The enum items of the scene data (statuses, review states, scopes, sorting, methods, inspection modes)."""

STATUS_ITEMS = (
    ('penetrating', "Penetrating", "The objects overlap by more than the touch tolerance", 'ERROR', 0),
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


#: How a pair was measured (``core.mesh.solid``): identifier, name, description.
#: How sure a result's overlap volume is (``analysis.mesh_notes.volume_certainty``): identifier, name, description.
VOLUME_CERTAINTY_ITEMS = (
    ('exact', "Exact", "Both objects are closed (after welding coincident vertices): the overlap volume is exact"),
    ('approximate', "Approximate", "An object is nearly closed: its small holes were capped, and the overlap volume "
                                   "is within the volume error"),
    ('none', "None", "No overlap volume: an object is an open surface (or convex hulls were measured)"),
)
METHOD_ITEMS = [
    ('convex', "Convex", "Both objects are convex: GJK/EPA, exact"),
    ('parts', "Part by Part", "Loose convex parts measured pair by pair with GJK/EPA, exact"),
    ('mesh', "Mesh", "Non-convex objects measured on their triangles"),
    ('hull', "Convex Hulls", "The objects' convex hulls, as physics engines see them (asked for)"),
]


#: Directions of the directional depth: world axes, the view direction or the result's normal.
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

#: Planes of the plane mode.
PLANE_MODE_ITEMS = [
    ('NONE', "Off", "Measure in 3D"),
    ('TOP', "Top", "Project into the top view's plane (normal +Z)"),
    ('FRONT', "Front", "Project into the front view's plane (normal -Y)"),
    ('SIDE', "Side", "Project into the right view's plane (normal +X)"),
    ('VIEW', "View", "Project into the plane of the current 3D view"),
    ('CUSTOM', "Custom", "Project into the plane with the Plane Normal below"),
]


def status_icon(status: str) -> str:
    """Icon name shown for a result status (the same as in the enum items)."""
    return next(item[3] for item in STATUS_ITEMS if item[0] == status)
