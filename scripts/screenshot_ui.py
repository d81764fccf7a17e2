"""Screenshot of Collision Inspector in Blender's real interface: overlay in the viewport, sidebar open.

``python3 dev.py screenshot`` runs it (needs a Blender binary and, on Linux without a display,
ImageMagick's ``import`` and a virtual screen, e.g. the shared tool with ``BLENDER_XVFB=1``):

1. ``blender --background --python scripts/screenshot_ui.py -- --save-scene DEMO.blend``
   builds the demo scene (``scripts/demo.py``), analyses it and saves it;
2. ``blender DEMO.blend --python scripts/screenshot_ui.py -- --capture docs/overlay.png``
   opens it with the full interface, frames the objects, opens the sidebar on the Collision tab and,
   once the window has drawn, captures the screen with ``import -window root`` and quits.

The add-on is loaded from the repository (``scripts/addon_loader.py``), not from an installed zip.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import bpy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from addon_loader import load_registered_addon  # noqa: E402  (scripts/ is not a package)
from demo import CAMERA_LOCATION, CAMERA_TARGET, build_demo_scene  # noqa: E402

SIDEBAR_TAB = "Collision"
TAB_RETRY_SECONDS = 0.5
TAB_ATTEMPTS = 40
SECONDS_BEFORE_CAPTURE = 2.0


def save_scene(path: Path) -> None:
    """Build and analyse the demo scene, deselect everything (clearer picture) and save it."""
    camera = build_demo_scene()
    result = bpy.ops.collision_inspector.analyze()
    if result != {'FINISHED'}:
        raise SystemExit(f"analyze returned {result}")
    camera.hide_set(True)
    for obj in bpy.context.selected_objects:
        obj.select_set(False)
    bpy.ops.wm.save_as_mainfile(filepath=str(path))


def viewport() -> tuple[bpy.types.Area, bpy.types.Region]:
    """The largest 3D viewport of the window and its sidebar region."""
    areas = [area for area in bpy.context.window.screen.areas if area.type == 'VIEW_3D']
    area = max(areas, key=lambda a: a.width * a.height)
    return area, next(region for region in area.regions if region.type == 'UI')


def frame_demo(area: bpy.types.Area) -> None:
    """Look at the demo objects from the demo camera's direction, in their colours, sidebar shown."""
    space = area.spaces.active
    space.show_region_ui = True
    space.shading.type = 'SOLID'
    space.shading.color_type = 'OBJECT'
    view = space.region_3d
    view.view_perspective = 'PERSP'
    view.view_location = CAMERA_TARGET
    view.view_rotation = (CAMERA_TARGET - CAMERA_LOCATION).to_track_quat('-Z', 'Y')
    view.view_distance = (CAMERA_LOCATION - CAMERA_TARGET).length * 0.65


def capture(path: Path) -> None:
    """Open the Collision tab, wait for the redraw, capture the screen, quit."""
    area, sidebar = viewport()
    frame_demo(area)

    attempts = iter(range(TAB_ATTEMPTS))

    def open_tab() -> float | None:
        """Retry until the sidebar knows the tab (it lists tabs only once it has drawn)."""
        if sidebar.active_panel_category != SIDEBAR_TAB:
            try:
                sidebar.active_panel_category = SIDEBAR_TAB
            except TypeError:  # not a known tab yet
                pass
            area.tag_redraw()
            if next(attempts, None) is None:
                print(f"screenshot: the sidebar never showed the {SIDEBAR_TAB} tab")
                bpy.ops.wm.quit_blender()
                return None
            return TAB_RETRY_SECONDS
        bpy.app.timers.register(grab, first_interval=SECONDS_BEFORE_CAPTURE)
        return None

    def grab() -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["import", "-window", "root", str(path)], check=True)
        print(f"screenshot: {path}")
        bpy.ops.wm.quit_blender()

    bpy.app.timers.register(open_tab, first_interval=TAB_RETRY_SECONDS)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="screenshot_ui.py")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--save-scene", type=Path, help="build, analyse and save the demo scene here")
    mode.add_argument("--capture", type=Path, help="PNG to write from the running interface")
    arguments = parser.parse_args(argv[argv.index("--") + 1:] if "--" in argv else [])
    load_registered_addon()
    if arguments.save_scene:
        save_scene(arguments.save_scene.resolve())
    else:
        capture(arguments.capture.resolve())


main(sys.argv)
