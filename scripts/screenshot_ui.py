"""Screenshots of Collision Inspector in Blender's real interface: overlay in the viewport, sidebar open.

``python3 dev.py screenshot [SHOT ...]`` runs it twice per picture: in background mode to build and save the
shot's scene, then with the full interface to capture it. The shots and how they are taken: CONTRIBUTING.md,
"Screenshots".
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import bpy
from mathutils import Vector

sys.path.insert(0, str(Path(__file__).resolve().parent))
from addon_loader import PACKAGE_NAME, load_registered_addon  # noqa: E402  (scripts/ is not a package)
from demo import CAMERA_LOCATION, CAMERA_TARGET, add_shape, build_demo_scene  # noqa: E402

SIDEBAR_TAB = "Collision"
TAB_RETRY_SECONDS = 0.5
TAB_ATTEMPTS = 40
SECONDS_BEFORE_CAPTURE = 2.0
#: Pages the sidebar is scrolled down when it shows more panels than fit (scrolling stops at the end).
SCROLL_PAGES = 5

#: The scan shot: the sphere's keys (frame, height) and the frame shown (its deepest).
DROP_KEYS = ((1, 2.0), (30, 0.6), (60, 2.0))
DEEPEST_FRAME = 30
#: Where the scan shot looks from and at.
SCAN_VIEW_FROM = Vector((3.2, -4.4, 2.6))
SCAN_VIEW_AT = Vector((0.3, 0.0, 0.55))
#: The drag shot: where the ball starts (sunk into the ring's tube), each step of the drag, their count and the
#: seconds between them (the last step is captured well before the live update's settle time, 0.2 s).
DRAG_START = Vector((1.0, 0.0, 0.55))
DRAG_STEP = Vector((0.0, 0.0, -0.02))
DRAG_STEPS = 6
DRAG_INTERVAL = 0.1
DRAG_VIEW_FROM = Vector((3.6, -3.6, 2.4))
DRAG_VIEW_AT = Vector((0.5, 0.0, 0.1))
#: The overlap shot: where the ball sits in the block (radius 0.45, sunk 0.35 into the block's top corner) and where
#: the view looks from and at.
OVERLAP_BALL_AT = Vector((0.35, -0.2, 0.55))
OVERLAP_VIEW_FROM = Vector((3.0, -3.6, 2.4))
OVERLAP_VIEW_AT = Vector((0.15, -0.1, 0.25))
#: The glide shot: how many ring and ball pairs, how far apart, where each ball starts (above its ring's tube, 0.25
#: from it), each step of the glide and their count (the balls stay apart from the rings all along).
GLIDE_PAIRS = 8
GLIDE_SPACING = 3.0
GLIDE_START = Vector((1.0, -0.3, 1.05))
GLIDE_STEP = Vector((0.0, 0.12, 0.0))
GLIDE_STEPS = 5
GLIDE_VIEW_FROM = Vector((14.0, -9.0, 7.0))
GLIDE_VIEW_AT = Vector((9.0, 0.0, 0.3))
#: The bolt shot: the plate's hole and the bolt's shank (the shank wider: it cuts into the hole's wall), where the
#: view looks from and at.
HOLE_RADIUS = 0.2
SHANK_RADIUS = 0.23
BOLT_VIEW_FROM = Vector((2.2, -2.6, 2.0))
BOLT_VIEW_AT = Vector((0.0, 0.0, 0.1))
#: The self-check shot: where the view looks from and at.
SELF_VIEW_FROM = Vector((3.4, -4.2, 2.8))
SELF_VIEW_AT = Vector((0.9, 0.0, 0.3))


def remove_all_objects() -> None:
    """Start a shot's scene from nothing."""
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)


def run_operator(name: str, **properties) -> None:
    """Run ``collision_inspector.<name>``; a shot whose operator does not finish stops the script."""
    result = getattr(bpy.ops.collision_inspector, name)(**properties)
    if result != {'FINISHED'}:
        raise SystemExit(f"{name} returned {result}")


def analysed_demo_scene() -> None:
    """The demo scene, analysed, its camera hidden."""
    camera = build_demo_scene()
    run_operator("analyze")
    camera.hide_set(True)


