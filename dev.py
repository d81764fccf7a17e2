#!/usr/bin/env python3
"""Collision Inspector's two developer commands; they set everything up themselves.

    python3 dev.py demo   # builds a demo scene, analyses it, prints the results, writes out/demo_overlay.png
    python3 dev.py test   # every test layer: core, PyPI bpy 4.2 and 5.0.1, real Blender, cluster runner

Needs only Python 3.11+ and the package index: virtual environments are created under ``.venv/`` and
reused while their requirements are unchanged. The real-Blender layer uses ``$BLENDER`` or ``blender``
on PATH; without one it is reported as not run (a failure when ``CI`` is set). Standard library only.
The test layers, CI and ``screenshot`` (the pictures in docs/) are described in CONTRIBUTING.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import venv
import xml.etree.ElementTree as ElementTree
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

REPO = Path(__file__).resolve().parent
CACHE = REPO / ".venv"
OUT = REPO / "out"
PYTEST_OPTIONS = ("-q", "-rfE", "-p", "no:cacheprovider")

# One virtual environment per host Python: name -> pip requirements.
ENVS = {
    # coal, manifold3d: independent references; distributed: the cluster runner's tests; airo-models: robot meshes
    # (OBJ, STL) made by others, for the real-asset tests (none of them ever in the add-on)
    "core": ("numpy", "scipy", "pytest", "coal", "manifold3d", "distributed", "airo-models"),
    "bpy-4.2": ("bpy==4.2.*", "scipy", "pytest"),
    "bpy-5.0.1": ("bpy==5.0.1", "scipy", "pytest"),
}
DEMO_ENV = "bpy-5.0.1"


class SetupError(RuntimeError):
    """A setup step (venv, pip, building or installing the extension) failed; the message says which."""


@dataclass
class LayerResult:
    """What one test layer did. ``error`` is set when it could not run its tests at all."""

    name: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    seconds: float = 0.0
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and self.failed == 0 and self.passed > 0

    def summary(self) -> str:
        counts = f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped"
        ran_none = self.passed + self.failed == 0
        problem = f"  <- {self.error}" if self.error else ("  <- ran no tests" if ran_none else "")
        return f"{self.name:<22} {counts:<36} {self.seconds:7.1f} s{problem}"


def run(command: list[str], *, env: dict | None = None) -> str:
    """Run a setup step in the repo and return its output; shown only if it fails (pip would drown the log)."""
    result = subprocess.run(command, cwd=REPO, env=env, text=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        raise SetupError(f"command failed ({result.returncode}): {' '.join(command)}\n{result.stdout}")
    return result.stdout


def pip_install(python: Path, arguments: list[str]) -> None:
    run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *arguments])


def venv_python(directory: Path) -> Path:
    return directory / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_env(name: str) -> Path:
    """The Python of environment ``name``, created (or rebuilt) when its requirements changed."""
    directory = CACHE / name
    stamp = directory / "dev-requirements.txt"
    wanted = "\n".join((sys.version, *ENVS[name]))
    python = venv_python(directory)
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    started = time.monotonic()
    shutil.rmtree(directory, ignore_errors=True)
    venv.create(directory, with_pip=True)
    pip_install(python, list(ENVS[name]))
    stamp.write_text(wanted)
    print(f"env {name}: created in {time.monotonic() - started:.0f} s", flush=True)
    return python


def ensure_envs(names: list[str]) -> dict[str, Path]:
    """Create the environments ``names`` in parallel (mostly download time) and return their Pythons."""
    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        return dict(zip(names, pool.map(ensure_env, names)))


def junit_counts(path: Path, result: LayerResult) -> None:
    """Fill ``result``'s counts from a pytest JUnit XML report."""
    for suite in ElementTree.parse(path).getroot().iter("testsuite"):
        tests, skipped = int(suite.get("tests", 0)), int(suite.get("skipped", 0))
        failed = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        result.passed += tests - skipped - failed
        result.failed += failed
        result.skipped += skipped


def run_pytest_layer(name: str, command: list[str], junit: Path, env: dict | None = None) -> LayerResult:
    """Run one pytest layer with its output streaming to the console; count results from its report."""
    print(f"\n===== {name} =====", flush=True)
    result = LayerResult(name)
    started = time.monotonic()
    exit_code = subprocess.run([*command, f"--junitxml={junit}"], cwd=REPO, env=env,
                               stdin=subprocess.DEVNULL).returncode
    result.seconds = time.monotonic() - started
    if junit.exists():
        junit_counts(junit, result)
    if exit_code not in (0, 1) or not junit.exists():  # 1 = some tests failed (counted); others = pytest broke
        result.error = f"pytest exit code {exit_code}"
    return result


def find_blender() -> str | None:
    """The real Blender binary: ``$BLENDER`` or ``blender`` on PATH."""
    candidate = os.environ.get("BLENDER") or shutil.which("blender")
    return candidate if candidate and os.access(candidate, os.X_OK) else None


PROBE = (
    "import sys, importlib.util, bpy; print('PROBE', bpy.app.version_string.split()[0], "
    "'%d.%d' % sys.version_info[:2], importlib.util.find_spec('numpy') is not None)"
)


