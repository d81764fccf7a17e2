"""The cluster runner (``python -m farm run``) on a LocalCluster of two worker processes with real Blender.

A check and an animation scan run end to end and their merged reports equal one Blender process's; a worker
killed while its shard runs is replaced and the shard run again, the report complete; bad input (a scheduler
that cannot be reached, a file the workers cannot open, a Blender that is not there, a shard that keeps
failing) ends with exit 2 and a message naming the shard and the cause, the shards that finished kept.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time

from conftest import REPO, run_farm, whole_check, without_timing
from farm.merge import merge_parts
from farm.runner import ShardTask, run_shards


def test_two_local_workers_run_a_check_end_to_end(blender, scenes, tmp_path):
    blend = scenes / "objects.blend"
    whole = whole_check(blender, blend, tmp_path / "whole.json", "--clearance", "0.1")
    out = tmp_path / "merged.json"
    done = run_farm("run", str(blend), "--workers", "2", "--shards", "3", "--blender", blender, "--clearance", "0.1",
                    "--json", str(out))
    expected_code = 1 if whole['counts']['penetrating'] else 0
    assert done.returncode == expected_code, done.stderr
    assert whole['counts']['penetrating'] > 0 and len(whole['results']) >= 3
    assert without_timing(json.loads(out.read_text())) == without_timing(whole)
    assert sorted(path.name for path in (tmp_path / "merged.parts").iterdir()) == [
        f"shard-{k}-of-3.json" for k in (1, 2, 3)]
    assert "3/3 shards" in done.stderr and "3 shard(s) merged" in done.stdout


def test_a_scan_in_shards_of_frames_equals_one_scan(blender, scenes, tmp_path):
    blend = scenes / "animated.blend"
    whole = whole_check(blender, blend, tmp_path / "whole.json", "--frames", "1-40")
    out = tmp_path / "scan.json"
    done = run_farm("run", str(blend), "--frames", "1-40", "--workers", "2", "--shards", "5", "--blender", blender,
                    "--json", str(out))
    assert done.returncode == 1, done.stderr
    assert "40 make 3 block(s): 3 shard(s)" in done.stderr  # 40 frames: three blocks, so three shards
    merged = json.loads(out.read_text())
    assert without_timing(merged) == without_timing(whole)
    intervals = [interval for result in whole['results'] for interval in result['contact_intervals']]
    assert any(start <= 16 < end or start <= 32 < end for start, end in intervals)  # joined across a border


def test_a_worker_killed_during_its_shard_is_replaced_and_the_report_is_complete(blender, scenes, tmp_path):
    from distributed import Client, LocalCluster

    blend = scenes / "objects.blend"
    whole = whole_check(blender, blend, tmp_path / "whole.json")
    tasks = [ShardTask(str(blend), index, 2, (), blender, str(REPO)) for index in (1, 2)]
    environment = dict(os.environ)
    os.environ.pop("BLENDER_XVFB", None)  # the workers inherit it
    try:
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
                Client(cluster) as client:
            outcome = {}
            runner = threading.Thread(target=lambda: outcome.update(done=run_shards(client, tasks, tmp_path / "parts")))
            runner.start()
            victim = None
            deadline = time.monotonic() + 120
            while victim is None and time.monotonic() < deadline:
                busy = [worker for worker, keys in client.processing().items() if keys]
                victim = busy[0] if busy else None
                time.sleep(0.2)
            assert victim is not None, "no shard started"
            time.sleep(1.0)  # its Blender is running now
            pid = client.run(os.getpid, workers=[victim])[victim]
            os.kill(pid, signal.SIGKILL)
            runner.join(timeout=900)
            assert not runner.is_alive()
    finally:
        os.environ.clear()
        os.environ.update(environment)
    result = outcome['done']
    assert result.failures == {} and sorted(result.parts) == [1, 2]
    assert without_timing(merge_parts([result.parts[1], result.parts[2]])) == without_timing(whole)


def test_an_unreachable_scheduler_exits_2(scenes, tmp_path):
    done = run_farm("run", str(scenes / "objects.blend"), "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout",
                    "2", "--json", str(tmp_path / "out.json"))
    assert done.returncode == 2
    assert "cannot reach the scheduler tcp://127.0.0.1:9" in done.stderr
    assert not (tmp_path / "out.json").exists()


def test_a_file_the_workers_cannot_open_names_the_shards_and_the_file(blender, tmp_path):
    missing = tmp_path / "missing.blend"
    done = run_farm("run", str(missing), "--workers", "2", "--shards", "2", "--retries", "0", "--blender", blender,
                    "--json", str(tmp_path / "out.json"))
    assert done.returncode == 2
    for index in (1, 2):
        assert f"shard {index}/2: Blender exited with code 2" in done.stderr
    assert f"could not open {missing}" in done.stderr
    assert "the reports of shards none are kept" in done.stderr and not (tmp_path / "out.json").exists()


def test_a_missing_blender_names_the_shard_and_the_path(scenes, tmp_path):
    done = run_farm("run", str(scenes / "objects.blend"), "--workers", "2", "--shards", "2", "--retries", "1",
                    "--blender", str(tmp_path / "no-blender"), "--json", str(tmp_path / "out.json"))
    assert done.returncode == 2
    assert f"shard 1/2: cannot start Blender '{tmp_path / 'no-blender'}'" in done.stderr
    assert "shard 2/2: cannot start Blender" in done.stderr


def test_a_shard_that_keeps_failing_is_retried_then_reported_with_the_others_kept(blender, scenes, tmp_path):
    attempts = tmp_path / "attempts"
    wrapper = tmp_path / "flaky-blender"
    wrapper.write_text(f"""#!/bin/sh
case "$*" in *"--shard 2/2"*) echo x >> {attempts}; echo "Error: simulated crash of shard two" >&2; exit 3 ;; esac
exec {blender} "$@"
""")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    out = tmp_path / "out.json"
    done = run_farm("run", str(scenes / "objects.blend"), "--workers", "2", "--shards", "2", "--retries", "2",
                    "--blender", str(wrapper), "--json", str(out))
    assert done.returncode == 2
    assert "shard 2/2: Blender exited with code 3" in done.stderr and "simulated crash" in done.stderr
    assert len(attempts.read_text().split()) == 3  # the first run and two retries
    assert [path.name for path in (tmp_path / "out.parts").iterdir()] == ["shard-1-of-2.json"]
    assert "the reports of shards 1 are kept" in done.stderr and not out.exists()


def test_the_runner_imports_dask_only_when_it_runs():
    probe = "import sys, farm.runner, farm.merge, farm.plan; print('distributed' in sys.modules, 'dask' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.stdout.split() == ["False", "False"], done.stderr


def test_bad_arguments_exit_2(tmp_path):
    for argv, complaint in ((["--shards", "0"], "--shards must be at least 1"),
                            (["--frames", "9-3"], "not a frame range")):
        done = run_farm("run", "scene.blend", *argv, "--json", str(tmp_path / "out.json"))
        assert done.returncode == 2 and complaint in done.stderr
    assert run_farm("run", "scene.blend").returncode == 2  # --json is required
