"""Fixtures for the cluster runner's tests: real Blender (``$BLENDER``), its scenes, and the whole-check reports
that the runner's merged reports must equal.

They run in the core environment, which has dask's ``distributed``; ``python3 dev.py test`` runs them after the
Blender layers with ``$BLENDER`` set. The add-on comes from this repository (the runner's default).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # the farm package, as ``python -m farm`` finds it from the repository

from farm.runner import COMMAND, LOAD_ADDON  # noqa: E402

#: Fields that tell when and how long a check ran: the only ones a merged report may differ in.
TIMING = ('time', 'seconds')


@pytest.fixture(scope="session")
def blender() -> str:
    """The real Blender binary from ``$BLENDER`` (these tests need one)."""
    path = os.environ.get("BLENDER")
    if not path or not os.access(path, os.X_OK):
        pytest.fail("the runner's tests need real Blender: set BLENDER to its executable", pytrace=False)
    return path


@pytest.fixture(scope="session")
def scenes(blender, tmp_path_factory) -> Path:
    """A folder with ``objects.blend`` and ``animated.blend`` (see ``make_scenes.py``)."""
    folder = tmp_path_factory.mktemp("scenes")
    done = subprocess.run([blender, "--background", "--factory-startup", "--python-exit-code", "1", "--python",
                           str(Path(__file__).with_name("make_scenes.py")), "--", str(folder)],
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    return folder


def whole_check(blender: str, blend: Path, out: Path, *check_args: str) -> dict:
    """The report of one Blender process checking everything (the add-on from this repository)."""
    done = subprocess.run([blender, "--background", "--factory-startup", "--python-expr",
                           LOAD_ADDON.format(folder=str(REPO)), str(blend), "--command", COMMAND, "check",
                           *check_args, "--fail-on", "none", "--json", str(out)],
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(out.read_text())


def without_timing(document: dict) -> dict:
    return {key: value for key, value in document.items() if key not in TIMING}


def run_farm(*argv: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """``python -m farm ...`` from the repository, as a pipeline runs it."""
    environment = {key: value for key, value in os.environ.items() if key != "BLENDER_XVFB"}  # no screen needed
    return subprocess.run([sys.executable, "-m", "farm", *argv], capture_output=True, text=True, timeout=timeout,
                          cwd=REPO, env=environment)
