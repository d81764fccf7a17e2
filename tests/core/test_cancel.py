"""Work given up on stops soon: ``in_background`` closed early cancels its worker's call at the next
``core.steps.checkpoint``, which the core's long loops (self-intersection blocks, tree levels, step generators) call
between chunks; the call raises ``Cancelled`` and leaves nothing half-stored (a tree or a classification is made
whole or not at all)."""

from __future__ import annotations

import json
import threading
from types import SimpleNamespace

import numpy as np
import pytest

import core.mesh.bvh as bvh_module
import core.mesh.embedded_stars as embedded_stars_module
import core.mesh.repair as repair_module
import core.mesh.self_intersection as self_intersection_module
import core.mesh.topology as topology_module
import core.replay as replay_module
import core.shapes.convex as convex_module
import core.support.index as index_module
from core.mesh import Solid
from core.mesh.self_intersection import self_intersection
from core.mesh.topology import convexity_defect, edge_table, used_vertices
from core.shapes.convex import Polytope
from core.support.index import SupportIndex
from core.replay import document_text, pair_document
from core.steps import Cancelled, checkpoint, in_background, run_to_end
from mesh_fixtures import mesh, uv_sphere


def test_outside_a_worker_a_checkpoint_never_stops_anything():
    for _ in range(3):
        checkpoint()
    assert run_to_end(iter_steps(5, [])) == 5


def iter_steps(count: int, log: list):
    for step in range(count):
        log.append(step)
        yield
    return count


def cancelled_midway(work, pause: tuple) -> tuple[list, threading.Thread]:
    """Run ``work`` in the background until ``pause`` (module, name) is first called, close the steps (Esc) while
    that call waits, then let the worker go on: ``(what work ended with, the worker)``; ``work`` ends with
    ``("cancelled", None)`` or ``("answered", answer)``."""
    module, name = pause
    original, reached, closed = getattr(module, name), threading.Event(), threading.Event()
    calls = []

    def paused(*args, **kwargs):
        calls.append(name)
        if len(calls) == 1:
            reached.set()
            assert closed.wait(60.0)
        return original(*args, **kwargs)

    ended = []

    def recorded():
        try:
            ended.append(("answered", work()))
        except Cancelled:
            ended.append(("cancelled", None))

    setattr(module, name, paused)
    try:
        steps = in_background(recorded, wait=0.001)
        next(steps)
        worker = next(thread for thread in threading.enumerate() if thread.name == "collision_inspector work")
        assert reached.wait(60.0)
        steps.close()
        closed.set()
        worker.join(60.0)
    finally:
        setattr(module, name, original)
    assert not worker.is_alive()
    return ended + [len(calls)], worker


def test_a_cancelled_worker_stops_at_its_next_checkpoint():
    log = []

    class Pause:
        @staticmethod
        def step(k):
            log.append(k)

    def work():
        for k in range(1000):
            checkpoint()
            Pause.step(k)
        return "all done"

    (outcome, calls), _worker = cancelled_midway(work, (Pause, "step"))
    assert outcome == ("cancelled", None) and calls == 1 and log == [0]


def test_steps_run_on_a_cancelled_worker_stop_between_two_steps():
    log = []

    class Pause:
        @staticmethod
        def step():
            pass

    def many_steps():
        for k in range(1000):
            log.append(k)
            Pause.step()
            yield
        return "all done"

    (outcome, calls), _worker = cancelled_midway(lambda: run_to_end(many_steps()), (Pause, "step"))
    assert outcome == ("cancelled", None) and calls == 1 and log == [0]


def crossing_spheres():
    """Two spheres through each other in one mesh: many crossing face pairs."""
    first = uv_sphere(1.0, 16, 24)
    return mesh(np.concatenate([first.vertices, first.vertices + np.array([0.5, 0.1, 0.05])]),
                np.concatenate([first.triangles, first.triangles + len(first.vertices)]))


