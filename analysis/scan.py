"""Animation scan: the scope's pairs at every frame of a range; per pair its contact intervals, first contact,
deepest frame and depth, and the depth at each frame. Objects are read once and moved with their animation;
the full answer is measured once per pair, at its worst frame (docs/architecture.md, "Animation scan").
Warm starts begin afresh every ``farm.plan.SCAN_BLOCK`` frames, so that a shard of the scan (``shard``) measures
each of its frames as the whole scan does (docs/architecture.md, "Shards that merge exactly").
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from itertools import combinations

import bpy
import numpy as np

from ..core import overlapping_pairs
from ..core.narrowphase.batch import screen_many
from ..core.mesh import CONVEX, HULL, collide_solids
from ..core.mesh.contact.result import pair_method
from ..core.narrowphase.warm_epa import signed_distances_warm
from ..farm.plan import SCAN_BLOCK, frame_chunk, scan_blocks
from .clash import clash_result, start_check
from .clash_report import ClashReport, pair_status
from .geometry import ObjectGeometryError
from .inspect import MeasureModes, broad_phase_bounds, measure_in_mode, measure_modes, record_modes, rigid_shape
from .remeasure import measure_pairs
from .scope import allowed_pairs, scope_sides
from .shapes import instanced_sources, read_solid, scope_sources
from .solid_cache import SolidCache

#: The per-frame signed distances are measured to this fraction of the smallest object's size (see
#: ``_frame_tolerance``); each pair's worst frame is then measured again with the scene's tolerance.
FRAME_RELATIVE_TOLERANCE = 1e-6


def geometry_may_change(obj: bpy.types.Object) -> bool:
    """True when ``obj``'s evaluated geometry may differ between frames (modifiers, shape keys, animated
    mesh data): it is read at every frame instead of moved."""
    data = obj.data
    return (obj.type != 'MESH' or len(obj.modifiers) > 0 or getattr(data, "shape_keys", None) is not None
            or getattr(data, "animation_data", None) is not None)


def contact_intervals(frames: np.ndarray, in_contact: np.ndarray) -> tuple:
    """``((first, last), ...)`` runs of consecutive scanned frames in contact."""
    flags = np.concatenate([[False], in_contact, [False]]).astype(np.int8)
    starts, ends = np.flatnonzero(np.diff(flags) == 1), np.flatnonzero(np.diff(flags) == -1) - 1
    return tuple((int(frames[s]), int(frames[e])) for s, e in zip(starts, ends))


def start_scan(scene: bpy.types.Scene, depsgraph: bpy.types.Depsgraph, *, frame_start: int, frame_end: int,
               scope: str, every_pair: bool = False, shard: tuple[int, int] | None = None,
               **options) -> tuple[ClashReport, Iterator[tuple[int, int]]]:
    """``(report, steps)``: the scan as a generator, a frame per step (``(done, total)`` frames).

    ``scope`` and the keyword options are those of ``analysis.clash.start_check`` (scope, collections,
    clearance, thresholds, hulls, modes: the scene's by default, written into the report's header). Once
    the steps are exhausted (or closed early: ``report.cancelled``) ``report.results`` holds, per pair in
    contact or within the clearance at some frame (every allowed pair with ``every_pair``), the answer at its
    worst frame with the scan fields of ``ClashResult``.
    ``shard`` ``(K, N)`` scans only shard K's run of frames (``farm.plan.frame_chunk``) and keeps in
    ``report.shard`` what merging the shards needs (see ``ClashReport``).
    ValueError for an empty or reversed frame range, or a shard without frames.
    """
    if frame_end < frame_start:
        raise ValueError(f"the frame range {frame_start}-{frame_end} is empty")
    frames = (frame_start, frame_end)
    if shard is not None:
        frames = frame_chunk(frame_start, frame_end, *shard)
        if frames is None:
            blocks = scan_blocks(frame_start, frame_end)
            raise ValueError(f"shard {shard[0]}/{shard[1]} has no frames: frames {frame_start}-{frame_end} make "
                             f"{blocks} block(s) of {SCAN_BLOCK} frames, so at most {blocks} shard(s)")
    options['modes'] = measure_modes(scene) if options.get('modes') is None else options['modes']
    report, _unused = start_check(scene, depsgraph, scope=scope, every_pair=every_pair, **options)
    _unused.close()
    record_modes(report, scene.collision_inspector, options['modes'])
    if shard is not None:
        report.shard = {'index': shard[0], 'count': shard[1], 'frames': list(frames)}
    return report, _scan_steps(scene, depsgraph, report, scope, every_pair, frame_start, frames, options)


def _members(scene, depsgraph, scope: str, options: dict) -> tuple[list, set, set]:
    """The sources of the scope (sorted by name) and the names on each side."""
    side_a, side_b = scope_sides(scene, depsgraph, scope, options.get('objects'), options.get('active'),
                                  options.get('collection_a'), options.get('collection_b'))
    view_layer = scene.view_layers[depsgraph.view_layer.name]
    sources_a = scope_sources(side_a, view_layer, depsgraph, {})
    sources_b = sources_a if side_b is side_a else scope_sources(side_b, view_layer, depsgraph, {})
    members = sorted({s.name: s for s in (*sources_a, *sources_b)}.values(), key=lambda s: s.name)
    return members, {s.name for s in sources_a}, {s.name for s in sources_b}


def _placed(members: list, depsgraph) -> list:
    """The members at the current frame: instanced objects placed by their instance's matrix now (None when
    no longer shown), objects as they are."""
    instancers = {source.owner for source in members if source.matrix is not None}
    shown = instanced_sources(instancers, depsgraph) if instancers else {}
    return [source if source.matrix is None else shown.get(source.name) for source in members]


def _frame_shapes(members: list, depsgraph, cache: SolidCache, use_hulls: bool, modes: MeasureModes,
                  skipped: dict) -> tuple[list, list]:
    """``(solids, rigid-body shapes)`` of the members at the current frame (a solid is None when the member
    cannot be measured there; a shape None when there is none or the modes do not use them)."""
    solids, shapes = [], []
    for member, source in zip(members, _placed(members, depsgraph)):
        solid = shape = None
        try:
            if source is None:
                raise ObjectGeometryError(f"{member.name} is not shown by its instancer at this frame")
            read = read_solid if geometry_may_change(source.obj) else cache.solid
            solid = read(source, depsgraph, use_hulls)
            shape = rigid_shape(source, depsgraph) if modes.rigid_bodies else None
        except ObjectGeometryError as error:
            skipped.setdefault(member.name, str(error).removeprefix(member.name).strip())
            solid = None
        solids.append(solid)
        shapes.append(shape)
    return solids, shapes


def _signed_distances(pairs: list, shapes: list, modes: MeasureModes, options: dict, keys: list,
                      warm: dict) -> np.ndarray:
    """Signed distance of each ``(solid, solid)`` pair: in the modes where they apply, else convex pairs by
    EPA from their previous frame's polytope (``warm``, under the pairs' ``keys``) when they overlapped there,
    the other convex pairs in one batch (GJK together, EPA for those that overlap), and the rest one by one."""
    moded = [None if modes.default else measure_in_mode(a, b, shape, modes, options)
             for (a, b), shape in zip(pairs, shapes)]
    distances = np.array([np.nan if answer is None else answer[0].signed_distance for answer in moded])
    usual = [k for k, answer in enumerate(moded) if answer is None]
    convex = [k for k in usual if pair_method(*pairs[k]) in (CONVEX, HULL)]
    overlapped = [k for k in convex if warm.get(keys[k]) is not None]
    batched = [k for k in convex if warm.get(keys[k]) is None]
    apart, contacts = screen_many([pairs[k][0].hull for k in batched], [pairs[k][1].hull for k in batched],
                                  solve_all=False, **options)
    distances[np.asarray(batched, dtype=np.int64)[apart.index]] = apart.signed_distance
    far = set(apart.index.tolist())
    for row, (k, contact) in enumerate(zip(batched, contacts)):
        if contact is not None:
            distances[k] = contact.signed_distance
        elif row not in far:
            overlapped.append(k)
    values, kept = signed_distances_warm([pairs[k][0].hull for k in overlapped], [pairs[k][1].hull for k in overlapped],
                                         [warm.get(keys[k]) for k in overlapped], **options)
    for k, value, start in zip(overlapped, values, kept):
        distances[k], warm[keys[k]] = value, start
    for k in sorted(set(usual) - set(convex)):
        distances[k] = collide_solids(*pairs[k], **options).signed_distance
    return distances


def _frame_tolerance(report: ClashReport, lows: np.ndarray, highs: np.ndarray) -> float:
    """The per-frame solver tolerance: ``FRAME_RELATIVE_TOLERANCE`` of the smallest object's size, but no
    coarser than half the touch tolerance (contact is told apart exactly) nor finer than the scene's."""
    smallest = float((highs - lows).max(axis=1).min())
    return max(report.tolerance, min(FRAME_RELATIVE_TOLERANCE * smallest, 0.5 * report.touch_tolerance))


