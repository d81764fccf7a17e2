"""The result of a scene-wide clash check and its JSON and CSV forms (standard library only).

``analysis.clash.check_scene`` fills a ``ClashReport``; ``write_json`` and ``write_csv`` save it for
reviewers and pipelines. Nothing here imports bpy, so reports can be read and written anywhere.
"""

from __future__ import annotations

import csv
import json
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

#: The clash statuses, most severe first. 'separated' pairs are counted but not listed.
CLASH_STATUSES = ('penetrating', 'touching', 'clearance')
STATUSES = (*CLASH_STATUSES, 'separated')


def pair_status(signed_distance: float, core_status: str, clearance: float) -> str:
    """'penetrating' / 'touching' come from the core; a separated pair closer than the clearance is 'clearance'."""
    if core_status == 'separated' and signed_distance < clearance:
        return 'clearance'
    return core_status


#: Columns of the CSV file, one row per clash (vectors are split into x, y, z columns).
CSV_COLUMNS = (
    'object_a', 'object_b', 'status', 'signed_distance',
    'normal_x', 'normal_y', 'normal_z',
    'point_a_x', 'point_a_y', 'point_a_z',
    'point_b_x', 'point_b_y', 'point_b_z',
    'solver_status', 'review_state', 'method', 'overlap_volume', 'volume_certainty', 'volume_error',
    'depth_lower_bound', 'depth_is_estimate',
    'distance_lower_bound', 'distance_is_estimate', 'region_area', 'first_contact_frame', 'deepest_frame',
    'max_depth', 'contact_intervals', 'mesh_note',
)

MANIFEST = Path(__file__).resolve().parents[1] / "blender_manifest.toml"


@lru_cache(maxsize=1)
def extension_version() -> str:
    """The add-on's version, from the ``blender_manifest.toml`` shipped next to it."""
    with MANIFEST.open("rb") as manifest:
        return str(tomllib.load(manifest)["version"])


@dataclass(frozen=True)
class ClashResult:
    """One clashing pair. Conventions are those of ``core.Contact`` (normal from A toward B, world space).

    ``status`` is 'penetrating', 'touching' (|signed distance| <= touch tolerance) or 'clearance'
    (apart, but closer than the clearance distance). ``review_state`` is the reviewer's verdict
    ('new' until someone reviews it). ``method`` says how the pair was measured ('convex', 'parts',
    'mesh' or 'hull', see ``core.mesh.solid``); ``overlap_volume`` is the volume both objects enclose
    (world units³; None when an object is open or hulls were measured) and ``volume_certainty`` how sure it is:
    'exact' (both objects closed, after welding coincident vertices), 'approximate' (an object nearly closed, its
    small holes capped, or an object's overlapping parts with their shared space bounded, not measured: within
    ``volume_error`` world units³) or 'none' (no volume: an open surface, or hulls);
    ``mesh_note`` names what repairing the objects' triangles changed (open and non-manifold edges, parts or faces
    turned over, faces ignored: ``analysis.mesh_notes``); a push-out (``-signed_distance``
    of a penetrating pair) is at least ``depth_lower_bound`` and may be larger than needed when
    ``depth_is_estimate``; a distance is at most ``signed_distance`` and at least ``distance_lower_bound`` when
    ``distance_is_estimate`` (answered from the last exact distance while objects moved); ``curves`` are the
    polylines where the surfaces cross; ``note`` names objects whose convex hull (measured because hulls were
    asked for) is larger than the object. ``region`` is
    the contact region of convex pairs in contact (its points on A: one point, a segment's two ends or a
    polygon's corners) and ``region_area`` its area (0 for points and segments).

    An animation scan (``analysis.scan``) measures the pair at every frame and stores its worst frame
    (the numbers above), ``first_contact_frame`` (first frame touching or penetrating), ``deepest_frame``
    and ``max_depth`` (deepest penetration, 0 when it never penetrates), ``contact_intervals``
    (``((first, last), ...)`` frames in contact) and ``depth_series`` (the depth at each scanned frame,
    for the panel's plot; not written to reports), and ``measured_frame``, the worst frame whose numbers these are
    (for the overlay, which draws them at that frame only; None when neither object moved or changed in the scanned
    frames; not written either). Outside a scan the frames are None.
    ``volume_pending``: measured while objects move (live update), without the overlap volume (None), which
    follows once they stop.
    """

    object_a: str
    object_b: str
    status: str
    signed_distance: float
    normal: tuple[float, float, float]
    point_a: tuple[float, float, float]
    point_b: tuple[float, float, float]
    solver_status: str
    review_state: str = 'new'
    method: str = 'convex'
    overlap_volume: float | None = 0.0
    volume_certainty: str = 'exact'
    volume_error: float = 0.0
    mesh_note: str = ''
    depth_lower_bound: float = 0.0
    depth_is_estimate: bool = False
    distance_lower_bound: float = 0.0
    distance_is_estimate: bool = False
    curves: tuple = ()
    note: str = ''
    region: tuple = ()
    region_area: float = 0.0
    first_contact_frame: int | None = None
    deepest_frame: int | None = None
    max_depth: float | None = None
    contact_intervals: tuple = ()
    depth_series: tuple = ()
    measured_frame: int | None = None
    volume_pending: bool = False

    def as_dict(self) -> dict:
        return {
            'object_a': self.object_a, 'object_b': self.object_b, 'status': self.status,
            'signed_distance': self.signed_distance, 'normal': list(self.normal),
            'point_a': list(self.point_a), 'point_b': list(self.point_b),
            'solver_status': self.solver_status, 'review_state': self.review_state,
            'method': self.method, 'overlap_volume': self.overlap_volume,
            'volume_certainty': self.volume_certainty, 'volume_error': self.volume_error, 'mesh_note': self.mesh_note,
            'depth_lower_bound': self.depth_lower_bound, 'depth_is_estimate': self.depth_is_estimate,
            'distance_lower_bound': self.distance_lower_bound, 'distance_is_estimate': self.distance_is_estimate,
            'curves': [[list(point) for point in curve] for curve in self.curves], 'note': self.note,
            'region': [list(point) for point in self.region], 'region_area': self.region_area,
            'first_contact_frame': self.first_contact_frame, 'deepest_frame': self.deepest_frame,
            'max_depth': self.max_depth, 'contact_intervals': [list(interval) for interval in self.contact_intervals],
        }

    def csv_row(self) -> list:
        volume = '' if self.overlap_volume is None else repr(self.overlap_volume)
        return [self.object_a, self.object_b, self.status, repr(self.signed_distance),
                *map(repr, self.normal), *map(repr, self.point_a), *map(repr, self.point_b),
                self.solver_status, self.review_state, self.method, volume, self.volume_certainty,
                repr(self.volume_error), repr(self.depth_lower_bound),
                str(self.depth_is_estimate).lower(), repr(self.distance_lower_bound),
                str(self.distance_is_estimate).lower(), repr(self.region_area),
                *('' if value is None else repr(value)
                  for value in (self.first_contact_frame, self.deepest_frame, self.max_depth)),
                intervals_text(self.contact_intervals), self.mesh_note]


