"""Lengths in scene units, the operator's report lines, the settings' contract and the sidebar panels.

Panels are drawn into a recording stand-in for ``UILayout`` (headless Blender has no region to draw
in), which shows what each panel offers without depending on pixels.
"""

import importlib
from types import SimpleNamespace

import bpy
import pytest

INCH = 0.0254
FOOT = 0.3048


@pytest.fixture
def units_module(addon):
    return importlib.import_module(addon.__name__ + ".ui.units")


@pytest.fixture
def panel_module(addon):
    return importlib.import_module(addon.__name__ + ".ui.panel")


def set_units(scene, system: str, length_unit: str = 'ADAPTIVE', scale_length: float = 1.0, separate=False):
    units = scene.unit_settings
    units.system = system
    if system != 'NONE':
        units.length_unit = length_unit
    units.scale_length = scale_length
    units.use_separate = separate


# --- format_length ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "system, length_unit, scale_length, value, expected",
    [
        ('METRIC', 'METERS', 1.0, 0.1, "0.1 m"),
        ('METRIC', 'METERS', 1.0, -0.1, "-0.1 m"),
        ('METRIC', 'METERS', 1.0, 1e-5, "0.00001 m"),
        ('METRIC', 'METERS', 2.0, 0.1, "0.2 m"),
        ('METRIC', 'MILLIMETERS', 1.0, 0.0124, "12.4 mm"),
        ('METRIC', 'MILLIMETERS', 0.001, 12.4, "12.4 mm"),  # 1 Blender unit = 1 mm
        ('METRIC', 'CENTIMETERS', 1.0, 0.5, "50 cm"),
        ('METRIC', 'ADAPTIVE', 1.0, 0.0124, "1.24 cm"),
        ('METRIC', 'ADAPTIVE', 1.0, 1234.5, "1.23 km"),
        ('IMPERIAL', 'INCHES', 1.0, 3 * INCH, "3\""),
        ('IMPERIAL', 'INCHES', 1.0, 0.1, "3.94\""),
        ('IMPERIAL', 'FEET', 1.0, 2.5 * FOOT, "2.5'"),
        ('IMPERIAL', 'THOU', 1.0, INCH / 4, "250 thou"),
        ('IMPERIAL', 'ADAPTIVE', 1.0, 3 * INCH, "3\""),
        ('NONE', None, 1.0, 0.1, "0.1"),
        ('NONE', None, 3.0, 0.1, "0.3"),
    ],
)
def test_format_length_follows_the_scene_units(
    empty_scene, units_module, system, length_unit, scale_length, value, expected
):
    set_units(empty_scene, system, length_unit, scale_length)
    assert units_module.format_length(value, empty_scene) == expected


@pytest.mark.parametrize("system, length_unit", [
    ('METRIC', 'METERS'), ('METRIC', 'ADAPTIVE'), ('IMPERIAL', 'INCHES'), ('IMPERIAL', 'ADAPTIVE'), ('NONE', None)])
@pytest.mark.parametrize("value", [3.06e-17, -3.06e-17, 1e-9, -2.5e-7])
def test_format_length_writes_tiny_lengths_short_and_not_as_zero(empty_scene, units_module, system, length_unit,
                                                                  value):
    """A length far below the display's digits: a few characters that read back to it (Blender's unit parser),
    never "0 m" or a line of zeros."""
    set_units(empty_scene, system, length_unit)
    text = units_module.format_length(value, empty_scene)
    assert len(text) <= 12, text
    parsed = bpy.utils.units.to_value(system, 'LENGTH', text) if system != 'NONE' else float(text)
    assert parsed == pytest.approx(value, rel=0.01), text


@pytest.mark.parametrize("value", [1e-6, 9.99999e-7, 1.000001e-6])
def test_lengths_that_round_alike_are_written_alike(empty_scene, units_module, value):
    """A 1 µm overlap and a 1 µm gap of a 10 µm part (signed distances -9.99999e-7 and 1e-6) read "-0.000001 m" and
    "0.000001 m", not "-1e-6 m" beside "0.000001 m": the notation follows the rounded number."""
    set_units(empty_scene, 'METRIC', 'METERS')
    assert units_module.format_length(value, empty_scene) == "0.000001 m"
    assert units_module.format_length(-value, empty_scene) == "-0.000001 m"