def _scan_steps(scene, depsgraph, report: ClashReport, scope: str, every_pair: bool, first_frame: int,
                frame_range: tuple[int, int], options: dict) -> Iterator[tuple[int, int]]:
    """Step through the frames of ``frame_range`` (see ``start_scan``; objects read at ``first_frame``, blocks
    counted from there), then build the results; restore the frame."""
    started = time.perf_counter()
    frame, subframe = scene.frame_current, scene.frame_subframe
    members, names_a, names_b = _members(scene, depsgraph, scope, options)
    use_hulls = scene.collision_inspector.use_hulls if options.get('use_hulls') is None else options['use_hulls']
    frames = np.arange(frame_range[0], frame_range[1] + 1)
    in_a = np.array([s.name in names_a for s in members], dtype=bool)
    in_b = np.array([s.name in names_b for s in members], dtype=bool)
    distances: dict[tuple[int, int], np.ndarray] = {}
    worst: dict[tuple[int, int], tuple] = {}
    cache, margin = SolidCache(), max(report.clearance, report.touch_tolerance)
    placements: list = [None] * len(members)  # where each member was at the first frame
    moving = np.array([geometry_may_change(member.obj) for member in members], dtype=bool)
    warm: dict[tuple[int, int], object] = {}
    modes = options['modes']
    try:
        if first_frame < frame_range[0]:  # read the objects where the whole scan reads them
            scene.frame_set(first_frame)
            _frame_shapes(members, depsgraph, cache, use_hulls, modes, {})
        for step, current in enumerate(frames.tolist()):
            scene.frame_set(current)
            if (current - first_frame) % SCAN_BLOCK == 0:
                warm.clear()
            solids, shapes = _frame_shapes(members, depsgraph, cache, use_hulls, modes, report.skipped)
            _note_moving(solids, placements, moving)
            present = [k for k, solid in enumerate(solids) if solid is not None]
            if len(present) >= 2:
                lows, highs = broad_phase_bounds([solids[k] for k in present], [shapes[k] for k in present], modes)
                local = (np.array(list(combinations(range(len(present)), 2)), dtype=np.int64).reshape(-1, 2)
                         if every_pair else overlapping_pairs(lows, highs, margin=margin))
                pairs = allowed_pairs(np.asarray(present)[local].reshape(-1, 2), in_a, in_b)
                frame_options = {"tolerance": _frame_tolerance(report, lows, highs),
                                 "touch_tolerance": report.touch_tolerance,
                                 "max_iterations": report.max_iterations or None}
                values = _signed_distances([(solids[i], solids[j]) for i, j in pairs],
                                           [(shapes[i], shapes[j]) for i, j in pairs], modes, frame_options,
                                           pairs, warm)
                for pair, value in zip(pairs, values.tolist()):
                    series = distances.setdefault(pair, np.full(len(frames), np.inf))
                    series[step] = value
                    if pair not in worst or value < worst[pair][0]:
                        worst[pair] = (value, current, (solids[pair[0]], solids[pair[1]]),
                                       (shapes[pair[0]], shapes[pair[1]]))
            yield step + 1, len(frames)
    finally:
        scene.frame_set(frame, subframe=subframe)
        report.results = _scan_results(report, members, frames, distances, worst, every_pair, modes, moving)
        report.candidate_pairs = len(distances)
        report.objects = len(members)
        report.seconds = time.perf_counter() - started