def test_a_cancelled_self_check_stops_after_the_block_it_is_in(monkeypatch):
    shape = crossing_spheres()
    monkeypatch.setattr(self_intersection_module, "PAIRS_PER_BLOCK", 512)
    monkeypatch.setattr(self_intersection_module, "PAIRS_DECIDED_TOGETHER", 128)
    blocks, decide = [], self_intersection_module._decide
    monkeypatch.setattr(self_intersection_module, "_decide", lambda *args: blocks.append(1) or decide(*args))
    assert self_intersection(shape).count > 0 and len(blocks) > 10  # the whole check takes that many blocks
    (outcome, calls), _worker = cancelled_midway(lambda: self_intersection(shape),
                                                 (self_intersection_module, "_decide"))
    assert outcome == ("cancelled", None) and calls == 1  # the block under way is finished, no other begun


@pytest.mark.parametrize("interrupted", ["_split_positions", "row_chunks"])  # (splitting nodes; fitting boxes)
def test_a_cancelled_tree_build_stores_no_tree_and_a_later_build_is_the_usual_one(interrupted):
    shape = uv_sphere(1.0, 60, 80)
    solid = Solid(shape)
    (outcome, calls), _worker = cancelled_midway(lambda: solid.bvh, (bvh_module, interrupted))
    assert outcome == ("cancelled", None) and calls == 1
    assert "bvh" not in solid.__dict__
    again, fresh = solid.bvh, Solid(shape).bvh
    for name in ("order", "lows", "highs", "axes", "centres", "halves", "children", "starts", "ends"):
        assert np.array_equal(getattr(again, name), getattr(fresh, name)), name


@pytest.mark.parametrize("cancel", [False, True])
def test_an_answered_worker_is_not_disturbed_by_being_closed_after_it_ended(cancel):
    steps = in_background(lambda: "answer", wait=0.001)
    assert run_to_end(steps) == "answer"
    if cancel:
        steps.close()
    checkpoint()  # the caller's own thread was never cancelled


def test_a_cancelled_classification_stores_none_and_a_later_one_is_the_usual_one():
    shape = uv_sphere(1.0, 40, 60)
    solid = Solid(shape)
    (outcome, calls), _worker = cancelled_midway(lambda: solid.closed, (topology_module, "used_vertices"))
    assert outcome == ("cancelled", None) and calls == 1
    assert not {"parts", "closed", "method"} & set(solid.__dict__)
    fresh = Solid(shape)
    assert (solid.closed, solid.method, len(solid.parts)) == (fresh.closed, fresh.method, len(fresh.parts)) \
        == (True, "convex", 1)
    assert solid.parts[0].convexity_defect == fresh.parts[0].convexity_defect


@pytest.mark.parametrize("seed", range(4))
def test_used_vertices_are_numpys_unique_ones(seed):
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 500))
    triangles = rng.integers(0, count, size=(int(rng.integers(0, 300)), 3))
    assert np.array_equal(used_vertices(triangles, count), np.unique(triangles))


def test_a_cancelled_pair_document_text_stops_before_its_next_chunk(monkeypatch):
    points = np.random.default_rng(5).normal(size=(50, 3))
    document = pair_document(points, points + 3.0)
    monkeypatch.setattr(replay_module, "TEXT_ROWS", 4)  # 13 chunks of points per side
    encoder = SimpleNamespace(dumps=json.dumps)
    monkeypatch.setattr(replay_module, "json", encoder)
    assert document_text(document) == json.dumps(document)
    (outcome, calls), _worker = cancelled_midway(lambda: document_text(document), (encoder, "dumps"))
    assert outcome == ("cancelled", None) and calls == 5  # two fields and the next key, then it stops at the points


def test_a_cancelled_hull_stops_while_pruning_its_cloud_and_builds_no_index(monkeypatch):
    points = np.random.default_rng(3).normal(size=(200_000, 3))
    points /= np.linalg.norm(points, axis=1)[:, None]  # all on a sphere: none pruned, so indexed
    indexes = []
    monkeypatch.setattr(convex_module, "SupportIndex", lambda cloud: indexes.append(cloud) or SupportIndex(cloud))
    (outcome, calls), _worker = cancelled_midway(lambda: Polytope(points), (convex_module, "interior_points"))
    assert outcome == ("cancelled", None) and calls == 1 and indexes == []
    hull = Polytope(points)  # not cancelled: the usual one
    assert len(indexes) == 1 and len(hull.points) == len(points)