def scanned_drop_scene() -> None:
    """A sphere (radius 0.4) dropped into a unit block and lifted out again (``DROP_KEYS``) beside a post;
    scanned over frames 1-60 at the deepest frame (the scan restores it), the sphere's pair active and its
    directional depth along Z measured."""
    remove_all_objects()
    mesh = bpy.ops.mesh
    block = add_shape("Block", (0.55, 0.65, 0.8), mesh.primitive_cube_add, size=1.0, location=(0.0, 0.0, 0.0))
    post = add_shape("Post", (0.8, 0.7, 0.5), mesh.primitive_cylinder_add, radius=0.15, depth=1.6, vertices=32,
                     location=(0.75, 0.0, 0.8))
    sphere = add_shape("Sphere", (0.6, 0.8, 0.6), mesh.primitive_uv_sphere_add, radius=0.4, location=(0.0, 0.0, 2.0))
    for frame, height in DROP_KEYS:
        sphere.location.z = height
        sphere.keyframe_insert("location", index=2, frame=frame)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = DROP_KEYS[0][0], DROP_KEYS[-1][0]
    scene.frame_set(DEEPEST_FRAME)
    for obj in (block, post, sphere):
        obj.select_set(True)
    settings = scene.collision_inspector
    settings.scope, settings.scan_markers = 'SELECTED', True
    run_operator("scan")
    settings.active_result_index = next(k for k, r in enumerate(settings.results)
                                        if (r.name_a, r.name_b) == ("Block", "Sphere"))
    run_operator("directional_depth", axis='Z')


def ball_in_ring_scene() -> None:
    """A ball (UV sphere, radius 0.45) sunk into a ring (torus, radius 1, tube 0.35): a non-convex pair,
    analysed, live update on, the pair active."""
    remove_all_objects()
    mesh = bpy.ops.mesh
    add_shape("Ring", (0.55, 0.65, 0.8), mesh.primitive_torus_add, major_radius=1.0, minor_radius=0.35,
              major_segments=64, minor_segments=24)
    add_shape("Ball", (0.8, 0.7, 0.5), mesh.primitive_uv_sphere_add, radius=0.45, segments=48, ring_count=24,
              location=DRAG_START)
    settings = bpy.context.scene.collision_inspector
    settings.scope = 'ALL'
    run_operator("analyze")
    settings.live_update, settings.active_result_index = True, 0


def drag_ball(then: Callable[[], None]) -> None:
    """Move the ball ``DRAG_STEPS`` times by ``DRAG_STEP``, an update each (as a drag with the mouse sends), then
    call ``then`` while the last update's answer is on screen."""
    ball, steps = bpy.data.objects["Ball"], iter(range(DRAG_STEPS))

    def step() -> float | None:
        if next(steps, None) is None:
            then()
            return None
        ball.location += DRAG_STEP
        bpy.context.view_layer.update()
        return DRAG_INTERVAL

    bpy.app.timers.register(step, first_interval=DRAG_INTERVAL)


def balls_above_rings_scene() -> None:
    """``GLIDE_PAIRS`` balls (UV spheres, radius 0.45, 4,514 vertices) above rings (tori, radius 1, tube 0.35, 6,144
    vertices), 0.25 apart: non-convex pairs apart, analysed with a clearance that lists them, live update on."""
    remove_all_objects()
    mesh = bpy.ops.mesh
    for k in range(GLIDE_PAIRS):
        offset = Vector((k * GLIDE_SPACING, 0.0, 0.0))
        add_shape(f"Ring {k + 1}", (0.55, 0.65, 0.8), mesh.primitive_torus_add, major_radius=1.0, minor_radius=0.35,
                  major_segments=128, minor_segments=48, location=offset)
        add_shape(f"Ball {k + 1}", (0.8, 0.7, 0.5), mesh.primitive_uv_sphere_add, radius=0.45, segments=96,
                  ring_count=48, location=offset + GLIDE_START)
    settings = bpy.context.scene.collision_inspector
    settings.scope, settings.clearance = 'ALL', 0.5
    run_operator("analyze")
    settings.live_update = True


