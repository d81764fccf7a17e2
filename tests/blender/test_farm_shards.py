"""Shards of a check (``check --shard K/N``) joined by ``farm.merge`` give the report of one whole check.

Seeded scenes of boxes, spheres and tori are checked whole and in 2, 3 and 5 shards; an animated scene whose
contact intervals cross the scan's block borders is scanned whole and in shards of its frames. The merged
report must equal the whole one in everything but its time and duration. Merging refuses parts that are not
the shards of one check, and ``python -m farm merge`` runs from the add-on's folder (the repository, or in real
Blender the installed extension) with a plain Python.
"""

from __future__ import annotations

import importlib
import json
import math
import subprocess
import sys
from pathlib import Path

import bpy
import numpy as np
import pytest
from test_analysis_clash import add_cube, add_sphere, random_scene

#: Fields that tell when and how long a check ran: the only ones a merged report may differ in.
TIMING = ('time', 'seconds')


@pytest.fixture
def cli(addon):
    return importlib.import_module(addon.__name__ + ".cli")


@pytest.fixture
def merge(addon):
    return importlib.import_module(addon.__name__ + ".farm.merge")


@pytest.fixture
def plan(addon):
    return importlib.import_module(addon.__name__ + ".farm.plan")


def add_torus(name: str, location, rotation) -> bpy.types.Object:
    bpy.ops.mesh.primitive_torus_add(major_radius=0.5, minor_radius=0.15, location=location, rotation=rotation,
                                     major_segments=24, minor_segments=8)
    obj = bpy.context.active_object
    obj.name = name
    return obj


def seeded_scene(seed: int) -> None:
    """``random_scene``'s boxes and spheres with non-convex tori among them (measured on their triangles)."""
    random_scene(seed, 30)
    rng = np.random.default_rng(seed + 100)
    for index in range(8):
        add_torus(f"T{seed}_{index}", tuple(rng.uniform(-2.5, 2.5, 3)), tuple(rng.uniform(0, math.pi, 3)))
    bpy.context.view_layer.update()


def check_whole_and_in_shards(cli, argv: list[str], count: int, folder: Path) -> tuple[dict, list[dict]]:
    """The whole check's JSON report and those of its ``count`` shards."""
    whole = folder / "whole.json"
    assert cli.run(["check", *argv, "--fail-on", "none", "--json", str(whole)]) == 0
    parts = []
    for index in range(1, count + 1):
        part = folder / f"part{index}.json"
        assert cli.run(["check", *argv, "--fail-on", "none", "--shard", f"{index}/{count}", "--json", str(part)]) == 0
        parts.append(json.loads(part.read_text()))
    return json.loads(whole.read_text()), parts


def without_timing(document: dict) -> dict:
    return {key: value for key, value in document.items() if key not in TIMING}


def pairs(document: dict) -> list[tuple[str, str]]:
    return [(result['object_a'], result['object_b']) for result in document['results']]


@pytest.mark.parametrize("seed, count", [(3, 2), (11, 5)])
def test_merged_shards_equal_the_whole_check(empty_scene, cli, merge, tmp_path, seed, count):
    seeded_scene(seed)
    whole, parts = check_whole_and_in_shards(cli, ["--clearance", "0.2"], count, tmp_path)
    assert len(whole['results']) >= 10 and whole['counts']['separated'] > 0
    assert {result['method'] for result in whole['results']} >= {'convex', 'mesh'}
    shared = [pair for part in parts for pair in pairs(part)]
    assert sorted(shared) == sorted(pairs(whole)) and len(set(shared)) == len(shared)  # each pair in one shard
    assert all(part['candidate_pairs'] == whole['candidate_pairs'] for part in parts)
    merged = merge.merge_parts(parts[::-1])  # any order
    assert without_timing(merged) == without_timing(whole)
    assert list(merged) == list(whole)  # the same fields in the same order
    assert merged['seconds'] == pytest.approx(sum(part['seconds'] for part in parts))


def test_shards_share_the_estimated_cost_evenly(plan):
    costs = [float(cost) for cost in np.random.default_rng(5).integers(1, 1000, 400)]
    shards = plan.balanced_shards(costs, 4)
    loads = [sum(cost for cost, shard in zip(costs, shards) if shard == k) for k in range(4)]
    assert max(loads) - min(loads) <= max(costs)  # greedy by falling cost: within one item of even
    assert plan.balanced_shards(costs, 4) == shards  # the same plan in every process
    assert plan.balanced_shards([5.0, 1.0], 4) == [0, 1]


