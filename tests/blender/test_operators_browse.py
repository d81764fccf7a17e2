"""The panel's scopes and thresholds through the analyse operator, and the results browser.

Scenes are axis-aligned cubes whose depths and gaps follow from their placement; pairs are named so
that the expected A/B order is the alphabetical one (or the active object's, in the 'ACTIVE' scope).
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace

import bpy
import numpy as np
import pytest

EXACT = 1e-6


@pytest.fixture
def browse(addon):
    return importlib.import_module(addon.__name__ + ".operators.browse")


@pytest.fixture
def ordering(addon):
    return importlib.import_module(addon.__name__ + ".analysis.ordering")


@pytest.fixture
def panel(addon):
    return importlib.import_module(addon.__name__ + ".ui.panel")


def add_cube(name: str, x: float, collection=None, size: float = 1.0) -> bpy.types.Object:
    """A cube of edge ``size`` centred at (x, 0, 0), linked to ``collection`` (default: the scene's)."""
    half = size / 2.0
    mesh = bpy.data.meshes.new(name)
    corners = [(cx, cy, cz) for cx in (-half, half) for cy in (-half, half) for cz in (-half, half)]
    mesh.from_pydata(corners, [], [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)])
    obj = bpy.data.objects.new(name, mesh)
    (collection or bpy.context.scene.collection).objects.link(obj)
    obj.location.x = x
    return obj


def new_collection(name: str) -> bpy.types.Collection:
    collection = bpy.data.collections.new(name)
    bpy.context.scene.collection.children.link(collection)
    return collection


def select_only(*objects, active=None) -> None:
    bpy.context.view_layer.update()
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in objects)
    bpy.context.view_layer.objects.active = active or (objects[0] if objects else None)


def analyse(scope: str = 'SELECTED', **settings) -> list:
    """Run the operator with the panel's ``scope`` (and other settings); ``[(A, B, status), ...]``."""
    inspector = bpy.context.scene.collision_inspector
    inspector.scope = scope
    for name, value in settings.items():
        setattr(inspector, name, value)
    bpy.context.view_layer.update()
    assert bpy.ops.collision_inspector.analyze() == {'FINISHED'}
    return [(r.name_a, r.name_b, r.status) for r in inspector.results]


def refusal(operator) -> str:
    assert not operator.poll()
    with pytest.raises(RuntimeError) as error:
        operator()
    return str(error.value)


# --- scopes and thresholds ----------------------------------------------------------------------------


def test_selected_scope_lists_separated_pairs_too(empty_scene):
    a, b, c = add_cube("A", 0.0), add_cube("B", 0.9), add_cube("C", 5.0)
    select_only(a, b, c)
    assert analyse() == [("A", "B", 'penetrating'), ("A", "C", 'separated'), ("B", "C", 'separated')]
    assert empty_scene.collision_inspector.results[1].distance == pytest.approx(4.0, abs=EXACT)


def test_active_scope_pairs_the_active_object_with_each_other_selected(empty_scene):
    a, b, c = add_cube("A", 0.0), add_cube("B", 0.9), add_cube("C", 1.8)
    select_only(a, b, c, active=b)
    assert analyse('ACTIVE') == [("B", "A", 'penetrating'), ("B", "C", 'penetrating')]
    select_only(a, b, c, active=add_cube("Unselected", 9.0))
    assert "active" in refusal(bpy.ops.collision_inspector.analyze)


def test_collections_scope_a_against_b_and_a_against_itself(empty_scene):
    walls, pipes = new_collection("Walls"), new_collection("Pipes")
    add_cube("W1", 0.0, walls)
    add_cube("W2", 0.9, walls)
    add_cube("P1", -0.9, pipes)
    add_cube("P2", 20.0, pipes)
    select_only()
    empty_scene.collision_inspector.scope = 'COLLECTIONS'
    assert "collection A" in refusal(bpy.ops.collision_inspector.analyze)
    assert analyse('COLLECTIONS', collection_a=walls, collection_b=pipes) == [("W1", "P1", 'penetrating')]
    assert analyse('COLLECTIONS', collection_a=walls, collection_b=None) == [("W1", "W2", 'penetrating')]


def test_all_scope_lists_only_clashes(empty_scene):
    for name, x in (("A", 0.0), ("B", 0.9), ("C", 5.0), ("D", 6.0)):
        add_cube(name, x)
    select_only()
    assert analyse('ALL') == [("A", "B", 'penetrating'), ("C", "D", 'touching')]


def test_clearance_adds_clearance_violations(empty_scene):
    add_cube("A", 0.0)
    add_cube("B", 1.05)  # 0.05 apart
    add_cube("C", 3.0)  # 0.95 from B
    select_only()
    assert analyse('ALL') == []
    assert analyse('ALL', clearance=0.1) == [("A", "B", 'clearance')]
    result = empty_scene.collision_inspector.results[0]
    assert result.distance == pytest.approx(0.05, abs=EXACT) and result.depth == 0.0
    assert analyse('ALL', clearance=1.0) == [("A", "B", 'clearance'), ("B", "C", 'clearance')]
    select_only(*bpy.data.objects)
    assert ("A", "C", 'separated') in analyse('SELECTED', clearance=1.0)