def ball_in_block_scene() -> None:
    """A ball (UV sphere, radius 0.45) sunk into a block's top corner, analysed, the pair active, its overlap drawn
    with See Through on."""
    remove_all_objects()
    mesh = bpy.ops.mesh
    add_shape("Block", (0.55, 0.65, 0.8), mesh.primitive_cube_add, size=1.0)
    add_shape("Ball", (0.8, 0.7, 0.5), mesh.primitive_uv_sphere_add, radius=0.45, segments=48, ring_count=24,
              location=OVERLAP_BALL_AT)
    settings = bpy.context.scene.collision_inspector
    settings.scope = 'ALL'
    run_operator("analyze")
    settings.active_result_index, settings.overlap_see_through = 0, True


def bolt_in_plate_scene() -> None:
    """A bolt (one object: a hexagonal head on a round shank) through a hole drilled in a plate, its shank a little
    wider than the hole: a non-convex pair measured on its triangles, analysed, its overlap drawn with See Through
    on."""
    remove_all_objects()
    mesh = bpy.ops.mesh
    plate = add_shape("Plate", (0.55, 0.65, 0.8), mesh.primitive_cube_add, size=1.0, scale=(1.0, 1.0, 0.25))
    drill = add_shape("Drill", (1.0, 1.0, 1.0), mesh.primitive_cylinder_add, radius=HOLE_RADIUS, depth=1.0,
                      vertices=48)
    cut = plate.modifiers.new("Hole", 'BOOLEAN')
    cut.operation, cut.solver, cut.object = 'DIFFERENCE', 'EXACT', drill
    bpy.context.view_layer.objects.active = plate
    bpy.ops.object.modifier_apply(modifier=cut.name)
    bpy.data.objects.remove(drill)
    add_shape("Bolt", (0.8, 0.7, 0.5), mesh.primitive_cylinder_add, radius=SHANK_RADIUS, depth=0.8, vertices=48,
              location=(0.0, 0.0, -0.1))
    add_shape("Head", (0.8, 0.7, 0.5), mesh.primitive_cylinder_add, radius=0.38, depth=0.12, vertices=6,
              location=(0.0, 0.0, 0.36))
    bpy.ops.object.select_all(action='DESELECT')
    for name in ("Head", "Bolt"):
        bpy.data.objects[name].select_set(True)
    bpy.context.view_layer.objects.active = bpy.data.objects["Bolt"]
    bpy.ops.object.join()
    settings = bpy.context.scene.collision_inspector
    settings.scope = 'ALL'
    run_operator("analyze")
    settings.active_result_index, settings.overlap_see_through = 0, True


def self_crossing_scene() -> None:
    """A bracket made of two boxes joined into one object that overlap (its faces cross, a volume covered twice), a
    torus whose tube is thicker than its hole (it passes through itself) and a clean cube, checked for
    self-intersections."""
    remove_all_objects()
    mesh = bpy.ops.mesh
    add_shape("Bracket Upright", (0.55, 0.65, 0.8), mesh.primitive_cube_add, size=1.0, location=(0.0, 0.0, 0.5),
              scale=(0.3, 0.8, 1.0))
    add_shape("Bracket Foot", (0.55, 0.65, 0.8), mesh.primitive_cube_add, size=1.0, location=(0.3, 0.0, 0.1),
              scale=(0.9, 0.8, 0.2))
    bpy.ops.object.select_all(action='DESELECT')
    for name in ("Bracket Foot", "Bracket Upright"):
        bpy.data.objects[name].select_set(True)
    bpy.context.view_layer.objects.active = bpy.data.objects["Bracket Upright"]
    bpy.ops.object.join()
    bpy.context.active_object.name = "Bracket Upright"
    add_shape("Thick Torus", (0.8, 0.7, 0.5), mesh.primitive_torus_add, major_radius=0.35, minor_radius=0.45,
              location=(1.9, 0.6, 0.45))
    add_shape("Cube", (0.6, 0.8, 0.6), mesh.primitive_cube_add, size=0.6, location=(1.8, -1.0, 0.3))
    for obj in bpy.data.objects:
        obj.select_set(True)
    run_operator("self_check")


