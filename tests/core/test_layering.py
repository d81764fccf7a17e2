"""The one-way data flow of the layout: core <- analysis <- operators, and ui reads results only.

Checked on the import statements of every module (ast), so a shortcut that would tie the layers
together fails here before it can spread.
"""

import ast
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ALLOWED_CORE_IMPORTS = {"numpy", "__future__"} | set(sys.stdlib_module_names)


def imports_of(path: Path) -> list[tuple[int, str]]:
    """``(relative level, module)`` of every import in the file (level 0 = absolute)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((0, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or ""))
    return found


def package_files(package: str) -> list[Path]:
    return sorted((REPO / package).rglob("*.py"))


def top_package(path: Path, level: int, module: str) -> str:
    """The add-on's top-level package a relative import lands in ('' for the add-on root itself)."""
    parts = list(path.relative_to(REPO).parent.parts)
    base = parts[: len(parts) - (level - 1)] if level else []
    target = [*base, *filter(None, module.split("."))]
    return target[0] if target else ""


@pytest.mark.parametrize("path", package_files("core"), ids=lambda p: str(p.relative_to(REPO)))
def test_core_imports_numpy_and_the_standard_library_only(path):
    for level, module in imports_of(path):
        if level == 0:
            assert module.split(".")[0] in ALLOWED_CORE_IMPORTS, f"{path.name} imports {module}"
        else:
            assert top_package(path, level, module) == "core", f"{path.name} reaches outside core: {module}"


@pytest.mark.parametrize(("package", "forbidden"), [
    ("core", {"analysis", "operators", "ui"}),
    ("analysis", {"operators", "ui"}),
    ("ui", {"operators"}),
])
def test_layers_import_only_downwards(package, forbidden):
    for path in package_files(package):
        for level, module in imports_of(path):
            if level:
                assert top_package(path, level, module) not in forbidden, f"{path} imports {module}"


def test_operators_hold_only_operator_classes():
    for path in package_files("operators"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                mixin = path.name == "base.py" and node.name.endswith("Mixin")  # behaviour operators share
                assert "_OT_" in node.name or mixin or node.name.startswith("_"), f"{path.name}: class {node.name}"


#: What the cluster runner imports when it runs (inside its functions; the add-on never needs them).
RUNNER_IMPORTS = {"distributed", "cloudpickle"}


@pytest.mark.parametrize("path", package_files("farm"), ids=lambda p: str(p.relative_to(REPO)))
def test_farm_imports_the_standard_library_and_itself_only(path):
    """``python -m farm merge`` runs with a plain Python; only the runner reaches for dask."""
    for level, module in imports_of(path):
        if level:
            assert top_package(path, level, module) == "farm", (path.name, module)
        else:
            assert module.split(".")[0] in ALLOWED_CORE_IMPORTS - {"numpy"} | RUNNER_IMPORTS, (path.name, module)