@pytest.mark.parametrize("system, length_unit", [
    ('METRIC', 'METERS'), ('METRIC', 'ADAPTIVE'), ('IMPERIAL', 'FEET'), ('IMPERIAL', 'ADAPTIVE'), ('NONE', None)])
def test_format_length_never_writes_minus_zero(empty_scene, units_module, system, length_unit):
    set_units(empty_scene, system, length_unit)
    assert not units_module.format_length(-0.0, empty_scene).startswith("-")
    assert units_module.format_length(-0.0, empty_scene) == units_module.format_length(0.0, empty_scene)


def test_format_length_splits_units_when_the_scene_does(empty_scene, units_module):
    set_units(empty_scene, 'IMPERIAL', 'FEET', separate=True)
    assert units_module.format_length(2 * FOOT + 3 * INCH, empty_scene) == "2' 3\""
    set_units(empty_scene, 'METRIC', 'METERS', separate=True)
    assert units_module.format_length(1.25, empty_scene) == "1 m 25 cm"


# --- the operator's report lines ----------------------------------------------------------------------


def analysed_overlapping_cubes(distance: float = 0.9):
    bpy.ops.mesh.primitive_cube_add(size=1.0)
    bpy.context.active_object.name = "Cube"
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(distance, 0.0, 0.0))
    bpy.context.active_object.name = "Other"
    for obj in bpy.context.scene.objects:
        obj.select_set(True)
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    return bpy.context.scene.collision_inspector.results


def report_lines(addon, scene) -> list:
    """The lines the analyse operator reports for the scene's results (recorded instead of printed)."""
    analyse = importlib.import_module(addon.__name__ + ".operators.analyse")
    lines = []
    recorder = SimpleNamespace(report=lambda kinds, text: lines.append((set(kinds), text)))
    analyse.COLLISION_INSPECTOR_OT_analyze.report_results(recorder, scene, scene.collision_inspector.results)
    return lines


@pytest.mark.parametrize(
    "system, length_unit, expected",
    [
        ('METRIC', 'MILLIMETERS', "Cube \u2194 Other: penetrating 100 mm"),
        ('METRIC', 'METERS', "Cube \u2194 Other: penetrating 0.1 m"),
        ('IMPERIAL', 'INCHES', "Cube \u2194 Other: penetrating 3.94\""),
    ],
)
def test_report_lines_are_in_scene_units(empty_scene, addon, system, length_unit, expected):
    analysed_overlapping_cubes()
    set_units(empty_scene, system, length_unit)
    assert report_lines(addon, empty_scene) == [
        ({'INFO'}, expected),
        ({'INFO'}, "Analysed 1 pair: 1 penetrating"),
    ]


def test_report_warns_about_the_convex_hull(empty_scene, addon):
    bpy.ops.mesh.primitive_torus_add()
    bpy.context.active_object.name = "Ring"
    empty_scene.collision_inspector.use_hulls = True  # real surfaces carry no hull note
    analysed_overlapping_cubes(distance=3.0)
    lines = report_lines(addon, empty_scene)
    ring_lines = [(kinds, text) for kinds, text in lines if "Ring" in text and "\u2194" in text]
    assert len(ring_lines) == 2
    assert all(kinds == {'WARNING'} and "Ring is not convex" in text for kinds, text in ring_lines)
    assert lines[-1] == ({'INFO'}, "Analysed 3 pairs: 1 penetrating, 2 separated")


def test_report_warns_when_the_iteration_limit_cuts_the_solver_short(empty_scene, addon):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.5, location=(0.3, 0.4, 1.2))
    bpy.context.active_object.name = "Ball"
    empty_scene.collision_inspector.max_iterations = 2
    results = analysed_overlapping_cubes(distance=0.7)
    capped = [result.label for result in results if result.solver_status == 'iteration_limit']
    assert capped, "two iterations cannot converge on these pairs"
    kinds, text = report_lines(addon, empty_scene)[-1]
    assert kinds == {'WARNING'}
    assert text.startswith(f"The solver stopped early for {', '.join(capped)}: depths are upper bounds")
    empty_scene.collision_inspector.max_iterations = 0  # automatic
    results = analysed_overlapping_cubes(distance=0.7)
    assert all(result.solver_status != 'iteration_limit' for result in results)
    assert report_lines(addon, empty_scene)[-1][0] == {'INFO'}


