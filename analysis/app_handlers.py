"""Adding functions to Blender's app handler lists (``bpy.app.handlers``) once each, and removing them.

A reloaded add-on module brings new function objects: removal matches by module and name, so the copies an
earlier import left are removed too.
"""

from collections.abc import Callable

import bpy

#: The handler lists called when every ID is new data: a file loaded, an undo, a redo.
DATA_REPLACED = ("load_post", "undo_post", "redo_post")


def add_handler(function: Callable, *lists: str) -> None:
    """Append ``function`` to each of the ``bpy.app.handlers`` lists named, once (earlier copies removed)."""
    remove_handler(function, *lists)
    for name in lists:
        getattr(bpy.app.handlers, name).append(function)


def remove_handler(function: Callable, *lists: str) -> None:
    """Remove ``function``, and copies of it from an earlier import of its module, from the lists named."""
    for name in lists:
        handler_list = getattr(bpy.app.handlers, name)
        for existing in list(handler_list):
            if (getattr(existing, "__qualname__", None), getattr(existing, "__module__", None)) == (
                    function.__qualname__, function.__module__):
                handler_list.remove(existing)