def blender_numpy_site(blender: str, home: Path, installer: Path) -> Path | None:
    """A directory with numpy for Blender's own Python when that Python lacks it, else None.

    Blender's official builds bundle numpy; some distribution builds (Debian's) do not. The wheel
    matching Blender's Python version is installed with ``pip --target`` and cached in ``.venv/``.
    """
    output = run([blender, "--background", "--factory-startup", "--python-expr", PROBE],
                 env={**os.environ, "HOME": str(home)})
    version, python_version, has_numpy = next(line.split()[1:] for line in output.splitlines()
                                              if line.startswith("PROBE "))
    print(f"blender {version} (Python {python_version}), numpy bundled: {has_numpy}", flush=True)
    if has_numpy == "True":
        return None
    site = CACHE / f"blender-site-py{python_version}"
    if not (site / "numpy").is_dir():
        shutil.rmtree(site, ignore_errors=True)
        arch = platform.machine()
        platforms = [f"--platform=manylinux_2_{glibc}_{arch}" for glibc in (28, 17)]
        pip_install(installer, [
            "--target", str(site), "--only-binary=:all:", "--implementation=cp",
            f"--python-version={python_version}", *platforms, "numpy",
        ])
    return site


@contextmanager
def blender_home(blender: str, installer: Path) -> Iterator[tuple[list[str], dict, Path]]:
    """``(command, environment, home)`` to run Blender with a temporary HOME, deleted afterwards.

    The user's own preferences and extensions stay untouched. When Blender's Python lacks numpy, the
    command and environment add the cached numpy (``--python-use-system-env`` honours PYTHONPATH).
    """
    home = Path(tempfile.mkdtemp(prefix="collision_inspector_home_"))
    try:
        env = {**os.environ, "HOME": str(home)}
        command = [blender]
        site = blender_numpy_site(blender, home, installer)
        if site is not None:
            env["PYTHONPATH"] = str(site)
            command.append("--python-use-system-env")
        yield command, env, home
    finally:
        shutil.rmtree(home, ignore_errors=True)


def without_blender(name: str) -> LayerResult | None:
    """A layer that needs Blender when there is none: a failure when ``CI`` is set, else None (reported as not run)."""
    message = "no Blender binary ($BLENDER unset or not executable, no blender on PATH)"
    if os.environ.get("CI"):
        return LayerResult(name, error=message)
    print(f"\n===== {name} =====\nNOT RUN: {message}; set BLENDER to run it", flush=True)
    return None


def blender_layer(installer: Path, pytest_args: list[str]) -> LayerResult | None:
    """Validate, build and install the extension zip into a temporary HOME, then run pytest in Blender.

    None when there is no Blender binary and ``CI`` is unset (then the layer is reported as not run).
    """
    name = "real Blender"
    blender = find_blender()
    if blender is None:
        return without_blender(name)
    print(f"\n===== {name}: {blender} (the first call of a Blender wrapper may take minutes) =====", flush=True)
    started = time.monotonic()
    try:
        with blender_home(blender, installer) as (command, env, home):
            run([*command, "--command", "extension", "validate", str(REPO)], env=env)
            build = home / "build"
            build.mkdir()
            run([*command, "--command", "extension", "build", "--source-dir", str(REPO), "--output-dir", str(build)],
                env=env)
            (package,) = build.glob("*.zip")
            run([*command, "--command", "extension", "install-file", "-r", "user_default", "-e", str(package)], env=env)
            print(f"extension: validated, built {package.name}, installed and enabled", flush=True)
            runner = [*command, "--background", "--factory-startup", "--python-exit-code", "1",
                      "--python", str(REPO / "tests/blender/run_in_blender.py"), "--", *PYTEST_OPTIONS, *pytest_args]
            result = run_pytest_layer(name, runner, home / "junit.xml", env)
    except SetupError as error:
        print(error, flush=True)
        result = LayerResult(name, error="setup failed (see above)")
    result.seconds = time.monotonic() - started
    return result


def farm_layer(python: Path, pytest_args: list[str]) -> LayerResult | None:
    """The cluster runner's tests (``tests/farm``): dask's LocalCluster in the core environment, each shard in real
    Blender, named to them in ``$BLENDER`` as a wrapper that adds numpy where Blender's Python lacks it.

    None when there is no Blender binary and ``CI`` is unset (then the layer is reported as not run).
    """
    name = "cluster runner"
    blender = find_blender()
    if blender is None:
        return without_blender(name)
    started = time.monotonic()
    try:
        with blender_home(blender, python) as (command, env, home):
            wrapper = home / "blender"
            exports = f"export PYTHONPATH={shlex.quote(env['PYTHONPATH'])}\n" if "PYTHONPATH" in env else ""
            wrapper.write_text(f'#!/bin/sh\n{exports}exec {shlex.join(command)} "$@"\n')
            wrapper.chmod(0o755)
            layer_env = {key: value for key, value in os.environ.items() if key != "BLENDER_XVFB"}  # no screen needed
            layer_env.update(HOME=str(home), BLENDER=str(wrapper))
            result = run_pytest_layer(name, [str(python), "-m", "pytest", *PYTEST_OPTIONS, "tests/farm", *pytest_args],
                                      home / "junit.xml", layer_env)
    except SetupError as error:
        print(error, flush=True)
        result = LayerResult(name, error="setup failed (see above)")
    result.seconds = time.monotonic() - started
    return result