# --- the settings contract ----------------------------------------------------------------------------


def rna_property(struct, name: str):
    return struct.bl_rna.properties[name]


def test_settings_defaults_and_units(empty_scene):
    settings = empty_scene.collision_inspector
    expected_defaults = {
        "tolerance": 1e-9, "touch_tolerance": 1e-5, "max_iterations": 0, "show_arrows": True,
        "show_labels": True, "arrow_scale": 1.0, "fixed_length_arrows": False, "fixed_arrow_length": 60.0,
        "label_size": 14, "active_result_index": 0, "clearance": 0.0, "hide_touching": False,
    }
    for name, default in expected_defaults.items():
        assert getattr(settings, name) == pytest.approx(default), name
    assert (settings.scope, settings.sort_by) == ('SELECTED', 'NAME')
    assert settings.show_statuses == {'penetrating', 'touching', 'clearance', 'separated'}
    for name in ("tolerance", "touch_tolerance", "clearance"):
        assert rna_property(settings, name).subtype == 'DISTANCE'
        assert rna_property(settings, name).hard_min == 0.0
        assert rna_property(settings, name).description
    for name in ("color_penetrating", "color_touching", "color_clearance", "color_separated"):
        prop = rna_property(settings, name)
        assert (prop.subtype, prop.array_length, prop.hard_min, prop.hard_max) == ('COLOR_GAMMA', 4, 0.0, 1.0)
    red, yellow = settings.color_penetrating, settings.color_touching
    assert red[0] > 0.9 and red[1] < 0.3 and red[2] < 0.3
    assert yellow[0] > 0.9 and yellow[1] > 0.7 and yellow[2] < 0.3


def test_result_fields_carry_units(empty_scene):
    result = empty_scene.collision_inspector.results.add()
    statuses = [item.identifier for item in rna_property(result, "status").enum_items]
    assert statuses == ['penetrating', 'touching', 'clearance', 'separated']
    for name in ("signed_distance_view", "tolerance"):
        assert rna_property(result, name).subtype == 'DISTANCE', name
    assert rna_property(result, "normal_view").subtype == 'DIRECTION'
    for name in ("point_a_view", "point_b_view"):
        prop = rna_property(result, name)
        assert (prop.subtype, prop.array_length) == ('TRANSLATION', 3)
    for name in ("object_a", "object_b"):
        assert rna_property(result, name).fixed_type.identifier == 'Object'
    assert all(prop.description for prop in result.bl_rna.properties if prop.identifier != "rna_type")


# --- panels -------------------------------------------------------------------------------------------


class RecordingLayout:
    """Stands in for ``bpy.types.UILayout``: records what a draw function puts in the panel."""

    def __init__(self, log=None):
        self.log = [] if log is None else log

    def _child(self, *_args, **_kwargs):
        return RecordingLayout(self.log)

    row = column = box = split = grid_flow = _child

    def label(self, text="", icon='NONE'):
        self.log.append(("label", text, icon))

    def prop(self, data, name, **kwargs):
        self.log.append(("prop", name))
        if "text" in kwargs:
            self.log.append(("text", name, kwargs["text"]))

    def prop_enum(self, data, name, value, **_kwargs):
        self.log.append(("prop_enum", name, value))

    def operator(self, idname, **_kwargs):
        self.log.append(("operator", idname))
        return SimpleNamespace()  # stands in for the operator's properties

    def template_list(self, list_type, _list_id, data, collection, _active_data, active_name, **_kwargs):
        self.log.append(("template_list", list_type, collection, active_name))

    def entries(self, kind: str) -> list:
        return [entry[1:] if len(entry) > 2 else entry[1] for entry in self.log if entry[0] == kind]


def draw(panel_class, context=None) -> RecordingLayout:
    """What the panel's ``draw`` lays out, called on a stand-in panel that has the class's other methods."""
    layout = RecordingLayout()
    panel_class.draw(SimpleNamespace(layout=layout, draw_settings=getattr(panel_class, "draw_settings", None)),
                     context or bpy.context)
    return layout