def fly_past(scene) -> None:
    """Movers sliding through a row of posts over frames 1-70 (blocks of 16 frames: borders after 16, 32, 48,
    64), so that contact intervals run across the borders; a static pair penetrates all along."""
    for index in range(4):
        add_cube(f"Post {index}", location=(2.0 * index, 0.0, 0.0), size=1.0)
    for index, (speed, y) in enumerate(((0.12, 0.0), (0.2, 0.3), (0.09, -0.2))):
        mover = add_sphere(f"Mover {index}", (-1.0, y, 0.0), 0.45 + 0.05 * index)
        mover.location.x = -1.0
        mover.keyframe_insert("location", index=0, frame=1)
        mover.location.x = -1.0 + speed * 69
        mover.keyframe_insert("location", index=0, frame=70)
    add_cube("Lamp", location=(6.0, 0.9, 0.0), size=1.0)  # overlaps Post 3 by 0.1 at every frame
    scene.frame_start, scene.frame_end = 1, 70
    scene.frame_set(1)
    bpy.context.view_layer.update()


@pytest.mark.parametrize("count", [2, 5])
def test_merged_scan_shards_equal_the_whole_scan(empty_scene, cli, merge, plan, tmp_path, count):
    fly_past(empty_scene)
    whole, parts = check_whole_and_in_shards(cli, ["--frames", "1-70"], count, tmp_path)
    borders = {part['shard']['frames'][1] for part in parts[:-1]}
    assert len(borders) == count - 1 and all(border % plan.SCAN_BLOCK == 0 for border in borders)  # from frame 1
    crossing = [(pair, interval) for pair, result in zip(pairs(whole), whole['results'])
                for interval in result['contact_intervals']
                if any(interval[0] <= border < interval[1] for border in borders)]
    assert crossing, "no contact interval crosses a shard border: the scene does not test the joining"
    assert len(whole['results']) >= 6 and whole['counts']['penetrating'] >= 4
    merged = merge.merge_parts(parts)
    assert without_timing(merged) == without_timing(whole)
    assert empty_scene.frame_current == 1


def test_bad_shards_exit_2_naming_the_problem(empty_scene, cli, capsys):
    fly_past(empty_scene)
    for shard in ("0/3", "4/3", "1/0", "one/two"):
        assert cli.run(["check", "--shard", shard]) == 2
        assert "K/N" in capsys.readouterr().err
    assert cli.run(["check", "--frames", "1-20", "--shard", "3/3"]) == 2  # 20 frames: two blocks
    assert "at most 2 shard" in capsys.readouterr().err
    assert cli.run(["check", "--self", "--shard", "1/2"]) == 2
    assert "does not take --shard" in capsys.readouterr().err


def test_merge_refuses_parts_that_are_not_the_shards_of_one_check(empty_scene, cli, merge, tmp_path):
    fly_past(empty_scene)
    whole, parts = check_whole_and_in_shards(cli, [], 3, tmp_path)
    with pytest.raises(merge.MergeError, match="missing shard.* 2/3"):
        merge.merge_parts([parts[0], parts[2]])
    with pytest.raises(merge.MergeError, match="shard 1/3 given twice"):
        merge.merge_parts([parts[0], parts[0], parts[1], parts[2]])
    other = tmp_path / "other.json"
    assert cli.run(["check", "--clearance", "0.5", "--shard", "2/3", "--fail-on", "none", "--json", str(other)]) == 0
    with pytest.raises(merge.MergeError, match="clearance differ"):
        merge.merge_parts([parts[0], json.loads(other.read_text()), parts[2]])
    (tmp_path / "whole_copy.json").write_text(json.dumps(whole))
    with pytest.raises(merge.MergeError, match="not the report of a shard"):
        merge.read_part(tmp_path / "whole_copy.json")


def test_merge_command_runs_with_a_plain_python_from_the_addon_folder(empty_scene, cli, addon, tmp_path):
    fly_past(empty_scene)
    whole, parts = check_whole_and_in_shards(cli, [], 2, tmp_path)
    command = [sys.executable, "-m", "farm", "merge"]
    folder = Path(addon.__file__).resolve().parent
    merged_path = tmp_path / "merged.json"
    done = subprocess.run([*command, str(merged_path), str(tmp_path / "part2.json"), str(tmp_path / "part1.json"),
                           "--fail-on", "none"], cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert without_timing(json.loads(merged_path.read_text())) == without_timing(whole)
    assert f"{whole['objects']} objects" in done.stdout
    failing = subprocess.run([*command, str(merged_path), str(tmp_path / "part1.json")], cwd=folder,
                             capture_output=True, text=True, timeout=120)
    assert failing.returncode == 2 and "missing shard(s) 2/2" in failing.stderr
