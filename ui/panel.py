"""Sidebar tab "Collision" in the 3D viewport: scope, buttons, thresholds, display options and results."""

import math
import textwrap

import bpy
import numpy as np

from ..analysis.inspect import KEPT_MODES
from ..analysis.ordering import settings_order
from ..analysis.scan import sparkline
from ..analysis.store import depth_series, result_pair
from .properties.enums import DIRECTIONAL_AXIS_ITEMS
from .units import SMALLEST_SHOWN, format_area, format_length, format_volume, length_unit

# Words on a result row: the length that matters for each status.
VALUE_WORDS = {'penetrating': "depth", 'separated': "gap", 'clearance': "gap"}
# Characters per line of wrapped notes when the sidebar's width is unknown, and pixels per character.
NOTE_WIDTH_CHARS = 40
PIXELS_PER_CHAR = 7
#: Pixels of a UI unit (``ui_units_x``) at interface scale 1.
UNIT_PX = 20
#: A result row: pixels of the sidebar's tabs and margins and of the list's frame and scroll bar, and characters'
#: worth of its status icon and of its review state and frame buttons. Rows take one line where the sidebar has
#: room for ``ONE_LINE_CHARS`` and the row fits; else two (the names in full on the first, the value under them).
ROW_MARGIN_PX = 90
ICON_CHARS = 3
BUTTON_CHARS = 8
ONE_LINE_CHARS = 44
#: Characters a row may take when the sidebar's width is unknown (a script drawing the list).
UNKNOWN_ROW_CHARS = 80


class COLLISION_INSPECTOR_UL_results(bpy.types.UIList):
    """One row per analysed pair: "A ↔ B", status, its length in scene units, review state and a button
    that selects and frames it; on two or three lines when the sidebar is too narrow for one, so that the names
    show in full (``row_name_lines``). Sorted and filtered by the scene's list settings (``settings_order``)."""

    def draw_item(self, context, layout, _data, item, _icon, _active_data, _active_prop, index=0, _flags=0):
        region = getattr(context, "region", None)  # its width says how much fits on a line
        chars = UNKNOWN_ROW_CHARS if region is None else row_chars(region.width)
        value = row_value(item, context.scene)
        icon = 'TIME' if item.stale else item.status_icon
        end_chars = len(value) + BUTTON_CHARS
        if chars >= ONE_LINE_CHARS and len(item.label) + ICON_CHARS + end_chars <= chars:
            row = layout.row(align=True)
            row.label(text=item.label, icon=icon)
        else:
            column = layout.column(align=True)
            lines, beside = row_name_lines(*result_pair(item), chars - ICON_CHARS, end_chars)
            for line in lines:
                column.label(text=line, icon=icon)
                icon = 'BLANK1'
            row = column.row(align=True)
            row.label(text=beside, icon='BLANK1')
        end = row.row(align=True)
        end.alignment = 'RIGHT'
        end.ui_units_x = end_chars * PIXELS_PER_CHAR / UNIT_PX
        end.label(text=value)
        end.prop(item, "review_state", text="", icon_only=True, emboss=False)
        end.operator("collision_inspector.show_result", text="", icon='ZOOM_SELECTED', emboss=False).index = index

    def draw_filter(self, context, layout):
        """The list's sort and filter settings live in the scene (see the Results panel), not in the list."""
        draw_list_settings(layout, context.scene.collision_inspector)

    def filter_items(self, context, data, propname):
        return list_filter(getattr(data, propname), settings_order(context.scene.collision_inspector),
                           self.bitflag_filter_item)