def command_test(pytest_args: list[str]) -> int:
    """Run every layer, print their summaries and ``total: N passed, M failed``; 0 only if all passed."""
    started = time.monotonic()
    pythons = ensure_envs(list(ENVS))
    print(f"environments ready in {time.monotonic() - started:.0f} s", flush=True)
    blender_tests = ["tests/blender", *pytest_args]
    with tempfile.TemporaryDirectory(prefix="collision_inspector_junit_") as reports:
        layers = [("core (numpy)", "core", ["tests/core", *pytest_args]),
                  ("bpy module 4.2", "bpy-4.2", blender_tests),
                  ("bpy module 5.0.1", "bpy-5.0.1", blender_tests)]
        results = [run_pytest_layer(label, [str(pythons[env]), "-m", "pytest", *PYTEST_OPTIONS, *paths],
                                    Path(reports, f"{env}.xml"))
                   for label, env, paths in layers]
    needing_blender = {"real Blender": blender_layer(pythons["core"], blender_tests),
                       "cluster runner": farm_layer(pythons["core"], pytest_args)}
    results += [result for result in needing_blender.values() if result is not None]
    print("\n===== summary =====")
    for result in results:
        print(result.summary())
    for name in (name for name, result in needing_blender.items() if result is None):
        print(f"{name:<22} NOT RUN (no Blender binary; set BLENDER)")
    print(f"{'all, with setup':<22} {'':<36} {time.monotonic() - started:7.1f} s")
    passed = sum(r.passed for r in results)
    failed = sum(r.failed or bool(r.error) for r in results)  # a layer that broke counts as one failure
    print(f"total: {passed} passed, {failed} failed")
    return 0 if all(r.ok for r in results) else 1


#: The documentation's pictures ``screenshot`` makes (README and docs/user-guide.md): the shot names of scripts/screenshot_ui.py, each docs/SHOT.png.
SHOTS = ("overlay", "inspect", "drag", "glide", "overlap", "bolt", "selfcheck")


def command_screenshot(shots: list[str]) -> int:
    """docs/SHOT.png for each shot from Blender's real interface (see scripts/screenshot_ui.py); a maintainer's
    command."""
    blender = find_blender()
    if blender is None:
        raise SetupError("no Blender binary: set BLENDER or put blender on PATH")
    with blender_home(blender, ensure_env("core")) as (command, env, home):
        no_splash = "import bpy; bpy.context.preferences.view.show_splash = False; bpy.ops.wm.save_userpref()"
        run([*command, "--background", "--python-expr", no_splash], env=env)
        script = str(REPO / "scripts/screenshot_ui.py")
        for shot in shots:
            scene = str(home / f"{shot}.blend")
            run([*command, "--background", "--python", script, "--", "--shot", shot, "--save-scene", scene], env=env)
            output = run([*command, scene, "--python", script, "--", "--shot", shot, "--capture",
                          str(REPO / f"docs/{shot}.png")], env={**env, "BLENDER_XVFB": "1"})
            print(next(line for line in output.splitlines() if line.startswith("screenshot: ")))
    return 0


def command_demo() -> int:
    python = ensure_env(DEMO_ENV)
    OUT.mkdir(exist_ok=True)
    return subprocess.run([str(python), str(REPO / "scripts/demo.py"), str(OUT / "demo_overlay.png")],
                          cwd=REPO, stdin=subprocess.DEVNULL).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="analyse a demo scene in the PyPI bpy module; write out/demo_overlay.png")
    screenshot = commands.add_parser("screenshot", help="maintainers: the documentation's pictures (docs/SHOT.png) from "
                                                         "real Blender's interface")
    screenshot.add_argument("shots", nargs="*", metavar="SHOT",
                            help=f"which pictures: {', '.join(SHOTS)} (default: all)")
    commands.add_parser("test", help="run all test layers; other arguments go to every pytest run (e.g. -x)")
    arguments, pytest_args = parser.parse_known_args()
    if pytest_args and arguments.command != "test":
        parser.error(f"unrecognized arguments: {' '.join(pytest_args)}")
    unknown = sorted(set(getattr(arguments, "shots", ())) - set(SHOTS))
    if unknown:
        parser.error(f"unknown picture {', '.join(unknown)}: choose from {', '.join(SHOTS)}")
    try:
        if arguments.command == "test":
            return command_test(pytest_args)
        return command_demo() if arguments.command == "demo" else command_screenshot(arguments.shots or list(SHOTS))
    except SetupError as error:
        print(error, file=sys.stderr)
        if arguments.command == "test":
            print("total: 0 passed, 1 failed")
        return 1


if __name__ == "__main__":
    sys.exit(main())
