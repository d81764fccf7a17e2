"""Select a result's two objects and frame its contact in the 3D viewports.

Shared by the Show/Next/Previous operators and the results list (clicking a row with Select on Click):
``ui`` never imports ``operators``, so the work lives here.
"""

from __future__ import annotations

import math

from ..analysis.ordering import contact_frame

#: Half the sensor width Blender's viewport uses for its lens (mm), to turn the lens into a field of view.
VIEW_HALF_SENSOR = 36.0


def frame_views(screen, centre: tuple, radius: float) -> int:
    """Centre every 3D viewport of ``screen`` on the sphere ``(centre, radius)`` and zoom it to fit; returns
    how many views were framed (0 without a screen, as in background mode)."""
    framed = 0
    for area in screen.areas if screen is not None else ():
        if area.type != 'VIEW_3D':
            continue
        space = area.spaces.active
        view = space.region_3d
        view.view_location = centre
        if view.is_perspective:
            half_angle = math.atan(VIEW_HALF_SENSOR / space.lens)
            view.view_distance = radius / math.sin(half_angle)
        else:
            view.view_distance = 2.0 * radius
        area.tag_redraw()
        framed += 1
    return framed


def show_pair(context, index: int) -> bool:
    """Select the two objects of result ``index`` (A active) and frame its contact; False when there is
    no such result."""
    settings = context.scene.collision_inspector
    if not 0 <= index < len(settings.results):
        return False
    result = settings.results[index]
    view_layer = context.view_layer
    pair = [obj for obj in (result.object_a, result.object_b) if obj is not None and obj.name in view_layer.objects]
    for obj in view_layer.objects:
        obj.select_set(obj in pair)
    if result.object_a in pair:
        view_layer.objects.active = result.object_a
    frame_views(getattr(context, "screen", None), *contact_frame(result.point_a, result.point_b,
                                                                 result.signed_distance))
    return True
