"""Run the Blender tests with pytest inside a real Blender, against the installed extension.

    blender --background --factory-startup --python-exit-code 1 \
        --python tests/blender/run_in_blender.py -- [pytest arguments]

``python3 dev.py test`` builds the zip, installs it into a temporary HOME and then runs this.
Without pytest arguments it runs ``tests/blender``. Blender exits with pytest's exit code.
"""

import os
import sys
from pathlib import Path

import pytest

INSTALLED_MODULE = "bl_ext.user_default.collision_inspector"


def pytest_arguments(argv: list[str]) -> list[str]:
    """The arguments after Blender's ``--`` separator, or the Blender test directory."""
    given = argv[argv.index("--") + 1:] if "--" in argv else []
    return given or [str(Path(__file__).resolve().parent)]


def main() -> int:
    # conftest.py reads this to test the installed extension instead of the repo checkout.
    os.environ.setdefault("COLLISION_INSPECTOR_MODULE", INSTALLED_MODULE)
    return int(pytest.main(["-p", "no:cacheprovider", *pytest_arguments(sys.argv)]))


if __name__ == "__main__":
    sys.exit(main())
