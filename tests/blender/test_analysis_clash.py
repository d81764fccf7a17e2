"""analysis.clash.check_scene: broad + narrow phase against brute force, scopes, statuses, progress.

The brute-force reference measures every pair with ``core.collide`` directly on the objects' world
points; the engine must find the same clashes with the same numbers while testing fewer pairs.
"""

from __future__ import annotations

import csv
import importlib
import json
import math
from itertools import combinations, pairwise

import bpy
import numpy as np
import pytest


@pytest.fixture
def clash(addon):
    return importlib.import_module(addon.__name__ + ".analysis.clash")


@pytest.fixture
def core(addon):
    return importlib.import_module(addon.__name__ + ".core")


def add_cube(name: str, location=(0.0, 0.0, 0.0), size: float = 1.0, collection=None, **transform):
    """A cube of edge ``size`` named ``name``, linked to ``collection`` (default: the scene's)."""
    mesh = bpy.data.meshes.new(name)
    half = size / 2.0
    corners = [(x, y, z) for x in (-half, half) for y in (-half, half) for z in (-half, half)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    mesh.from_pydata(corners, [], faces)
    obj = bpy.data.objects.new(name, mesh)
    (collection or bpy.context.scene.collection).objects.link(obj)
    obj.location = location
    for attribute, value in transform.items():
        setattr(obj, attribute, value)
    return obj


def add_sphere(name: str, location, radius: float):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=radius, location=location, segments=16, ring_count=8)
    obj = bpy.context.active_object
    obj.name = name
    return obj


def select_only(*objects, active=None) -> None:
    bpy.context.view_layer.update()  # objects linked through bpy.data join view_layer.objects on update
    for obj in bpy.context.view_layer.objects:
        obj.select_set(obj in objects)
    bpy.context.view_layer.objects.active = active or (objects[0] if objects else None)


def random_scene(seed: int, count: int = 24) -> list:
    """``count`` boxes and spheres with random size, rotation and scale, dense enough that some clash."""
    rng = np.random.default_rng(seed)
    objects = []
    for index in range(count):
        location = tuple(rng.uniform(-2.5, 2.5, 3))
        name = f"R{seed}_{index:02d}"
        if index % 3 == 0:
            objects.append(add_sphere(name, location, float(rng.uniform(0.2, 0.6))))
        else:
            objects.append(add_cube(name, location, float(rng.uniform(0.3, 1.0)),
                                    rotation_euler=tuple(rng.uniform(0, math.pi, 3)),
                                    scale=tuple(rng.uniform(0.5, 1.5, 3))))
    bpy.context.view_layer.update()
    return objects