def glide_balls(then: Callable[[], None]) -> None:
    """Move every ball ``GLIDE_STEPS`` times by ``GLIDE_STEP``, an update each, then make a result answered from its
    last distance (bounds) the active one and call ``then`` once the sidebar has drawn it, before the pairs are
    measured exactly (``SETTLE_SECONDS`` after the last update)."""
    balls, steps = [obj for obj in bpy.data.objects if obj.name.startswith("Ball")], iter(range(GLIDE_STEPS))
    settings = bpy.context.scene.collision_inspector
    settings.select_on_click = False  # the view stays on all the pairs
    live = sys.modules[f"{PACKAGE_NAME}.analysis.live"]
    # A drag sends updates as long as the mouse moves, so the pairs are not measured exactly in between; the timers
    # here come further apart on this virtual screen than that, so the countdown is stretched for the picture.
    live.SETTLE_SECONDS = 5.0

    def step() -> float | None:
        if next(steps, None) is None:
            bounded = [k for k, result in enumerate(settings.results) if result.distance_is_estimate]
            if not bounded:
                raise SystemExit("screenshot: no pair was answered from its last distance")
            settings.active_result_index = bounded[0]
            bpy.app.timers.register(then, first_interval=0.05)
            return None
        for ball in balls:
            ball.location += GLIDE_STEP
        bpy.context.view_layer.update()
        return DRAG_INTERVAL

    def when_prepared() -> float | None:
        """Glide once the objects opened with the file are prepared, as a user who waits a moment would."""
        if live.preparing():
            return DRAG_INTERVAL
        bpy.app.timers.register(step, first_interval=DRAG_INTERVAL)
        return None

    bpy.app.timers.register(when_prepared, first_interval=DRAG_INTERVAL)


class Shot(NamedTuple):
    """How a shot's scene is made, where the viewport looks from and at, the sidebar panels to open, what
    happens in the interface before the capture (given the capture to call), whether the viewport is maximised
    and its sidebar scrolled to the end (always with panels to open: the end of the active result's details), and
    whether the objects stay selected (else nothing is, for a clearer picture)."""

    build: Callable[[], None]
    eye: Vector
    target: Vector
    panels: tuple = ()
    action: Callable[[Callable[[], None]], None] | None = None
    scrolled: bool = False
    selected: bool = False


SHOTS = {
    'overlay': Shot(analysed_demo_scene, CAMERA_LOCATION, CAMERA_TARGET),
    'inspect': Shot(scanned_drop_scene, SCAN_VIEW_FROM, SCAN_VIEW_AT, ("COLLISION_INSPECTOR_PT_inspect",)),
    'drag': Shot(ball_in_ring_scene, DRAG_VIEW_FROM, DRAG_VIEW_AT, action=drag_ball),
    'overlap': Shot(ball_in_block_scene, OVERLAP_VIEW_FROM, OVERLAP_VIEW_AT, ("COLLISION_INSPECTOR_PT_display",)),
    'glide': Shot(balls_above_rings_scene, GLIDE_VIEW_FROM, GLIDE_VIEW_AT, action=glide_balls, scrolled=True),
    'bolt': Shot(bolt_in_plate_scene, BOLT_VIEW_FROM, BOLT_VIEW_AT, scrolled=True),
    'selfcheck': Shot(self_crossing_scene, SELF_VIEW_FROM, SELF_VIEW_AT, ("COLLISION_INSPECTOR_PT_self_check",),
                      selected=True),  # the checked objects (unselected, Check is greyed out)
}


def save_scene(path: Path, shot: str) -> None:
    """Build the shot's scene, deselect everything unless the shot keeps the selection, and save it."""
    SHOTS[shot].build()
    for obj in bpy.context.selected_objects:
        obj.select_set(SHOTS[shot].selected)
    bpy.ops.wm.save_as_mainfile(filepath=str(path))


