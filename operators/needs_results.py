"""``_NeedsResults``: the poll of every operator that works on stored results (greyed out with a reason)."""

import bpy


class _NeedsResults:
    """``poll()`` is True when the scene has results; otherwise the button's tooltip gives ``no_results``."""

    no_results = "No results: analyse first"

    @classmethod
    def poll(cls, context: bpy.types.Context) -> bool:
        if not context.scene.collision_inspector.results:
            cls.poll_message_set(cls.no_results)
            return False
        return True
