"""The extension package: manifest fields, Blender's own ``extension validate`` and what the zip holds.

Validation and building call the code behind ``blender --command extension validate|build``
(``bl_pkg.bl_extension_cli``), which ships with Blender and with the ``bpy`` module, so every host
checks the manifest with its own Blender version's rules.
"""

import ast
import re
import shutil
import tomllib
import zipfile
from pathlib import Path
from typing import Iterator

import bpy
import pytest
from bl_pkg import bl_extension_cli

REPO_ROOT = Path(__file__).resolve().parents[2]
ADDON_DIRECTORIES = ("core/", "core/mesh/", "analysis/", "operators/", "ui/", "farm/")
#: Packages only the cluster runner uses, imported when it runs: never needed to load the add-on.
RUNNER_ONLY = ("dask", "distributed", "cloudpickle")
DEVELOPMENT_PATHS = ("tests/", "benchmarks/", "scripts/", "docs/", ".ci/", ".git/", ".venv/", "dev.py", "out/",
                     "CONTRIBUTING.md")


def extension_command(*arguments: str) -> int:
    """Run ``blender --command extension <arguments>`` in this process; its exit code."""
    return bl_extension_cli.cli_extension_handler(list(arguments))


@pytest.fixture(scope="module")
def manifest(addon) -> dict:
    """The manifest of the add-on under test (the installed one in real Blender)."""
    return tomllib.loads((Path(addon.__file__).parent / "blender_manifest.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def built_zip(tmp_path_factory) -> Iterator[zipfile.ZipFile]:
    output = tmp_path_factory.mktemp("build")
    assert extension_command("build", "--source-dir", str(REPO_ROOT), "--output-dir", str(output)) == 0
    (path,) = output.glob("*.zip")
    with zipfile.ZipFile(path) as archive:
        yield archive


def test_identity(addon, manifest):
    assert manifest["schema_version"] == "1.0.0"
    assert manifest["id"] == "collision_inspector"
    assert addon.__name__.rpartition(".")[2] == manifest["id"]
    assert manifest["name"] == "Collision Inspector"
    assert manifest["type"] == "add-on"
    assert re.fullmatch(r"\d+\.\d+\.\d+", manifest["version"])


def test_tagline_is_short_without_trailing_punctuation(manifest):
    tagline = manifest["tagline"]
    assert 0 < len(tagline) <= 64
    assert tagline[-1].isalnum()


def test_license_and_lowest_blender_version(manifest):
    assert manifest["license"] == ["SPDX:GPL-3.0-or-later"]
    assert manifest["blender_version_min"] == "4.2.0"
    lowest = tuple(int(part) for part in manifest["blender_version_min"].split("."))
    assert bpy.app.version >= lowest  # this host is a claimed version


def test_permissions_name_what_the_addon_does_outside_blender_and_why(addon, manifest):
    """Reports and pair documents are written to files, Copy Pair uses the clipboard: both are declared with a
    reason the extension platform accepts. The manifest links to no web page: the add-on has none yet (a guessed
    address would send Blender's Website button nowhere)."""
    source = "\n".join(path.read_text(encoding="utf-8") for path in Path(addon.__file__).parent.rglob("*.py"))
    assert "window_manager.clipboard" in source and "write_text(" in source
    permissions = manifest["permissions"]
    assert set(permissions) == {"files", "clipboard"}
    assert "report" in permissions["files"] and "Copy Pair" in permissions["clipboard"]
    for reason in permissions.values():
        assert len(reason) <= 64 and reason[-1].isalnum()
    assert "website" not in manifest


def test_blender_validates_the_manifest():
    assert extension_command("validate", str(REPO_ROOT)) == 0


def test_validation_rejects_a_tagline_with_trailing_punctuation(tmp_path):
    """The validate check above can fail: the same manifest with a full stop after the tagline does."""
    text = (REPO_ROOT / "blender_manifest.toml").read_text(encoding="utf-8")
    broken = re.sub(r'^(tagline = ".*)"$', r'\1."', text, count=1, flags=re.MULTILINE)
    assert broken != text
    (tmp_path / "blender_manifest.toml").write_text(broken, encoding="utf-8")
    shutil.copy(REPO_ROOT / "__init__.py", tmp_path)
    assert extension_command("validate", str(tmp_path)) != 0


def test_zip_holds_the_addon_and_no_development_files(built_zip):
    names = built_zip.namelist()
    assert "blender_manifest.toml" in names and "__init__.py" in names
    for directory in ADDON_DIRECTORIES:
        assert any(name.startswith(directory) and name.endswith(".py") for name in names), directory
    leaked = [name for name in names if name.startswith(DEVELOPMENT_PATHS) or "__pycache__" in name]
    assert leaked == []


def test_no_module_of_the_zip_imports_dask_when_loaded(built_zip):
    """The runner imports dask inside its functions only: the add-on loads where dask is not installed."""
    for name in (name for name in built_zip.namelist() if name.endswith(".py")):
        tree = ast.parse(built_zip.read(name))
        loaded = [alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names]
        loaded += [node.module for node in tree.body if isinstance(node, ast.ImportFrom) and node.module]
        assert not [module for module in loaded if module.split(".")[0] in RUNNER_ONLY], name


def test_each_host_tests_the_right_copy_of_the_addon(addon, real_blender):
    """Real Blender tests the extension installed from the zip; the bpy module tests this checkout."""
    package_dir = Path(addon.__file__).resolve().parent
    if real_blender:
        assert addon.__name__ == "bl_ext.user_default.collision_inspector"
        assert package_dir.parent.name == "user_default" and package_dir != REPO_ROOT
        assert not (package_dir / "tests").exists()
    else:
        assert addon.__name__ == "collision_inspector"
        assert package_dir == REPO_ROOT