def viewport() -> tuple[bpy.types.Area, bpy.types.Region]:
    """The largest 3D viewport of the window and its sidebar region."""
    areas = [area for area in bpy.context.window.screen.areas if area.type == 'VIEW_3D']
    area = max(areas, key=lambda a: a.width * a.height)
    return area, next(region for region in area.regions if region.type == 'UI')


def frame_view(area: bpy.types.Area, eye: Vector, target: Vector) -> None:
    """Look at ``target`` from ``eye``'s direction, objects in their colours, sidebar shown."""
    space = area.spaces.active
    space.show_region_ui = True
    space.shading.type = 'SOLID'
    space.shading.color_type = 'OBJECT'
    view = space.region_3d
    view.view_perspective = 'PERSP'
    view.view_location = target
    view.view_rotation = (target - eye).to_track_quat('-Z', 'Y')
    view.view_distance = (eye - target).length * 0.65


def open_panels(names: tuple) -> None:
    """Show these sidebar sub-panels open: registered again without 'DEFAULT_CLOSED' before the sidebar
    first draws them (Blender has no call that opens a panel)."""
    for name in names:
        panel = getattr(bpy.types, name)
        bpy.utils.unregister_class(panel)
        panel.bl_options = set(panel.bl_options) - {'DEFAULT_CLOSED'}
        bpy.utils.register_class(panel)


def maximise(area: bpy.types.Area) -> tuple[bpy.types.Area, bpy.types.Region]:
    """Make ``area`` fill the window without the top bar and headers (more room for the sidebar); the
    maximised viewport and its sidebar."""
    with bpy.context.temp_override(window=bpy.context.window, area=area):
        bpy.ops.screen.screen_full_area(use_hide_panels=True)
    return viewport()


def scroll_to_end(window: bpy.types.Window, area: bpy.types.Area, region: bpy.types.Region) -> None:
    """Scroll the sidebar to the end of its panels (the last opened sub-panel whole on screen)."""
    with bpy.context.temp_override(window=window, area=area, region=region):
        for _page in range(SCROLL_PAGES):
            bpy.ops.view2d.scroll_down(page=True)


def capture(path: Path, shot: str) -> None:
    """Open the Collision tab, wait for the redraw, capture the screen, quit."""
    _build, eye, target, panels, action, scrolled, _selected = SHOTS[shot]
    scrolled = scrolled or bool(panels)
    # Blender opened the file before this script registered the add-on: what its load handler does happens now
    sys.modules[f"{PACKAGE_NAME}.analysis.live"].on_data_replaced()
    open_panels(panels)
    window = bpy.context.window
    area, sidebar = viewport()
    if scrolled:
        area, sidebar = maximise(area)
    frame_view(area, eye, target)

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
        bpy.app.timers.register(scroll if scrolled else finish, first_interval=SECONDS_BEFORE_CAPTURE)
        return None

    def scroll() -> None:
        scroll_to_end(window, area, sidebar)
        bpy.app.timers.register(finish, first_interval=SECONDS_BEFORE_CAPTURE)

    def finish() -> None:
        if action is None:
            grab()
        else:
            action(scroll_and_grab if scrolled else grab)

    def scroll_and_grab() -> None:
        """The action may have added lines to the sidebar: scroll to its end again, let it draw, capture."""
        scroll_to_end(window, area, sidebar)
        bpy.app.timers.register(grab, first_interval=0.3)

    def grab() -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["import", "-window", "root", str(path)], check=True)
        print(f"screenshot: {path}")
        bpy.ops.wm.quit_blender()

    bpy.app.timers.register(open_tab, first_interval=TAB_RETRY_SECONDS)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="screenshot_ui.py")
    parser.add_argument("--shot", choices=tuple(SHOTS), default='overlay', help="which picture (default overlay)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--save-scene", type=Path, help="build, analyse (or scan) and save the shot's scene here")
    mode.add_argument("--capture", type=Path, help="PNG to write from the running interface")
    arguments = parser.parse_args(argv[argv.index("--") + 1:] if "--" in argv else [])
    load_registered_addon()
    if arguments.save_scene:
        save_scene(arguments.save_scene.resolve(), arguments.shot)
    else:
        capture(arguments.capture.resolve(), arguments.shot)


main(sys.argv)