def test_panels_sit_in_the_collision_tab(addon, panel_module, empty_scene):
    panels = [cls for cls in panel_module.CLASSES if issubclass(cls, bpy.types.Panel)]
    assert len(panels) == 6  # main, thresholds, display, results, inspect, self-intersections
    for cls in panels:
        assert (cls.bl_space_type, cls.bl_region_type, cls.bl_category) == ('VIEW_3D', 'UI', "Collision")
        assert bpy.types.Panel.bl_rna_get_subclass_py(cls.__name__) is not None
    assert bpy.types.UIList.bl_rna_get_subclass_py("COLLISION_INSPECTOR_UL_results") is not None


def test_self_intersection_panel_offers_the_check_with_and_without_face_selection(panel_module, empty_scene):
    layout = draw(panel_module.COLLISION_INSPECTOR_PT_self_check)
    assert layout.entries("operator") == ["collision_inspector.self_check", "collision_inspector.self_check"]


def test_main_panel_offers_analyse_and_clear(panel_module, empty_scene):
    layout = draw(panel_module.COLLISION_INSPECTOR_PT_main)
    assert layout.entries("operator") == ["collision_inspector.analyze", "collision_inspector.clear",
                                          "collision_inspector.scan"]
    assert layout.entries("prop") == ["scope", "live_update", "scan_markers"]
    empty_scene.collision_inspector.scope = 'COLLECTIONS'
    assert draw(panel_module.COLLISION_INSPECTOR_PT_main).entries("prop")[:3] == ["scope", "collection_a",
                                                                                  "collection_b"]


def test_settings_panels_show_every_setting(panel_module, empty_scene):
    assert draw(panel_module.COLLISION_INSPECTOR_PT_tolerances).entries("prop") == [
        "tolerance", "touch_tolerance", "clearance", "max_iterations", "use_hulls",
    ]
    assert set(draw(panel_module.COLLISION_INSPECTOR_PT_display).entries("prop")) == {
        "show_arrows", "show_curves", "show_overlap", "overlap_see_through", "show_labels", "arrow_scale",
        "fixed_length_arrows", "fixed_arrow_length", "label_size", "color_penetrating", "color_touching", "color_clearance", "color_separated",
    }


def test_results_panel_lists_pairs_and_details_in_scene_units(panel_module, empty_scene):
    assert draw(panel_module.COLLISION_INSPECTOR_PT_results).entries("template_list") == []
    analysed_overlapping_cubes()
    set_units(empty_scene, 'METRIC', 'MILLIMETERS')
    layout = draw(panel_module.COLLISION_INSPECTOR_PT_results)
    assert layout.entries("template_list") == [
        ("COLLISION_INSPECTOR_UL_results", "results", "active_result_index"),
    ]
    labels = [text for text, _icon in layout.entries("label")]
    assert "Status: penetrating" in labels
    assert "Signed distance: -100 mm" in labels
    assert "Normal (A\u2192B): 1.0000, 0.0000, 0.0000" in labels
    assert any(line.startswith("Point on A: 500 mm, ") for line in labels)  # on A's +x face
    assert any(line.startswith("Point on B: 400 mm, ") for line in labels)  # on B's -x face
    assert not any("hull" in text for text in labels)
    assert "Measured: convex, GJK/EPA (exact)" in labels
    assert "Contact area: 1000000 mm²" in labels  # the 1 m x 1 m overlap of the two faces
    assert any(line.startswith("Overlap volume: ") for line in labels)


def panel_text(panel_module) -> list:
    return [text for text, _icon in draw(panel_module.COLLISION_INSPECTOR_PT_results).entries("label")]


