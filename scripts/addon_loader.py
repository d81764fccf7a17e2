"""Import the add-on straight from the repository, for scripts and tests that run without installing it.

The repository root *is* the add-on package, so a symlink named ``collision_inspector`` pointing at it,
in a directory on ``sys.path``, makes it importable under its real package name (relative imports and
``__package__`` then behave exactly as in the installed extension).
"""

from __future__ import annotations

import atexit
import importlib
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType

PACKAGE_NAME = "collision_inspector"
REPO_ROOT = Path(__file__).resolve().parents[1]


def import_repo_package(link_dir: Path) -> ModuleType:
    """Import the repo as ``collision_inspector`` through a symlink in ``link_dir`` (added to ``sys.path``)."""
    (link_dir / PACKAGE_NAME).symlink_to(REPO_ROOT, target_is_directory=True)
    sys.path.insert(0, str(link_dir))
    return importlib.import_module(PACKAGE_NAME)


def load_registered_addon() -> ModuleType:
    """Import the repo's add-on and register it; the temporary symlink goes away when Python exits."""
    link_dir = Path(tempfile.mkdtemp(prefix="collision_inspector_pkg_"))
    atexit.register(shutil.rmtree, link_dir, ignore_errors=True)
    module = import_repo_package(link_dir)
    module.register()
    return module