def brute_force(objects, core, *, clearance: float, touch_tolerance: float, tolerance: float) -> dict:
    """``{(name_a, name_b): (contact, region)}`` of every clashing pair, found by measuring all pairs."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    shapes = {}
    for obj in objects:
        evaluated = obj.evaluated_get(depsgraph)
        mesh = evaluated.to_mesh()
        local = np.array([v.co for v in mesh.vertices], dtype=np.float64)
        evaluated.to_mesh_clear()
        matrix = np.array(evaluated.matrix_world)
        shapes[obj.name] = core.Polytope(local @ matrix[:3, :3].T + matrix[:3, 3])
    clashes = {}
    for name_a, name_b in combinations(sorted(shapes), 2):
        contact = core.collide(shapes[name_a], shapes[name_b], tolerance=tolerance,
                               touch_tolerance=touch_tolerance)
        if contact.colliding or contact.signed_distance < clearance:
            clashes[name_a, name_b] = contact, core.contact_region(shapes[name_a], shapes[name_b], contact)
    return clashes


def check(clash, **options):
    """check_scene on the current scene."""
    return clash.check_scene(bpy.context.scene, bpy.context.evaluated_depsgraph_get(), **options)


def pairs_of(report) -> list:
    return [(result.object_a, result.object_b) for result in report.results]


@pytest.mark.parametrize("seed", [3, 11, 42])
@pytest.mark.parametrize("clearance", [0.0, 0.4])
def test_broad_and_narrow_phase_find_what_brute_force_finds(empty_scene, clash, core, seed, clearance):
    objects = random_scene(seed)
    touch_tolerance, tolerance = 1e-5, 1e-9
    report = check(clash, scope='ALL', clearance=clearance, touch_tolerance=touch_tolerance, tolerance=tolerance)
    expected = brute_force(objects, core, clearance=clearance, touch_tolerance=touch_tolerance, tolerance=tolerance)
    assert expected, "the random scene should contain clashes"
    assert pairs_of(report) == sorted(expected)
    for result in report.results:
        contact, region = expected[result.object_a, result.object_b]
        want = contact.status if contact.colliding else 'clearance'
        assert result.status == want
        assert result.signed_distance == pytest.approx(contact.signed_distance, abs=1e-9)
        np.testing.assert_allclose(result.normal, contact.normal, atol=1e-7)
        # In contact: the centre of the contact patch; apart (clearance): the closest points.
        want_a, want_b = (region.centroid_a, region.centroid_b) if contact.colliding else (contact.point_a,
                                                                                            contact.point_b)
        np.testing.assert_allclose(result.point_a, want_a, atol=1e-7)
        np.testing.assert_allclose(result.point_b, want_b, atol=1e-7)
    n = len(objects)
    assert report.objects == n and report.possible_pairs == n * (n - 1) // 2
    assert len(report.results) <= report.candidate_pairs < report.possible_pairs
    assert report.separated == report.candidate_pairs - len(report.results)


def test_statuses_penetrating_touching_clearance(empty_scene, clash):
    add_cube("A")
    add_cube("B", location=(0.9, 0.0, 0.0))   # overlaps A by 0.1
    add_cube("C", location=(0.0, 1.0, 0.0))   # shares a face with A
    add_cube("D", location=(0.0, 0.0, 1.25))  # 0.25 above A
    add_cube("E", location=(6.0, 0.0, 0.0))   # far from everything
    bpy.context.scene.collection.objects.link(bpy.data.objects.new("Empty", None))  # no geometry: left out
    report = check(clash, scope='ALL', clearance=0.3)
    assert report.objects == 5
    by_pair = {(r.object_a, r.object_b): r for r in report.results}
    assert by_pair["A", "B"].status == 'penetrating'
    assert by_pair["A", "B"].signed_distance == pytest.approx(-0.1, abs=1e-6)
    assert by_pair["A", "C"].status == 'touching'
    assert by_pair["A", "D"].status == 'clearance'
    assert by_pair["A", "D"].signed_distance == pytest.approx(0.25, abs=1e-6)
    assert not any("E" in pair for pair in by_pair)
    assert report.counts['penetrating'] == sum(r.status == 'penetrating' for r in report.results)
    assert report.counts['separated'] == report.separated


def test_raising_the_clearance_only_adds_results(empty_scene, clash):
    random_scene(7)
    found = [set(pairs_of(check(clash, scope='ALL', clearance=c))) for c in (0.0, 0.1, 0.3, 0.8)]
    assert all(smaller <= larger for smaller, larger in pairwise(found))
    assert len(found[-1]) > len(found[0])


def test_selected_scope_uses_the_selection_or_the_given_objects(empty_scene, clash):
    a, b, c = add_cube("A"), add_cube("B", location=(0.5, 0, 0)), add_cube("C", location=(0.2, 0.3, 0))
    select_only(a, c)
    assert pairs_of(check(clash, scope='SELECTED')) == [("A", "C")]
    assert pairs_of(check(clash, scope='SELECTED', objects=[c, b])) == [("B", "C")]
    assert pairs_of(check(clash, scope='ALL')) == [("A", "B"), ("A", "C"), ("B", "C")]


def test_active_scope_keeps_the_active_object_as_a(empty_scene, clash):
    z, a, b = add_cube("Z"), add_cube("A", location=(0.5, 0, 0)), add_cube("B", location=(0.2, 0.3, 0))
    select_only(a, b, z, active=z)
    report = check(clash, scope='ACTIVE')
    assert pairs_of(report) == [("Z", "A"), ("Z", "B")]
    assert report.possible_pairs == 2
    assert all(np.dot(r.normal, np.subtract(r.point_b, r.point_a)) <= 1e-9 for r in report.results)


def test_collections_a_against_b_and_against_itself(empty_scene, clash):
    scene = bpy.context.scene
    walls, pipes, ducts = (bpy.data.collections.new(name) for name in ("Walls", "Pipes", "Ducts"))
    scene.collection.children.link(walls)
    scene.collection.children.link(pipes)
    pipes.children.link(ducts)  # objects of child collections belong to the parent
    add_cube("Wall 1", collection=walls)
    add_cube("Wall 2", location=(0.5, 0, 0), collection=walls)
    add_cube("Pipe", location=(0.0, 0.4, 0), collection=pipes)
    add_cube("Duct", location=(0.3, -0.4, 0), collection=ducts)
    add_cube("Loose", location=(0.1, 0.1, 0))

    report = check(clash, scope='COLLECTIONS', collection_a=pipes, collection_b=walls)
    assert pairs_of(report) == [("Duct", "Wall 1"), ("Duct", "Wall 2"), ("Pipe", "Wall 1"), ("Pipe", "Wall 2")]
    assert (report.collection_a, report.collection_b, report.possible_pairs) == ("Pipes", "Walls", 4)
    assert pairs_of(check(clash, scope='COLLECTIONS', collection_a=walls)) == [("Wall 1", "Wall 2")]
    assert pairs_of(check(clash, scope='COLLECTIONS', collection_a=pipes, collection_b=pipes)) == [("Duct", "Pipe")]


def test_an_object_in_both_collections_is_never_paired_with_itself_or_twice(empty_scene, clash):
    scene = bpy.context.scene
    first, second = bpy.data.collections.new("First"), bpy.data.collections.new("Second")
    scene.collection.children.link(first)
    scene.collection.children.link(second)
    shared = add_cube("Shared", collection=first)
    second.objects.link(shared)
    add_cube("Other", location=(0.5, 0, 0), collection=second)
    report = check(clash, scope='COLLECTIONS', collection_a=first, collection_b=second)
    assert pairs_of(report) == [("Shared", "Other")]
    assert report.possible_pairs == 1


def test_order_is_stable_whatever_the_creation_order(empty_scene, clash):
    names = ["M", "C", "X", "A", "K"]
    for index, name in enumerate(names):
        add_cube(name, location=(0.3 * index, 0.1 * index, 0))
    first = pairs_of(check(clash, scope='ALL'))
    assert first == sorted(first) and all(a < b for a, b in first)
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    for index, name in reversed(list(enumerate(names))):
        add_cube(name, location=(0.3 * index, 0.1 * index, 0))
    assert pairs_of(check(clash, scope='ALL')) == first
    assert pairs_of(check(clash, scope='ALL')) == first


def test_broken_objects_are_skipped_with_a_reason_unless_named(empty_scene, clash):
    add_cube("Fine")
    bpy.context.scene.collection.objects.link(bpy.data.objects.new("Hollow", bpy.data.meshes.new("Hollow")))
    report = check(clash, scope='ALL')
    assert list(report.skipped) == ["Hollow"] and "no mesh vertices" in report.skipped["Hollow"]
    broken = add_cube("Broken")
    broken.data.vertices[0].co = (float("nan"), 0.0, 0.0)
    with pytest.raises(clash.ObjectGeometryError, match="Broken"):
        check(clash, scope='SELECTED', objects=[broken, bpy.data.objects["Fine"]])


def test_bad_scope_and_thresholds_raise(empty_scene, clash):
    add_cube("A")
    with pytest.raises(ValueError, match="scope"):
        check(clash, scope='EVERYTHING')
    with pytest.raises(ValueError, match="clearance"):
        check(clash, scope='ALL', clearance=-1.0)
    with pytest.raises(ValueError, match="collection_a"):
        check(clash, scope='COLLECTIONS')


def test_progress_reaches_the_total_and_false_cancels(empty_scene, clash, monkeypatch):
    monkeypatch.setattr(clash, "BATCH_PAIRS", 2)  # convex pairs are measured (and counted) a batch at a time
    for index in range(6):
        add_cube(f"C{index}", location=(0.5 * index, 0, 0))
    calls = []
    report = check(clash, scope='ALL', progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (6 + report.candidate_pairs, 6 + report.candidate_pairs)
    pairs = report.candidate_pairs
    assert [done for done, _total in calls] == [*range(1, 7), *range(8, 6 + pairs, 2), 6 + pairs]
    assert not report.cancelled and len(report.results) == 5 + 4  # neighbours overlap, next-but-one touch

    def stop_after_two_pairs(done: int, total: int) -> bool:
        return done < 6 + 2

    cancelled = check(clash, scope='ALL', progress=stop_after_two_pairs)
    assert cancelled.cancelled
    assert pairs_of(cancelled) == pairs_of(report)[:2]


def test_reports_read_back_from_json_and_csv(empty_scene, clash, addon, tmp_path):
    report_module = importlib.import_module(addon.__name__ + ".analysis.clash_report")
    add_cube("A")
    add_cube("B", location=(0.9, 0.0, 0.0))
    add_cube("D", location=(-0.5, 0.0, 1.25))  # 0.25 above A, 0.47 from B
    report = check(clash, scope='ALL', clearance=0.3)
    report_module.write_json(report, tmp_path / "r.json")
    report_module.write_csv(report, tmp_path / "r.csv")

    document = json.loads((tmp_path / "r.json").read_text())
    assert document["scope"] == "ALL" and document["clearance"] == 0.3
    assert document["blender_version"] == bpy.app.version_string
    assert document["counts"] == {"penetrating": 1, "touching": 0, "clearance": 1, "separated": 1}
    assert [(r["object_a"], r["object_b"], r["status"]) for r in document["results"]] == [
        ("A", "B", "penetrating"), ("A", "D", "clearance")]
    for written, result in zip(document["results"], report.results):
        assert written["signed_distance"] == result.signed_distance
        assert tuple(written["normal"]) == result.normal and written["review_state"] == "new"

    lines = (tmp_path / "r.csv").read_text().splitlines()
    comments = dict(line[2:].split(": ", 1) for line in lines if line.startswith("# "))
    assert comments["scope"] == "ALL" and comments["count_penetrating"] == "1"
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    assert [(row["object_a"], row["object_b"], row["status"]) for row in rows] == [
        ("A", "B", "penetrating"), ("A", "D", "clearance")]
    for row, result in zip(rows, report.results):
        assert float(row["signed_distance"]) == result.signed_distance
        assert (float(row["point_a_x"]), float(row["point_a_y"]), float(row["point_a_z"])) == result.point_a
