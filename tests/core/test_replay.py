"""Copy Pair for Report: documents round-trip bit for bit, and ``python -m core.replay`` (run from the
repository root, as a user would) reproduces the stored answer or says why not, with its exit code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import core
import core.replay as replay_module
from core.replay import load_pair, pair_document, replay, write_pair
from generators import box, cloud, random_rotation

REPO_ROOT = Path(__file__).resolve().parents[2]
#: Floats whose decimal form is easy to get wrong: not representable, subnormal, huge, negative zero.
AWKWARD = [0.1, 1.0 / 3.0, -0.0, 5e-324, 2.2250738585072014e-308, 1e100, -7.000000000000001, np.pi * 1e-9]


def pair(seed: int = 0):
    rng = np.random.default_rng(seed)
    a = cloud(rng, 40) @ random_rotation(rng).T
    b = cloud(rng, 30) @ random_rotation(rng).T + [0.2, 0.1, 0.0]
    return a, b


def run_cli(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core.replay", str(path)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=60)


def test_points_and_answer_round_trip_bit_for_bit(tmp_path):
    a, b = pair()
    a[: len(AWKWARD), 0] = AWKWARD
    settings = {"tolerance": 1e-11, "touch_tolerance": 1e-7, "max_iterations": 100}
    document = pair_document(a, b, settings, meta={"object_a": "Cube", "object_b": "Cube.001"})
    path = tmp_path / "pair.json"
    write_pair(path, document)
    loaded = load_pair(path)
    for key in ("points_a", "points_b"):
        original, read = np.array(document[key]), np.array(loaded[key])
        assert original.tobytes() == read.tobytes()  # bit for bit, -0.0 and subnormals included
    assert np.signbit(np.array(loaded["points_a"])[2, 0])
    assert loaded["settings"] == settings and loaded["meta"] == {"object_a": "Cube", "object_b": "Cube.001"}
    assert loaded["expected"] == document["expected"]
    contact = core.collide(a, b, **settings)
    assert loaded["expected"]["signed_distance"] == contact.signed_distance
    assert loaded["expected"]["normal"] == contact.normal.tolist()
    assert len(loaded["core"]["source_sha256"]) == 64


def test_replay_reproduces_and_reports_differences():
    a, b = pair(1)
    document = pair_document(a, b)
    assert document["settings"] == {"tolerance": None, "touch_tolerance": None, "max_iterations": None}
    result = replay(document)
    assert result.reproduced and result.differences == ()
    assert result.contact.signed_distance == document["expected"]["signed_distance"]
    tampered = json.loads(json.dumps(document))
    tampered["expected"]["signed_distance"] += 1e-3
    tampered["expected"]["normal"] = (-np.array(tampered["expected"]["normal"])).tolist()
    result = replay(tampered)
    assert not result.reproduced
    assert [text.split()[0] for text in result.differences] == ["signed_distance", "normal"]


def test_settings_are_replayed():
    lower, upper = box([1.0, 1.0, 0.5]), box([0.3, 0.3, 0.3]) + [0.0, 0.0, 0.8 + 0.004]  # 4 mm apart
    wide = pair_document(lower, upper, {"touch_tolerance": 0.01})
    assert wide["expected"]["status"] == "touching"
    assert replay(wide).contact.status == "touching" and replay(wide).reproduced
    narrow = json.loads(json.dumps(wide))
    narrow["settings"]["touch_tolerance"] = None  # same stored answer, default band: now separated
    assert not replay(narrow).reproduced


def test_command_line_exit_codes(tmp_path):
    a, b = pair(2)
    document = pair_document(a, b)
    good, changed = tmp_path / "good.json", tmp_path / "changed.json"
    write_pair(good, document)
    run = run_cli(good)
    assert run.returncode == 0, run.stderr
    assert "reproduced: yes" in run.stdout and repr(document["expected"]["signed_distance"]) in run.stdout
    document["expected"]["status"] = "separated" if document["expected"]["status"] != "separated" else "touching"
    write_pair(changed, document)
    run = run_cli(changed)
    assert run.returncode == 1 and "reproduced: no" in run.stdout and "differs: status" in run.stdout


@pytest.mark.parametrize("content", [
    "not json at all",
    json.dumps({"format": "something-else"}),
    json.dumps({"format": "collision-inspector-pair", "format_version": 1, "points_a": [[0, 0]],
                "points_b": [[0, 0, 0]], "settings": {}, "expected": {}}),
    json.dumps({"format": "collision-inspector-pair", "format_version": 1, "points_a": [[0, 0, 0]],
                "points_b": [[1, 0, 0]], "settings": {"colour": 3}, "expected": {}}),
])
def test_bad_files_exit_2(tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    run = run_cli(path)
    assert run.returncode == 2 and run.stdout == "" and "core.replay:" in run.stderr


def test_missing_file_exits_2(tmp_path):
    run = run_cli(tmp_path / "nowhere.json")
    assert run.returncode == 2 and "cannot read" in run.stderr


def test_unknown_settings_are_refused():
    with pytest.raises(ValueError, match="unknown settings"):
        pair_document(box([1, 1, 1]), box([1, 1, 1]), {"tolerence": 1e-9})


@pytest.mark.parametrize("rows", [1, 3, 4096])
def test_the_document_is_written_a_few_points_at_a_time_as_json_writes_it_at_once(monkeypatch, tmp_path, rows):
    rng = np.random.default_rng(rows)
    monkeypatch.setattr(replay_module, "TEXT_ROWS", rows)
    points_a = rng.normal(size=(int(rng.integers(1, 40)), 3)) * 10.0 ** rng.integers(-300, 90, size=(1, 3))
    points_b = rng.normal(size=(7, 3)) + 3.0
    document = pair_document(points_a, points_b, meta={"object_a": "A \u25b8 \u00e9", "list": [1, 2, 3, 4, 5]})
    assert document["points_a"] == points_a.tolist() and document["points_b"] == points_b.tolist()
    text = write_pair(tmp_path / "pair.json", document)
    assert text == json.dumps(document, allow_nan=False)
    assert (tmp_path / "pair.json").read_text(encoding="utf-8") == text + "\n"
    document["points_b"][-1][0] = float("nan")
    with pytest.raises(ValueError):
        write_pair(tmp_path / "bad.json", document)