def test_a_whole_scene_check_that_finds_no_clash_says_so_instead_of_asking_to_analyse(panel_module, empty_scene):
    assert panel_text(panel_module) == ["Choose a scope and analyse"]
    empty_scene.collision_inspector.scope = 'ALL'  # lists clashes only
    bpy.ops.mesh.primitive_cube_add(size=1.0)
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, location=(0.75, 0.75, 0.0))  # its box meets the cube's, it not
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    assert len(empty_scene.collision_inspector.results) == 0
    assert " ".join(panel_text(panel_module)) == "Last analysis: no clash; the pair measured was apart"
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, location=(-0.75, 0.75, 0.0))
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    assert " ".join(panel_text(panel_module)) == "Last analysis: no clash; all 2 pairs measured were apart"
    for obj in bpy.data.objects:
        obj.location.z += 5.0 * (obj.type == 'MESH' and obj.name != "Cube")
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    assert " ".join(panel_text(panel_module)) == "Last analysis: no clash; no two objects were close enough to clash"
    assert all(len(line) <= panel_module.NOTE_WIDTH_CHARS for line in panel_text(panel_module))
    bpy.data.objects["Cube"].location = (0.75, 0.75, 5.0)  # onto a ball: a clash, then cleared
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'} and empty_scene.collision_inspector.results
    assert bpy.ops.collision_inspector.clear() == {'FINISHED'}
    assert panel_text(panel_module) == ["Choose a scope and analyse"]


def test_result_details_never_show_minus_zero(panel_module, empty_scene):
    result = analysed_overlapping_cubes()[0]
    result.normal = (1.0, -1e-12, -0.0)
    result.point_a = (0.5, -0.0, -1e-20)
    labels = panel_module.result_details(result, empty_scene)
    assert "Normal (A\u2192B): 1.0000, 0.0000, 0.0000" in labels
    assert "Point on A: 0.5 m, 0 m, -1e-20 m" in labels


def test_result_details_say_how_sure_the_overlap_volume_is(panel_module, empty_scene):
    """Each volume certainty in the panel's words: exact (the volume alone), approximate (± its bound, pointing at
    the note), none (no volume: an open mesh)."""
    result = analysed_overlapping_cubes()[0]
    assert result.volume_certainty == 'exact'
    volume = panel_module.format_volume(result.overlap_volume, empty_scene)
    assert f"Overlap volume: {volume}" in panel_module.result_details(result, empty_scene)
    result.volume_certainty, result.volume_error = 'approximate', 2e-4
    error = panel_module.format_volume(2e-4, empty_scene)
    assert (f"Overlap volume: {volume} \u00b1 {error} (approximate: see the note)"
            in panel_module.result_details(result, empty_scene))
    result.volume_certainty, result.has_volume = 'none', False
    assert "Overlap volume: none (an open mesh encloses no volume)" in panel_module.result_details(result, empty_scene)


def test_results_list_row_shows_pair_status_and_value(panel_module, empty_scene):
    result = analysed_overlapping_cubes()[0]
    set_units(empty_scene, 'IMPERIAL', 'INCHES')
    layout = RecordingLayout()
    row_drawer = panel_module.COLLISION_INSPECTOR_UL_results.draw_item
    row_drawer(None, bpy.context, layout, empty_scene.collision_inspector, result, 0, None, "", 0)
    assert layout.entries("label") == [("Cube \u2194 Other", 'ERROR'), ("depth 3.94\"", 'NONE')]


def test_results_panel_shows_the_hull_caveat(panel_module, empty_scene):
    bpy.ops.mesh.primitive_torus_add()
    bpy.context.active_object.name = "Ring"
    empty_scene.collision_inspector.use_hulls = True
    results = analysed_overlapping_cubes(distance=3.0)
    for index, result in enumerate(results):
        empty_scene.collision_inspector.active_result_index = index
        labels = [text for text, _icon in draw(panel_module.COLLISION_INSPECTOR_PT_results).entries("label")]
        shows_caveat = "Convex hull caveat:" in labels
        assert shows_caveat == ("Ring" in (result.name_a, result.name_b))
        if shows_caveat:
            caveat = labels[labels.index("Convex hull caveat:") + 1:]
            assert " ".join(caveat) == result.hull_note  # wrapped, nothing lost
            assert caveat[0].startswith("Ring is not convex")


@pytest.mark.parametrize(
    "status, field, value, expected",
    [
        ('penetrating', "depth", 0.1, "depth 0.1 m"),
        ('separated', "distance", 0.25, "gap 0.25 m"),
        ('clearance', "distance", 0.05, "gap 0.05 m"),
        ('touching', "signed_distance", -2e-6, "touching"),
    ],
)
def test_result_row_names_the_length_of_each_status(
    panel_module, empty_scene, status, field, value, expected
):
    result = empty_scene.collision_inspector.results.add()
    result.status = status
    setattr(result, field, value)
    assert panel_module.row_value(result, empty_scene) == expected