# --- sorting and filtering the list -------------------------------------------------------------------


def fake_results(*rows) -> list:
    """Stand-ins for stored results: ``(name_a, name_b, status, signed_distance)`` each."""
    return [SimpleNamespace(name_a=a, name_b=b, status=status, signed_distance_view=d) for a, b, status, d in rows]


ROWS = fake_results(("A", "B", 'separated', 2.0), ("A", "C", 'penetrating', -0.1),
                    ("B", "C", 'touching', 1e-6), ("B", "D", 'penetrating', -0.3), ("C", "D", 'clearance', 0.05))
ALL_STATUSES = {'penetrating', 'touching', 'clearance', 'separated'}


@pytest.mark.parametrize(
    "sort_by, statuses, hide_touching, expected",
    [
        ('NAME', ALL_STATUSES, False, [0, 1, 2, 3, 4]),
        ('DEPTH', ALL_STATUSES, False, [3, 1, 2, 4, 0]),
        ('DISTANCE', ALL_STATUSES, False, [2, 4, 1, 3, 0]),
        ('DISTANCE', ALL_STATUSES, True, [4, 1, 3, 0]),
        ('DEPTH', {'penetrating', 'clearance'}, False, [3, 1, 4]),
    ],
)
def test_visible_order_sorts_and_filters(ordering, sort_by, statuses, hide_touching, expected):
    assert ordering.visible_order(ROWS, sort_by, statuses, hide_touching) == expected


def test_list_filter_hides_and_reorders_rows(panel):
    flags, new_order = panel.list_filter(ROWS, [3, 1], visible_flag=8)
    assert flags == [0, 8, 0, 8, 0]
    assert new_order[3] == 0 and new_order[1] == 1
    assert sorted(new_order) == [0, 1, 2, 3, 4]


def test_results_list_filter_items_follow_the_scene_settings(empty_scene, panel):
    add_cube("A", 0.0)
    add_cube("B", 0.8)  # depth 0.2
    add_cube("C", 5.0)
    add_cube("D", 5.9)  # depth 0.1
    add_cube("E", 10.0)
    add_cube("F", 11.0)  # touching
    select_only()
    analyse('ALL', sort_by='DEPTH', hide_touching=True)
    settings = empty_scene.collision_inspector
    ui_list = SimpleNamespace(bitflag_filter_item=1 << 30)
    context = SimpleNamespace(scene=empty_scene)
    flags, new_order = panel.COLLISION_INSPECTOR_UL_results.filter_items(ui_list, context, settings, "results")
    assert flags == [1 << 30, 1 << 30, 0]
    assert new_order[:2] == [0, 1]  # A-B (0.2) before C-D (0.1)
    settings.sort_by = 'DISTANCE'
    _flags, new_order = panel.COLLISION_INSPECTOR_UL_results.filter_items(ui_list, context, settings, "results")
    assert new_order[:2] == [1, 0]


# --- choosing a result --------------------------------------------------------------------------------


def selection() -> tuple:
    view_layer = bpy.context.view_layer
    return sorted(obj.name for obj in view_layer.objects if obj.select_get()), view_layer.objects.active.name


def test_show_result_selects_the_pair_with_a_active(empty_scene):
    for name, x in (("A", 0.0), ("B", 0.9), ("C", 5.0), ("D", 5.8), ("E", 30.0)):
        add_cube(name, x)
    select_only(bpy.data.objects["E"])
    analyse('ALL')
    assert bpy.ops.collision_inspector.show_result(index=1) == {'FINISHED'}
    assert selection() == (["C", "D"], "C")
    assert empty_scene.collision_inspector.active_result_index == 1
    with pytest.raises(RuntimeError, match="No result 5"):
        bpy.ops.collision_inspector.show_result(index=5)


def test_next_and_previous_follow_the_list_order_and_wrap(empty_scene):
    for name, x in (("A", 0.0), ("B", 0.9), ("C", 5.0), ("D", 5.7), ("E", 10.0), ("F", 10.8)):
        add_cube(name, x)
    select_only()
    analyse('ALL', sort_by='DEPTH')  # stored by name: A-B 0.1, C-D 0.3, E-F 0.2; listed C-D, E-F, A-B
    settings = empty_scene.collision_inspector
    settings.active_result_index = 1
    visited = []
    for _ in range(3):
        assert bpy.ops.collision_inspector.next_result() == {'FINISHED'}
        visited.append(selection())
    assert visited == [(["E", "F"], "E"), (["A", "B"], "A"), (["C", "D"], "C")]
    assert bpy.ops.collision_inspector.previous_result() == {'FINISHED'}
    assert selection() == (["A", "B"], "A")
    settings.show_statuses = {'touching'}
    assert "No results listed" in refusal(bpy.ops.collision_inspector.next_result)


