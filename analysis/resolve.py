"""Resolve: move object B of a penetrating pair out of A by the certified push-out (plus an optional
clearance), then measure again; objects that cannot move are refused with the reason (``ResolveRefused``).
See docs/architecture.md, "Resolve".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import bpy
import numpy as np
from mathutils import Vector

from ..core.steps import Steps, run_to_end
from . import analysed_shapes
from .remeasure import remeasure_steps, stored_sources
from .shapes import INSTANCE_SEPARATOR, current_name
from .solid_cache import SolidCache
from .store import result_pair
from . import tracking

#: ``resolve_all`` gives up after this many rounds by default (moving B out of A may push it into C).
MAX_ROUNDS = 10


class ResolveRefused(ValueError):
    """The pair cannot be resolved; the message says why, naming the objects."""


def immovable_reason(result) -> str:
    """Why object B of ``result`` cannot be moved ('' when it can)."""
    name_b = result_pair(result)[1]
    obj = result.object_b
    if INSTANCE_SEPARATOR in result.name_b:
        instancer, shown = current_name(obj, result.name_b).split(INSTANCE_SEPARATOR, 1)
        return (f"it is {shown} shown by the collection instance {instancer}, which places all its objects "
                f"together: move {instancer}, or {shown} in its collection")
    if obj is None:
        return f"{name_b} no longer exists"
    if obj.library is not None:
        return f"{obj.name} is linked from {obj.library.filepath}: make it local first"
    if all(obj.lock_location):
        return f"{obj.name}'s location is locked"
    return ""


def push_out(result, clearance: float = 0.0) -> np.ndarray:
    """The world-space move of B that separates a penetrating pair, plus ``clearance`` along the normal."""
    return (result.depth + clearance) * np.asarray(result.normal, dtype=np.float64)


def move_in_world(obj: bpy.types.Object, offset: np.ndarray) -> None:
    """Move ``obj`` by the world-space ``offset`` (its parent, if any, stays where it is)."""
    matrix = obj.matrix_world.copy()
    matrix.translation = matrix.translation + Vector(offset.tolist())
    obj.matrix_world = matrix


def _pairs_of(scene: bpy.types.Scene, obj: bpy.types.Object) -> list[int]:
    """Indices of the stored results that ``obj`` belongs to."""
    return tracking.objects_of_results(scene, scene.collision_inspector.results).get(obj.as_pointer(), (None, []))[1]


def resolve(context: bpy.types.Context, index: int, clearance: float = 0.0,
            cache: SolidCache | None = None) -> np.ndarray:
    """Move B of result ``index`` out of A (plus ``clearance``) and measure B's pairs again; the offset.

    Raises ``ResolveRefused`` when the index is out of range, the pair does not penetrate, or B cannot move.
    """
    offset, _undo, steps = start_resolve(context, index, clearance, cache)
    run_to_end(steps)
    return offset


def start_resolve(context: bpy.types.Context, index: int, clearance: float = 0.0,
                  cache: SolidCache | None = None) -> tuple[np.ndarray, Callable[[], None], Steps[list[int]]]:
    """``(offset, undo, steps)``: B of result ``index`` moved out of A (plus ``clearance``), and the measuring of
    B's pairs again as steps (``analysis.remeasure.remeasure_steps``), for a caller that runs them a slice at a
    time; ``undo()`` puts B back where it was (for a caller that abandons the steps: nothing was stored yet).

    Raises ``ResolveRefused`` when the index is out of range, the pair does not penetrate, or B cannot move.
    """
    scene = context.scene
    results = scene.collision_inspector.results
    if not 0 <= index < len(results):
        raise ResolveRefused(f"No result {index} (there are {len(results)})")
    result = results[index]
    if result.status != 'penetrating':
        raise ResolveRefused(f"{result.label} does not penetrate ({result.status}): nothing to resolve")
    reason = immovable_reason(result)
    if reason:
        raise ResolveRefused(f"Cannot move {current_name(result.object_b, result.name_b)}: {reason}")
    offset = push_out(result, clearance)
    obj = result.object_b
    placed = obj.matrix_world.copy()
    move_in_world(obj, offset)
    context.view_layer.update()

    def undo() -> None:
        obj.matrix_world = placed
        context.view_layer.update()

    depsgraph = context.evaluated_depsgraph_get()
    indices = _pairs_of(scene, obj)
    if cache is None:
        cache = analysed_cache(scene, depsgraph, indices)
    return offset, undo, remeasure_steps(scene, depsgraph, indices, cache)


def analysed_cache(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, indices: Iterable[int]) -> SolidCache:
    """A solid cache holding the shapes the analysis read of the objects of the results at ``indices`` whose
    geometry is still what was read (``analysis.analysed_shapes``): moved where they are now, not read again."""
    cache = SolidCache()
    sources = [source for pair in stored_sources(depsgraph, scene.collision_inspector.results, indices).values()
               for source in pair]
    analysed_shapes.lend(cache, sources, depsgraph, scene.collision_inspector.use_hulls)
    return cache


@dataclass
class ResolveAllTally:
    """Where ``start_resolve_all``'s steps stand: B moves made (each complete: B moved and its pairs measured again),
    the labels of the pairs still penetrating once they end, and ``{label: reason}`` of those refused."""

    moves: int = 0
    remaining: list[str] = field(default_factory=list)
    refusals: dict[str, str] = field(default_factory=dict)


def resolve_all(context: bpy.types.Context, clearance: float = 0.0, max_rounds: int = MAX_ROUNDS) -> tuple:
    """``start_resolve_all``'s steps run to the end at once: ``(moves, still penetrating: [labels], refusals:
    {label: reason})``."""
    tally, steps = start_resolve_all(context, clearance, max_rounds)
    run_to_end(steps)
    return tally.moves, tally.remaining, tally.refusals


def start_resolve_all(context: bpy.types.Context, clearance: float = 0.0,
                      max_rounds: int = MAX_ROUNDS) -> tuple[ResolveAllTally, Steps[None]]:
    """``(tally, steps)``: resolve every penetrating stored pair, round after round, until none penetrates, as steps
    for a caller that runs them a slice at a time (``tally`` says how far they got).

    Each round measures each penetrating pair afresh (an earlier move may have changed it) and moves its B; the
    loop stops early when a round could move nothing. Closed early, the moves made so far stay (their pairs
    measured again) and a B being moved goes back where it was.
    """
    tally = ResolveAllTally()
    return tally, _resolve_all_steps(context, clearance, max_rounds, tally)


def _resolve_all_steps(context: bpy.types.Context, clearance: float, max_rounds: int,
                       tally: ResolveAllTally) -> Steps[None]:
    """The steps of ``start_resolve_all``, filling ``tally``."""
    scene = context.scene
    results = scene.collision_inspector.results
    penetrating = [index for index, result in enumerate(results) if result.status == 'penetrating']
    cache = analysed_cache(scene, context.evaluated_depsgraph_get(), penetrating)
    refusals = {}
    for _round in range(max_rounds):
        penetrating = [index for index, result in enumerate(results) if result.status == 'penetrating']
        movable = []
        for index in penetrating:
            reason = immovable_reason(results[index])
            if reason:
                refusals[results[index].label] = reason
            else:
                movable.append(index)
        if not movable:
            break
        for index in movable:
            yield from remeasure_steps(scene, context.evaluated_depsgraph_get(), [index], cache)
            if results[index].status == 'penetrating':
                _offset, undo, steps = start_resolve(context, index, clearance, cache)
                measured = False
                try:
                    yield from steps
                    measured = True
                finally:
                    if not measured:
                        undo()
                tally.moves += 1
    tally.remaining = [result.label for result in results if result.status == 'penetrating']
    tally.refusals = {label: reason for label, reason in refusals.items() if label in tally.remaining}