def _note_moving(solids: list, placements: list, moving: np.ndarray) -> None:
    """Mark in ``moving`` the members whose solid at this frame is missing or placed elsewhere than at the first
    frame (``placements``: the prepared shape and matrix each had there)."""
    for k, solid in enumerate(solids):
        if solid is None:
            moving[k] = True
        elif placements[k] is None:
            placements[k] = solid.placement
        elif not (solid.placement[0] is placements[k][0] and np.array_equal(solid.placement[1], placements[k][1])):
            moving[k] = True


def _scan_results(report: ClashReport, members: list, frames: np.ndarray, distances: dict, worst: dict,
                  every_pair: bool, modes: MeasureModes, moving: np.ndarray) -> list:
    """A result per pair that comes within the clearance (every pair with ``every_pair``), measured at its
    worst frame (as Analyse measures it there), with its contact intervals, first contact, deepest frame and
    the depth per frame; ``measured_frame`` None when neither object moved or changed (``moving``): the numbers
    hold at every scanned frame. A shard's report also keeps each pair's worst frame-by-frame value and frame (the
    listed ones in ``report.shard['worst']``, the others in ``report.shard['unlisted']``) for merging."""
    results, worst_listed, unlisted = [], [], []
    report.separated = 0
    order = sorted(distances, key=lambda pair: (members[pair[0]].name, members[pair[1]].name))
    options = {"tolerance": report.tolerance, "touch_tolerance": report.touch_tolerance,
               "max_iterations": report.max_iterations or None}
    answers = measure_pairs([worst[pair][2] for pair in order], [worst[pair][3] for pair in order], modes,
                            options, report.clearance)
    for (i, j), (contact, note) in zip(order, answers):
        series, at = distances[(i, j)], worst[(i, j)][1]
        status = pair_status(contact.signed_distance, contact.status, report.clearance)
        if status == 'separated':
            report.separated += 1
            if not every_pair:
                unlisted.append([members[i].name, members[j].name, worst[(i, j)][0], at])
                continue
        worst_listed.append([worst[(i, j)][0], at])
        in_contact = series <= report.touch_tolerance
        intervals = contact_intervals(frames, in_contact)
        penetrating = series < -report.touch_tolerance
        results.append(replace(
            clash_result(members[i].name, members[j].name, status, contact, worst[(i, j)][2], note),
            first_contact_frame=int(frames[in_contact.argmax()]) if in_contact.any() else None,
            deepest_frame=int(at) if penetrating.any() else None,
            max_depth=float(max(-series.min(), 0.0)),
            contact_intervals=intervals,
            depth_series=tuple(np.maximum(-np.where(np.isfinite(series), series, 0.0), 0.0).tolist()),
            measured_frame=int(at) if moving[i] or moving[j] else None,
        ))
    if report.shard is not None:
        report.shard.update(worst=worst_listed, unlisted=unlisted)
    return results