def test_contact_frame_boxes_the_witness_points_not_the_objects(ordering):
    centre, radius = ordering.contact_frame((0.5, 0.0, 0.0), (0.4, 0.0, 0.0), -0.1, min_size=0.0)
    np.testing.assert_allclose(centre, (0.45, 0.0, 0.0))
    assert radius == pytest.approx(np.linalg.norm((0.15, 0.1, 0.1)))  # padded by the depth on every side
    centre, radius = ordering.contact_frame((1.0, 2.0, 3.0), (1.0, 2.0, 3.0), 0.0, min_size=0.1)
    np.testing.assert_allclose(centre, (1.0, 2.0, 3.0))
    assert radius == pytest.approx(np.linalg.norm((0.05, 0.05, 0.05)))


def test_frame_views_without_a_screen_frames_nothing(browse):
    assert browse.frame_views(None, (0.0, 0.0, 0.0), 1.0) == 0


# --- overlay: clearance colour and the highlighted result ---------------------------------------------


def test_highlighted_result_is_brighter_and_clearance_is_a_line(addon):
    geometry = importlib.import_module(addon.__name__ + ".ui.draw_geometry")
    results = geometry.ResultArrays(
        points_a=np.array([[0.5, 0.0, 0.0], [0.5, 0.0, 0.0], [0.5, 0.0, 0.0]]),
        points_b=np.array([[0.4, 0.0, 0.0], [0.4, 0.0, 0.0], [0.6, 0.0, 0.0]]),
        normals=np.array([[1.0, 0.0, 0.0]] * 3),
        depths=np.array([0.1, 0.1, 0.0]),
        statuses=geometry.status_codes(['penetrating', 'penetrating', 'clearance']),
    )
    colors = np.array([[0.8, 0.0, 0.0, 1.0], [1, 1, 0, 1], [0, 1, 1, 1], [1.0, 0.5, 0.0, 1.0]])
    view = np.eye(4)
    view[2, 3] = -5.0
    projection = np.array([[2.0, 0, 0, 0], [0, 2.0, 0, 0], [0, 0, -1.0, -0.2], [0, 0, -1.0, 0]])
    plain = geometry.compute_overlay_geometry(results, view, projection, (400, 400), geometry.ArrowStyle(colors))
    lit = geometry.compute_overlay_geometry(
        results, view, projection, (400, 400), geometry.ArrowStyle(colors, highlight=1)
    )
    assert len(plain.triangle_coords) == 2 * 3  # two arrow heads; the clearance pair is a plain line
    np.testing.assert_allclose(plain.line_colors[4], colors[3])
    np.testing.assert_allclose(lit.line_colors[:2], plain.line_colors[:2])
    assert (lit.line_colors[2, :3] > plain.line_colors[2, :3]).all()
    head = lambda out, i: np.ptp(out.triangle_coords[3 * i:3 * i + 3, 1])  # noqa: E731  (head width)
    assert head(lit, 1) == pytest.approx(geometry.HIGHLIGHT_HEAD_SCALE * head(plain, 1))
    assert head(lit, 0) == pytest.approx(head(plain, 0))


def test_the_overlay_draws_only_what_the_list_shows(empty_scene, addon):
    from mathutils import Matrix

    snapshot = importlib.import_module(addon.__name__ + ".ui.snapshot")
    snapshot.ensure_gpu()
    select_only(add_cube("A", 0.0), add_cube("B", 1.0))  # touching at x = 0.5
    assert analyse() == [("A", "B", 'touching')]
    view = Matrix.Translation((-0.5, 0.0, -5.0))  # looking down at the contact
    projection = Matrix.Diagonal((2.0, 2.0, -0.1, 1.0))

    def anything_drawn() -> bool:
        return bool((snapshot.draw_overlay_offscreen(empty_scene, view, projection, 100, 100)[..., 3] > 0.01).any())

    settings = empty_scene.collision_inspector
    assert anything_drawn()
    settings.hide_touching = True
    assert not anything_drawn()
    settings.hide_touching = False
    settings.show_statuses = {'penetrating', 'separated'}
    assert not anything_drawn()
    settings.show_statuses = {'touching'}
    assert anything_drawn()


def test_every_scope_measures_real_surfaces_and_hulls_on_request(empty_scene):
    bpy.ops.mesh.primitive_torus_add(major_radius=1.0, minor_radius=0.25)
    torus = bpy.context.active_object
    torus.name = "Ring"
    cube = add_cube("Core", 0.0, size=0.5)  # in the hole: the hulls overlap, the surfaces do not
    select_only(torus, cube)
    assert analyse('SELECTED') == [("Core", "Ring", 'separated')]
    assert analyse('ALL') == []  # whole scenes list clashes only
    empty_scene.collision_inspector.use_hulls = True
    for scope in ('SELECTED', 'ALL'):
        assert analyse(scope) == [("Core", "Ring", 'penetrating')]
        assert "Ring is not convex" in empty_scene.collision_inspector.results[0].hull_note