def test_viewport_labels_of_overlaps_give_depth_and_volume(addon, empty_scene):
    overlay = importlib.import_module(addon.__name__ + ".ui.overlay")
    geometry = importlib.import_module(addon.__name__ + ".ui.draw_geometry")
    set_units(empty_scene, 'METRIC', 'MILLIMETERS')
    assert overlay.label_text(geometry.PENETRATING, 0.1, 0.064, empty_scene) == "depth 100 mm, 64000000 mm\u00b3"
    assert overlay.label_text(geometry.PENETRATING, 0.1, 0.0, empty_scene) == "depth 100 mm"  # open meshes: none
    assert overlay.label_text(geometry.SEPARATED, 0.25, 0.0, empty_scene) == "gap 250 mm"


#: The sidebar's width in Blender 5.2's default layout (its region, tabs included), in pixels at interface scale 1.
DEFAULT_SIDEBAR_PX = 292


def drawn_row(panel_module, scene, result, width: int) -> RecordingLayout:
    layout = RecordingLayout()
    context = SimpleNamespace(scene=scene, region=SimpleNamespace(width=width))
    panel_module.COLLISION_INSPECTOR_UL_results.draw_item(None, context, layout, scene.collision_inspector, result,
                                                          0, None, "", 0)
    return layout


def test_result_rows_show_both_names_in_full_at_the_default_sidebar_width(panel_module, empty_scene):
    """On two lines where one would cut them: the names, then the value with the review state and frame buttons;
    on one line in a wide sidebar."""
    result = analysed_overlapping_cubes()[0]
    labels = [text for text, _icon in drawn_row(panel_module, empty_scene, result, DEFAULT_SIDEBAR_PX).entries("label")]
    assert labels == [result.label, "", "depth 0.1 m"]
    labels = [text for text, _icon in drawn_row(panel_module, empty_scene, result, 3 * DEFAULT_SIDEBAR_PX).entries(
        "label")]
    assert labels == [result.label, "depth 0.1 m"]


def test_long_names_take_a_line_each_at_the_default_sidebar_width(panel_module, empty_scene):
    """Two names too long for one line of the default sidebar: A on the first line, "↔ B" on the second, each in
    full (they were cut to "Kitch…t.001 ↔ Wall_…l.014"), the value on the second or a third line."""
    result = empty_scene.collision_inspector.results.add()
    result.name_a, result.name_b, result.status = "Cabinet_Upper.001", "Backsplash_Panel.014", 'touching'
    labels = [text for text, _icon in drawn_row(panel_module, empty_scene, result, DEFAULT_SIDEBAR_PX).entries("label")]
    assert labels[0] == "Cabinet_Upper.001" and "\u2194 Backsplash_Panel.014" in labels
    assert labels[-1] == "touching"


def test_the_status_filter_names_each_status_where_it_fits(panel_module, empty_scene):
    analysed_overlapping_cubes()
    layout = draw(panel_module.COLLISION_INSPECTOR_PT_results)
    assert layout.entries("prop_enum") == [("show_statuses", status)
                                           for status in ('penetrating', 'touching', 'clearance', 'separated')]


def test_the_marker_toggle_is_labelled(panel_module, empty_scene):
    assert ("scan_markers", "Markers") in draw(panel_module.COLLISION_INSPECTOR_PT_main).entries("text")


def test_the_iteration_cap_says_what_0_means(panel_module, empty_scene):
    """Its default, 0, is automatic (a cap that grows with the shapes), not no iterations: the field says so."""
    texts = draw(panel_module.COLLISION_INSPECTOR_PT_tolerances).entries("text")
    assert ("max_iterations", "Max Iterations (0 = auto)") in texts


def test_a_tolerance_too_small_for_its_field_is_written_out(panel_module, empty_scene):
    """Blender's length field shows 6 decimals: 1e-9 m reads "0 m" there, so the panel writes it out below."""
    settings = empty_scene.collision_inspector
    settings.tolerance = 1e-9
    labels = [text for text, _icon in draw(panel_module.COLLISION_INSPECTOR_PT_tolerances).entries("label")]
    assert labels == ["Tolerance is 1e-9 m"]
    settings.tolerance = 1e-4
    assert draw(panel_module.COLLISION_INSPECTOR_PT_tolerances).entries("label") == []