def sidebar_chars(context) -> int:
    """Characters that fit on a line of a panel's text in this sidebar (``NOTE_WIDTH_CHARS`` when its width is
    unknown, at least 20)."""
    region = getattr(context, "region", None)
    return max(region.width // PIXELS_PER_CHAR if region else NOTE_WIDTH_CHARS, 20)


def row_chars(width: int) -> int:
    """Characters that fit on a line of the results list in a sidebar ``width`` pixels wide."""
    return max(int(width - ROW_MARGIN_PX) // PIXELS_PER_CHAR, 9)


def row_name_lines(name_a: str, name_b: str, chars: int, end_chars: int) -> tuple[list, str]:
    """A narrow result row's names: ``(lines above the value's line, text beside the value)`` in lines of ``chars``
    characters, the value's line keeping ``end_chars`` for the value and buttons. "A ↔ B" on a line of its own
    when it fits; else A on one line and "↔ B" on the next, beside the value when there is room. A name longer than
    a whole line keeps its start and end around an ellipsis (the row's frame button has the full names in its
    tooltip)."""
    if len(name_a) + len(name_b) + 3 <= chars:
        return [f"{name_a} \u2194 {name_b}"], ""
    second = f"\u2194 {name_b}"
    if len(second) + end_chars <= chars:
        return [_ellipsized(name_a, chars)], second
    return [_ellipsized(name_a, chars), _ellipsized(second, chars)], ""


def _ellipsized(name: str, chars: int) -> str:
    """``name`` in at most ``chars`` characters: its start, an ellipsis and its end (numbered copies such as
    "Pipe.012" stay told apart)."""
    if len(name) <= chars:
        return name
    if chars <= 1:
        return name[:chars]
    tail = (chars - 1) // 2
    return name[:chars - 1 - tail] + "\u2026" + (name[len(name) - tail:] if tail else "")


def list_filter(results, order: list, visible_flag: int) -> tuple:
    """UIList ``(flags, new order)`` showing the results of ``order`` in that order, the rest hidden.

    ``new_order[i]`` is the row of result ``i``; hidden results go after the shown ones. Vectorised:
    the list redraws with every panel redraw, whatever the number of results.
    """
    count = len(results)
    order = np.asarray(order, dtype=np.int64)
    flags = np.zeros(count, dtype=np.int64)
    flags[order] = visible_flag
    hidden = np.flatnonzero(flags == 0)
    new_order = np.empty(count, dtype=np.int64)
    new_order[np.concatenate([order, hidden])] = np.arange(count)
    return flags.tolist(), new_order.tolist()


def draw_list_settings(layout, settings) -> None:
    """Sort order and status filter of the results list (two statuses a line: their names fit the sidebar)."""
    row = layout.row(align=True)
    row.prop(settings, "sort_by", text="Sort")
    row.prop(settings, "hide_touching", toggle=True)
    statuses = layout.grid_flow(row_major=True, columns=2, even_columns=True, align=True)
    for status in ('penetrating', 'touching', 'clearance', 'separated'):
        statuses.prop_enum(settings, "show_statuses", status)


def row_value(result, scene: bpy.types.Scene) -> str:
    """The status in a word with its length: "depth 12.4 mm", "gap 3 cm" or "touching"."""
    word = VALUE_WORDS.get(result.status)
    return f"{word} {format_length(result.value, scene)}" if word else result.status


class _SidebarPanel:
    """Where all panels live: the 3D viewport's sidebar, tab "Collision"."""

    bl_space_type = 'VIEW_3D'
    bl_region_type = 'UI'
    bl_category = "Collision"


class COLLISION_INSPECTOR_PT_main(_SidebarPanel, bpy.types.Panel):
    """Scope, analyse and clear."""

    bl_label = "Collision Inspector"

    def draw(self, context):
        settings = context.scene.collision_inspector
        layout = self.layout
        layout.prop(settings, "scope")
        if settings.scope == 'COLLECTIONS':
            layout.prop(settings, "collection_a", text="A")
            layout.prop(settings, "collection_b", text="B")
        row = layout.row(align=True)
        row.operator("collision_inspector.analyze", icon='MOD_PHYSICS')
        row.operator("collision_inspector.clear", icon='X', text="Clear")
        draw_interactive(layout, settings)


class _SettingsSubpanel(_SidebarPanel):
    """A closed-by-default sub-panel of settings, each named in its own field or beside its checkbox (a split
    layout would cut the names at the sidebar's default width)."""

    bl_parent_id = "COLLISION_INSPECTOR_PT_main"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        self.draw_settings(self.layout, context.scene)


class COLLISION_INSPECTOR_PT_tolerances(_SettingsSubpanel, bpy.types.Panel):
    """Solver accuracy, the touch band and the clearance distance."""

    bl_label = "Thresholds"

    @staticmethod
    def draw_settings(layout, scene: bpy.types.Scene) -> None:
        settings = scene.collision_inspector
        layout.prop(settings, "tolerance")
        if 0.0 < settings.tolerance < SMALLEST_SHOWN * length_unit(scene):
            layout.label(text=f"Tolerance is {format_length(settings.tolerance, scene)}", icon='INFO')  # the field shows 0
        layout.prop(settings, "touch_tolerance")
        layout.prop(settings, "clearance")
        layout.prop(settings, "max_iterations", text="Max Iterations (0 = auto)")  # a bare 0 reads as "none"
        layout.prop(settings, "use_hulls")


class COLLISION_INSPECTOR_PT_display(_SettingsSubpanel, bpy.types.Panel):
    """How the overlay draws arrows and labels."""

    bl_label = "Display"

    @staticmethod
    def draw_settings(layout, scene: bpy.types.Scene) -> None:
        settings = scene.collision_inspector
        layout.prop(settings, "show_arrows")
        arrows = layout.column()
        arrows.active = settings.show_arrows
        arrows.prop(settings, "arrow_scale")
        arrows.prop(settings, "fixed_length_arrows")
        length = arrows.column()
        length.active = settings.fixed_length_arrows
        length.prop(settings, "fixed_arrow_length")
        layout.prop(settings, "show_curves")
        layout.prop(settings, "show_overlap")
        see_through = layout.row()
        see_through.active = settings.show_overlap
        see_through.prop(settings, "overlap_see_through")
        layout.prop(settings, "show_labels")
        labels = layout.column()
        labels.active = settings.show_labels
        labels.prop(settings, "label_size")
        colors = layout.column(align=True)
        colors.label(text="Colours:")
        for status in ('penetrating', 'touching', 'clearance', 'separated'):
            row = colors.split(factor=0.5)  # the name and its swatch on one line
            row.label(text=status.capitalize())
            row.prop(settings, f"color_{status}", text="")


def empty_results_text(settings) -> str:
    """What the Results panel says when there are no results: how to start, or, after an analysis that found no
    clash (a whole-scene or collection check lists clashes only), that the pairs it measured were apart (in the
    past: objects may have moved since)."""
    if not settings.analysed_scope:
        return "Choose a scope and analyse"
    measured = settings.candidate_pairs
    if measured == 0:
        return "Last analysis: no clash; no two objects were close enough to clash"
    return ("Last analysis: no clash; the pair measured was apart" if measured == 1
            else f"Last analysis: no clash; all {measured} pairs measured were apart")


class COLLISION_INSPECTOR_PT_results(_SidebarPanel, bpy.types.Panel):
    """The analysed pairs, and the details of the active one."""

    bl_label = "Results"
    bl_parent_id = "COLLISION_INSPECTOR_PT_main"

    def draw(self, context):
        scene = context.scene
        settings = scene.collision_inspector
        layout = self.layout
        if not settings.results:
            column = layout.column(align=True)
            for line in textwrap.wrap(empty_results_text(settings), sidebar_chars(context)):
                column.label(text=line)
            return
        if any_stale(settings.results):
            stale = layout.row()
            stale.alert = not settings.live_update
            stale.label(text="Waiting until nothing moves" if settings.live_update else
                        "Objects changed: re-analyse", icon='TIME')
        draw_list_settings(layout, settings)
        layout.template_list(
            "COLLISION_INSPECTOR_UL_results", "", settings, "results", settings, "active_result_index", rows=3
        )
        row = layout.row(align=True)
        row.operator("collision_inspector.previous_result", text="Previous", icon='TRIA_LEFT')
        row.operator("collision_inspector.next_result", text="Next", icon='TRIA_RIGHT')
        layout.operator("collision_inspector.export_report", icon='EXPORT')
        if not 0 <= settings.active_result_index < len(settings.results):
            return
        result = settings.results[settings.active_result_index]
        layout.prop(result, "review_state", text="Review")
        width = sidebar_chars(context)
        details = layout.column(align=True)
        for line in result_details(result, scene):
            for part in textwrap.wrap(line, width, subsequent_indent="    ") or [""]:
                details.label(text=part)
        if result.method in {'convex', 'hull'}:
            check = layout.row()
            check.operator("collision_inspector.cross_check", icon='CHECKMARK')
            if result.cross_check:
                check.alert = result.cross_check != "agrees"
                check.label(text="SAT: agrees" if result.cross_check == "agrees" else "SAT disagrees")
        if result.cross_check not in {"", "agrees"}:
            for line in textwrap.wrap(result.cross_check, width):
                layout.label(text=line)
        draw_result_actions(layout, settings, result, scene, width)
        if result.hull_note:
            note = layout.column(align=True)
            note.alert = True
            note.label(text="Convex hull caveat:", icon='ERROR')
            for line in textwrap.wrap(result.hull_note, width):
                note.label(text=line)
        if result.mesh_note:
            note = layout.column(align=True)
            note.label(text="Mesh repairs:", icon='INFO')
            for line in textwrap.wrap(result.mesh_note, width):
                note.label(text=line)


#: How a result was computed, as the panel says it (short: it must fit the sidebar).
METHOD_NAMES = {
    'convex': "convex, GJK/EPA (exact)",
    'parts': "part by part, GJK/EPA (exact)",
    'mesh': "on the triangles",
    'hull': "convex hulls (asked for)",
}


#: What the hulls of a plane mode's outlines lie in, by its plane setting.
PLANE_NAMES = {'TOP': "the top view's plane", 'FRONT': "the front view's plane", 'SIDE': "the right view's plane",
               'VIEW': "the view's plane", 'CUSTOM': "a custom plane"}


def how_measured(result, settings) -> tuple[str, str]:
    """How the result was measured, as the panel says it, and what its witness points lie on when that is not the
    objects themselves ("'s hull", "'s shape" for rigid-body shapes, "'s outline" in a plane; '' on the objects)."""
    if result.method != 'hull':
        return METHOD_NAMES[result.method], ""
    kept = settings.get(KEPT_MODES) or {}
    plane = str(kept.get('plane_mode', 'NONE'))
    if plane != 'NONE':
        return f"hulls of the outlines in {PLANE_NAMES.get(plane, 'a plane')}", "'s outline"
    if kept.get('rigid_body_shapes'):
        return "rigid-body shapes, as the physics sees them", "'s shape"
    return METHOD_NAMES['hull'], "'s hull"


def any_stale(results) -> bool:
    """True when any result is marked stale (one ``foreach_get``, however many results)."""
    stale = np.empty(len(results), dtype=bool)
    results.foreach_get("stale", stale)
    return bool(stale.any())


def pair_summary(result, scene: bpy.types.Scene) -> str:
    """"A ↔ B: penetrating, depth 12.4 mm", the whole of what a narrow row may cut off (its tooltip)."""
    value = row_value(result, scene)
    text = f"{result.label}: {result.status}" + (f", {value}" if value != result.status else "")
    if not result.stale:
        return text
    return text + (" (waiting until nothing moves)" if scene.collision_inspector.live_update
                   else " (stale: re-analyse)")


def depth_details(result, scene: bpy.types.Scene) -> list:
    """How sure the depth is, the overlap volume and the contact area, where they apply."""
    lines = []
    if result.status == 'penetrating' and result.depth_is_estimate:
        lines.append("Depth: a checked push-out; the shortest is at least "
                     f"{format_length(result.depth_lower_bound, scene)}" if result.depth_lower_bound > 0.0
                     else "Depth: a checked push-out; a shorter one may exist")
    if result.status != 'penetrating' and result.distance_is_estimate:
        bound = (f", at least {format_length(result.distance_lower_bound, scene)}"
                 if result.distance_lower_bound > 0.0 else "")
        lines.append(f"Distance: at most this{bound}; measured once the object stops")
    if result.status == 'penetrating':
        lines.append("Overlap volume: measured once the object stops moving" if result.volume_pending
                     else "Overlap volume: none (an open mesh encloses no volume)" if not result.has_volume
                     else f"Overlap volume: {format_volume(result.overlap_volume, scene)} \u00b1 "
                          f"{format_volume(result.volume_error, scene)} (approximate: see the note)"
                     if result.volume_certainty == 'approximate'
                     else f"Overlap volume: {format_volume(result.overlap_volume, scene)}")
    if result.region_area > 0.0:
        lines.append(f"Contact area: {format_area(result.region_area, scene)}")
    return lines


def result_details(result, scene: bpy.types.Scene) -> list:
    """Detail lines of one result in scene units: signed distance, normal, witness points."""

    def point(vector) -> str:
        return ", ".join(format_length(component, scene) for component in vector)

    name_a, name_b = result_pair(result)
    measured, shape = how_measured(result, scene.collision_inspector)
    return [
        f"A: {name_a}",
        f"B: {name_b}",
        f"Status: {result.status}"
        + {'iteration_limit': " (iteration limit reached)", 'stalled': " (stopped early by rounding)"}.get(
            result.solver_status, ""),
        f"Measured: {measured}",
        f"Signed distance: {format_length(result.signed_distance, scene)}",
        *depth_details(result, scene),
        f"Touch tolerance: {format_length(result.tolerance, scene)}",
        "Normal (A\u2192B): " + ", ".join(f"{round(component, 4) + 0.0:.4f}" for component in result.normal),  # no "-0.0000"
        f"Point on A{shape}: {point(result.point_a)}",
        f"Point on B{shape}: {point(result.point_b)}",
    ]


# Interactive inspection: measuring modes, directional depth and Copy Pair for Report.

def directional_summary(result, scene: bpy.types.Scene) -> str:
    """"Cube must move 0.25 m along Z to separate" (to touch when apart; or that it never touches)."""
    name_b = result.object_b.name if result.object_b else result.name_b
    axis = {'VIEW': "the view", 'NORMAL': "the normal"}.get(result.directional_axis,
                                                          result.directional_axis.replace("NEG_", "-"))
    if not math.isfinite(result.directional_distance) or result.directional_distance > 1e30:
        return f"{name_b} moving along {axis} never touches"
    if result.status == 'touching':
        return f"{name_b} touches now (along {axis})"
    goal = "separate" if result.status == 'penetrating' else "touch"
    return f"{name_b} must move {format_length(result.directional_distance, scene)} along {axis} to {goal}"


class COLLISION_INSPECTOR_PT_inspect(_SidebarPanel, bpy.types.Panel):
    """Measuring modes (plane, rigid-body shapes), directional depth and the pair report of the active result."""

    bl_label = "Inspect"
    bl_parent_id = "COLLISION_INSPECTOR_PT_main"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        settings = context.scene.collision_inspector
        layout = self.layout
        modes = layout.column()
        modes.prop(settings, "plane_mode")
        if settings.plane_mode == 'CUSTOM':
            modes.prop(settings, "plane_normal", text="Normal")
        modes.prop(settings, "use_rigid_body_shapes")
        modes.prop(settings, "select_on_click")
        if not 0 <= settings.active_result_index < len(settings.results):
            layout.label(text="Analyse, then choose a result")
            return
        result = settings.results[settings.active_result_index]
        layout.label(text="Directional depth of B along:")
        axes = layout.grid_flow(row_major=True, columns=4, even_columns=True, align=True)
        for axis, name, _description in DIRECTIONAL_AXIS_ITEMS[1:]:  # operator_enum would stack them in one column
            axes.operator("collision_inspector.directional_depth", text=name).axis = axis
        if result.directional_axis != 'NONE':
            for line in textwrap.wrap(directional_summary(result, context.scene), sidebar_chars(context)):
                layout.label(text=line)
        layout.operator("collision_inspector.copy_pair", icon='COPYDOWN')
# --- Interactive inspection: live update, resolve, animation scan ---------------------------------------


def draw_interactive(layout, settings) -> None:
    """Live update switch, the animation scan and its timeline-marker option (named: an icon alone says little)."""
    layout.prop(settings, "live_update", toggle=True, icon='REC' if settings.live_update else 'PLAY')
    row = layout.row(align=True)
    row.operator("collision_inspector.scan", icon='TIME')
    row.prop(settings, "scan_markers", text="Markers", toggle=True, icon='MARKER_HLT')


def scan_lines(result, settings, index: int, scene: bpy.types.Scene) -> list:
    """A scanned result's frames and its depth over time (a line of blocks), or nothing."""
    if not result.scanned:
        return []
    lines = [f"Contact frames: {result.contact_frames or 'none'}"]
    if result.contact_frames:
        lines.append(f"First contact: frame {result.first_contact_frame}")
    if result.max_depth > 0.0:
        lines.append(f"Deepest: {format_length(result.max_depth, scene)} at frame {result.deepest_frame}")
    depths = depth_series(settings, index)
    if len(depths):
        lines.append(f"Depth: |{sparkline(depths)}|")
    return lines


def draw_scan_frames(layout, settings, result, scene: bpy.types.Scene) -> None:
    """A scanned result's Go to Frame buttons (its worst frame, its first contact), and a note when the viewport
    does not draw it because another frame is shown."""
    index = settings.active_result_index
    row = layout.row(align=True)
    worst = row.operator("collision_inspector.go_to_frame", icon='NEXT_KEYFRAME',
                         text=f"Go to Frame {result.measured_frame}")
    worst.index, worst.which = index, 'DEEPEST'
    first = row.row(align=True)
    first.enabled = bool(result.contact_frames)
    contact = first.operator("collision_inspector.go_to_frame", icon='KEYFRAME',
                             text=f"First {result.first_contact_frame}" if result.contact_frames else "First")
    contact.index, contact.which = index, 'FIRST'
    if result.frame_bound and scene.frame_current != result.measured_frame:
        layout.label(text=f"Drawn in the viewport at frame {result.measured_frame} only", icon='INFO')


def draw_result_actions(layout, settings, result, scene: bpy.types.Scene, width: int = NOTE_WIDTH_CHARS) -> None:
    """The scan's lines (wrapped at ``width`` characters: a pair in contact many times has a long list of frames)
    and frames for the active result, the Resolve buttons and Make Overlap Object for penetrating pairs."""
    lines = scan_lines(result, settings, settings.active_result_index, scene)
    if lines:
        column = layout.column(align=True)
        for line in lines:
            for part in textwrap.wrap(line, width, subsequent_indent="    ", break_long_words=False) or [""]:
                column.label(text=part)
        draw_scan_frames(layout, settings, result, scene)
    row = layout.row(align=True)
    single = row.row(align=True)
    single.enabled = result.status == 'penetrating'
    single.operator("collision_inspector.resolve", icon='AUTOMERGE_OFF').index = settings.active_result_index
    row.operator("collision_inspector.resolve_all", text="All")
    overlap = layout.row()
    overlap.enabled = result.status == 'penetrating'
    overlap.operator("collision_inspector.make_overlap_object", text="Make Overlap Object",
                     icon='MOD_BOOLEAN').index = settings.active_result_index


class COLLISION_INSPECTOR_PT_self_check(_SidebarPanel, bpy.types.Panel):
    """Each selected object checked against itself: its faces that pass through each other."""

    bl_label = "Self-Intersections"
    bl_parent_id = "COLLISION_INSPECTOR_PT_main"
    bl_options = {'DEFAULT_CLOSED'}

    def draw(self, context):
        settings = context.scene.collision_inspector
        layout = self.layout
        buttons = layout.column(align=True)  # one a line: side by side, the second's name is cut off
        buttons.operator("collision_inspector.self_check", icon='MOD_MESHDEFORM', text="Check")
        buttons.operator("collision_inspector.self_check", icon='RESTRICT_SELECT_OFF',
                         text="Check and Select Faces").select_faces = True
        width = sidebar_chars(context) - ICON_CHARS
        column = layout.column(align=True)
        for item in settings.self_checks:
            icon = 'ERROR' if item.face_pairs or item.covered_twice_volume > 0.0 else 'CHECKMARK'
            for line in self_check_lines(item, context.scene, width):
                column.label(text=line, icon=icon)
                icon = 'BLANK1'


def self_check_line(item, scene: bpy.types.Scene) -> str:
    """"Body: 12 face pairs, 2 curves, 0.8 cm³ covered twice", or "Body: no self-intersections"; a closed body
    whose volume covered twice could not be measured (crossings too degenerate to cut) says so."""
    if not item.face_pairs and not item.covered_twice_volume > 0.0:
        return f"{item.name}: no self-intersections"
    text = f"{item.name}: {item.face_pairs} face pair{'' if item.face_pairs == 1 else 's'}, " \
           f"{item.curves} curve{'' if item.curves == 1 else 's'}"
    if item.covered_twice_measured and item.covered_twice_volume > 0.0:
        text += f", {format_volume(item.covered_twice_volume, scene)} covered twice"
    elif item.closed and not item.covered_twice_measured:
        text += ", volume covered twice not measured"
    return text


def self_check_lines(item, scene: bpy.types.Scene, chars: int) -> list:
    """``self_check_line`` on lines of at most ``chars`` characters where it can, broken between its phrases
    ("Body:", "12 face pairs,", ...), never inside one; the lines after the first indented."""
    text = self_check_line(item, scene)
    parts = text[len(item.name) + 2:].split(", ")
    lines = []
    for phrase in [f"{item.name}:", *(part + "," for part in parts[:-1]), parts[-1]]:
        if lines and len(lines[-1]) + 1 + len(phrase) <= chars:
            lines[-1] += " " + phrase
        else:
            lines.append(("    " if lines else "") + phrase)
    return lines


CLASSES = (
    COLLISION_INSPECTOR_UL_results,
    COLLISION_INSPECTOR_PT_main,
    COLLISION_INSPECTOR_PT_tolerances,
    COLLISION_INSPECTOR_PT_display,
    COLLISION_INSPECTOR_PT_results,
    COLLISION_INSPECTOR_PT_inspect,
    COLLISION_INSPECTOR_PT_self_check,
)