def intervals_text(intervals) -> str:
    """``((1, 10), (40, 40))`` as "1-10 40" (frames in contact, as the CSV and the panel show them)."""
    return " ".join(f"{first}-{last}" if last != first else f"{first}" for first, last in intervals)


@dataclass
class ClashReport:
    """What a clash check found, and under which settings.

    * ``results``: the clashes (penetrating, touching, clearance), sorted by ``(object_a, object_b)``.
    * ``objects``: how many objects took part; ``candidate_pairs``: pairs whose clearance-inflated
      bounding boxes overlap (the only ones GJK/EPA saw); ``possible_pairs``: pairs the scope allows
      (what a brute-force check would have tested).
    * ``separated``: candidate pairs found farther apart than the clearance. Every-pair checks (the
      panel's Selected and Active scopes) list them too: in ``results`` when measured one by one, the many
      that a batch found apart as column chunks in ``separated_rows`` (``analysis.separated.SeparatedRows``);
      the scene's stored results hold both, sorted together.
    * ``skipped``: ``{name: reason}`` of objects in the scope that were not measured (not evaluated or
      not visible in the view layer, or without measurable geometry).
    * ``resolved``: stored pairs marked 'resolved' by the review (clashes that a later analysis no longer
      found); they are not in ``results`` (reports written from the panel's stored results).
    * ``cancelled``: the progress callback stopped the check; ``results`` then hold the pairs done so far.
    * ``blend_file`` ('' when unsaved), ``blender_version``, ``time`` (ISO 8601, UTC, when the check
      started), ``seconds`` (how long it took).
    * How the pairs were measured: ``plane_mode`` ('NONE', or the plane: 'TOP', 'FRONT', 'SIDE', 'VIEW',
      'CUSTOM') and ``plane_normal`` (its unit normal, None without a plane); ``rigid_body_shapes``: objects
      with a rigid body were measured as their physics shapes (False in plane mode, which wins over them).
    * ``shard``: None, or for one shard of a check (``check --shard K/N``) what ``farm.merge`` needs to join
      the shards: ``index`` (K), ``count`` (N) and, for an animation scan, ``frames`` (the ones it scanned),
      ``worst`` (per result: the frame-by-frame signed distance at its worst frame, and that frame) and
      ``unlisted`` (``[object_a, object_b, value, frame]`` of candidate pairs found apart beyond the clearance).
    """

    scope: str
    clearance: float
    touch_tolerance: float
    tolerance: float
    max_iterations: int
    blend_file: str = ''
    blender_version: str = ''
    time: str = ''
    collection_a: str = ''
    collection_b: str = ''
    objects: int = 0
    possible_pairs: int = 0
    candidate_pairs: int = 0
    separated: int = 0
    resolved: int = 0
    cancelled: bool = False
    seconds: float = 0.0
    plane_mode: str = 'NONE'
    plane_normal: tuple[float, float, float] | None = None
    rigid_body_shapes: bool = False
    skipped: dict[str, str] = field(default_factory=dict)
    shard: dict | None = None
    results: list[ClashResult] = field(default_factory=list)
    separated_rows: list = field(default_factory=list)
    #: ``[(Source, Solid, matrix read at, geometry stamp)]`` of the objects of penetrating pairs, as read (the
    #: Analyse operator keeps them for Resolve: ``analysis.analysed_shapes``); never written to a report.
    shapes: list = field(default_factory=list, repr=False, compare=False)
    #: What the check is doing now ('reading Suzanne', 'measuring Cube ↔ Suzanne'), for the interface's status bar;
    #: never written to a report.
    activity: str = field(default='', repr=False, compare=False)

    @property
    def listed(self) -> int:
        """How many pairs the report lists: ``results`` and the rows of ``separated_rows``."""
        return len(self.results) + sum(len(rows) for rows in self.separated_rows)

    @property
    def counts(self) -> dict[str, int]:
        """Number of pairs per status (clashes and 'separated')."""
        counts = {status: 0 for status in STATUSES}
        for result in self.results:
            counts[result.status] += 1
        counts['separated'] = self.separated
        return counts

    def metadata(self) -> dict:
        """Everything but the results: where, when, with which thresholds, and how many of each status."""
        metadata = {
            'blend_file': self.blend_file,
            'scope': self.scope,
            'collection_a': self.collection_a,
            'collection_b': self.collection_b,
            'clearance': self.clearance,
            'touch_tolerance': self.touch_tolerance,
            'tolerance': self.tolerance,
            'max_iterations': self.max_iterations,
            'plane_mode': self.plane_mode,
            'plane_normal': None if self.plane_normal is None else list(self.plane_normal),
            'rigid_body_shapes': self.rigid_body_shapes,
            'extension_version': extension_version(),
            'blender_version': self.blender_version,
            'time': self.time,
            'seconds': self.seconds,
            'cancelled': self.cancelled,
            'objects': self.objects,
            'possible_pairs': self.possible_pairs,
            'candidate_pairs': self.candidate_pairs,
            'resolved': self.resolved,
            'counts': self.counts,
            'skipped': dict(sorted(self.skipped.items())),
        }
        if self.shard is not None:
            metadata['shard'] = self.shard
        return metadata