def test_self_check_lines_fit_the_default_sidebar_broken_between_phrases(panel_module, empty_scene):
    """An object's counts and volume covered twice on lines that fit the sidebar at its default width, each phrase
    whole (a single line was cut in the middle: "Bracket: 1... m³ covered twice")."""
    item = empty_scene.collision_inspector.self_checks.add()
    item.name, item.face_pairs, item.curves, item.closed = "Thick Torus", 4404, 100, True
    item.covered_twice_measured, item.covered_twice_volume = True, 1.25
    clean = empty_scene.collision_inspector.self_checks.add()
    clean.name = "Cube"
    context = SimpleNamespace(scene=empty_scene, region=SimpleNamespace(width=DEFAULT_SIDEBAR_PX))
    labels = draw(panel_module.COLLISION_INSPECTOR_PT_self_check, context).entries("label")
    fits = panel_module.sidebar_chars(context) - panel_module.ICON_CHARS
    assert all(len(text) <= fits for text, _icon in labels)
    assert [text.strip() for text, _icon in labels] == [
        "Thick Torus: 4404 face pairs,", "100 curves, 1.25 m\u00b3 covered twice", "Cube: no self-intersections"]
    assert [icon for _text, icon in labels] == ['ERROR', 'BLANK1', 'CHECKMARK']


def test_a_closed_object_whose_volume_covered_twice_was_not_measured_says_so(panel_module, empty_scene):
    """A spindle torus crosses itself where dozens of its faces pass through one point of its axis, too degenerate
    to cut: its volume covered twice is not measured, and the panel says so instead of leaving it out (which read
    as "nothing is covered twice"). An open object has no such volume and says nothing of it."""
    item = empty_scene.collision_inspector.self_checks.add()
    item.name, item.face_pairs, item.curves, item.closed = "Thick Torus", 4404, 100, True
    sheet = empty_scene.collision_inspector.self_checks.add()
    sheet.name, sheet.face_pairs, sheet.curves, sheet.closed = "Sheet", 2, 1, False
    context = SimpleNamespace(scene=empty_scene, region=SimpleNamespace(width=DEFAULT_SIDEBAR_PX))
    labels = [text.strip() for text, _icon in draw(panel_module.COLLISION_INSPECTOR_PT_self_check, context)
              .entries("label")]
    assert labels == ["Thick Torus: 4404 face pairs,", "100 curves,", "volume covered twice not measured",
                      "Sheet: 2 face pairs, 1 curve"]


def test_details_say_what_the_witness_points_lie_on_when_not_the_objects(panel_module, empty_scene):
    """A ring and a ball measured on their triangles: the points are on the objects. Measured as convex hulls, as
    rigid-body shapes or as outlines in a plane, they are on those, and the panel says so (it said "convex hulls"
    for all three)."""
    bpy.ops.mesh.primitive_torus_add(major_radius=1.0, minor_radius=0.25)
    ring = bpy.context.active_object
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.3, location=(1.0, 0.0, 0.3))
    ball = bpy.context.active_object
    settings = empty_scene.collision_inspector
    settings.scope = 'ALL'

    def details() -> list:
        assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
        lines = panel_module.result_details(settings.results[0], empty_scene)
        return [line.split(":")[0] for line in lines if line.startswith("Point on A")] + [
            line for line in lines if line.startswith("Measured")]

    assert details() == ["Point on A", "Measured: on the triangles"]
    settings.use_hulls = True
    assert details() == ["Point on A's hull", "Measured: convex hulls (asked for)"]
    settings.use_hulls = False
    bpy.ops.object.select_all(action='DESELECT')
    ball.select_set(True)
    bpy.context.view_layer.objects.active = ball
    bpy.ops.rigidbody.object_add()
    ball.rigid_body.collision_shape = 'BOX'
    settings.use_rigid_body_shapes = True
    assert details() == ["Point on A's shape", "Measured: rigid-body shapes, as the physics sees them"]
    settings.use_rigid_body_shapes, settings.plane_mode = False, 'TOP'
    assert details() == ["Point on A's outline", "Measured: hulls of the outlines in the top view's plane"]
    assert ring.name in {r.object_b.name for r in settings.results}