def test_a_cancelled_support_index_stops_between_its_levels(monkeypatch):
    points = np.random.default_rng(4).normal(size=(200_000, 3))
    boxes, oriented_boxes = [], index_module.oriented_boxes
    monkeypatch.setattr(index_module, "oriented_boxes", lambda *args: boxes.append(1) or oriented_boxes(*args))
    (outcome, calls), _worker = cancelled_midway(lambda: SupportIndex(points), (index_module, "cluster_order"))
    assert outcome == ("cancelled", None) and calls == 1 and boxes == []


def open_bumpy_sphere():
    """A sphere with a hole, its vertices split along a seam: repaired by welding, then left open."""
    sphere = uv_sphere(1.0, 40, 60)
    keep = sphere.vertices[sphere.triangles].mean(axis=1)[:, 2] < 0.9
    vertices = np.concatenate([sphere.vertices, sphere.vertices])
    triangles = sphere.triangles[keep].copy()
    triangles[::2] += len(sphere.vertices)  # every other face on a copy of the vertices: a weld joins them
    return mesh(vertices, triangles)


def test_a_cancelled_repair_stores_none_and_a_later_one_is_the_usual_one():
    shape = open_bumpy_sphere()
    solid = Solid(shape)
    (outcome, calls), _worker = cancelled_midway(lambda: solid.repair,
                                                 (repair_module, "exact_representatives"))
    assert outcome == ("cancelled", None) and calls == 1
    assert "repair" not in solid.__dict__
    again, fresh = solid.repair, Solid(shape).repair
    assert again.welded_vertices == fresh.welded_vertices > 0 and again.open_edges == fresh.open_edges > 0
    assert np.array_equal(again.mesh.triangles, fresh.mesh.triangles)


def test_a_cancelled_edge_table_is_not_kept_with_its_mesh():
    shape = uv_sphere(1.0, 40, 60)
    (outcome, calls), _worker = cancelled_midway(lambda: edge_table(shape), (topology_module, "sorted_keys"))
    assert outcome == ("cancelled", None) and calls == 1
    assert "_edge_table" not in shape.__dict__
    assert np.array_equal(edge_table(shape).edges, edge_table(uv_sphere(1.0, 40, 60)).edges)


def test_a_cancelled_self_check_stops_while_certifying_stars_before_any_block(monkeypatch):
    shape = crossing_spheres()
    balanced, blocks = [], []
    for module, name, log in ((embedded_stars_module, "balanced_vertices", balanced),
                              (self_intersection_module, "_decide", blocks)):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args, original=original, log=log: log.append(1) or original(*args))
    (outcome, calls), _worker = cancelled_midway(lambda: self_intersection(shape),
                                                 (self_intersection_module, "embedded_stars"))
    assert outcome == ("cancelled", None) and calls == 1 and balanced == [] and blocks == []


def test_a_cancelled_convexity_check_stops_within_the_angle_defects():
    shape = uv_sphere(1.0, 40, 60)
    (outcome, calls), _worker = cancelled_midway(lambda: convexity_defect(shape), (topology_module, "cross"))
    assert outcome == ("cancelled", None) and calls == 1
    assert convexity_defect(shape) < 1e-9  # not cancelled: a sphere is convex


def test_a_tree_whose_boxes_are_turned_chunk_by_chunk_is_the_same_tree(monkeypatch):
    shape = uv_sphere(1.0, 60, 80)
    whole = Solid(shape).bvh
    monkeypatch.setattr(bvh_module, "REDUCE_ROWS", 7)  # (eigenvectors of 7 nodes' boxes at a time)
    chunked = Solid(shape).bvh
    for name in ("order", "lows", "highs", "axes", "centres", "halves", "children", "starts", "ends"):
        assert np.array_equal(getattr(whole, name), getattr(chunked, name)), name