def write_json(report: ClashReport, path: str | Path) -> None:
    """``{...metadata, "results": [{object_a, object_b, status, signed_distance, normal, ...}]}``."""
    document = {**report.metadata(), 'results': [result.as_dict() for result in report.results]}
    Path(path).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def write_csv(report: ClashReport, path: str | Path) -> None:
    """Comment lines ``# key: value`` with the metadata, then a header row and one row per clash.

    Numbers are written with ``repr`` so they read back exactly; counts are one line per status; the plane
    normal is "x y z" (empty without a plane) and flags are ``true``/``false``, as in the rows.
    Spreadsheets and ``pandas.read_csv(path, comment='#')`` skip the comment lines.
    """
    metadata = report.metadata()
    counts, skipped = metadata.pop('counts'), metadata.pop('skipped')
    shard = metadata.pop('shard', None)
    if shard is not None:
        metadata['shard'] = f"{shard['index']}/{shard['count']}"
    normal = metadata['plane_normal']
    metadata['plane_normal'] = '' if normal is None else " ".join(map(repr, normal))
    metadata['rigid_body_shapes'] = str(metadata['rigid_body_shapes']).lower()
    with Path(path).open("w", newline="", encoding="utf-8") as stream:
        stream.writelines(f"# {key}: {value}\n" for key, value in metadata.items())
        stream.writelines(f"# count_{status}: {count}\n" for status, count in counts.items())
        stream.writelines(f"# skipped: {name}: {reason}\n" for name, reason in skipped.items())
        writer = csv.writer(stream)
        writer.writerow(CSV_COLUMNS)
        writer.writerows(result.csv_row() for result in report.results)