#: Timeline markers added by a scan start with this (a later scan replaces them, others stay).
MARKER_PREFIX = "Clash: "


def mark_first_contacts(scene: bpy.types.Scene, results: list) -> int:
    """Replace the scan's timeline markers with one per pair at its first contact; how many were added."""
    markers = scene.timeline_markers
    for marker in [m for m in markers if m.name.startswith(MARKER_PREFIX)]:
        markers.remove(marker)
    added = [markers.new(f"{MARKER_PREFIX}{r.object_a} \u2194 {r.object_b}", frame=r.first_contact_frame)
             for r in results if r.first_contact_frame is not None]
    return len(added)


def sparkline(depths: np.ndarray, width: int = 32) -> str:
    """The depth over the frames as a line of block characters (the maximum of each of ``width`` slices),
    ' ' where the pair does not penetrate."""
    if len(depths) == 0:
        return ""
    slices = np.array_split(np.asarray(depths, dtype=np.float64), min(width, len(depths)))
    peaks = np.array([piece.max() for piece in slices])
    top = peaks.max()
    if top <= 0.0:
        return "\u2581" * len(peaks)
    levels = np.ceil(peaks / top * 8).astype(int)
    return "".join(" " if level == 0 else chr(0x2580 + level) for level in levels.tolist())
