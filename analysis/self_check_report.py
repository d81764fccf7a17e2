"""The result of a self-intersection check and its JSON and CSV forms (standard library only).

``analysis.self_check`` fills a ``SelfCheckReport``; ``write_json`` and ``write_csv`` save it. Nothing here
imports bpy, so reports can be read and written anywhere.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

from .clash_report import extension_version

#: Columns of the CSV file, one row per object checked.
CSV_COLUMNS = ('object', 'triangles', 'face_pairs', 'coplanar_pairs', 'faces', 'curves', 'closed',
               'covered_twice_volume')


@dataclass(frozen=True)
class SelfCheckResult:
    """One object checked against itself (world space).

    ``face_pairs``: pairs of its triangles that pass through each other (``coplanar_pairs`` of them lie in
    one plane, folded onto each other); ``faces``: the distinct triangles taking part; ``curves``: how many
    curves the crossings form, ``segments`` their pieces ``((x, y, z), (x, y, z))``. ``closed``: the object
    encloses a volume; ``covered_twice_volume`` (world units³): the volume inside two or more of its closed
    parts or two or more sheets of a part crossing itself, None when it is open or the volume could not be
    measured (a part that is no manifold, or rounding near degenerate triple crossings).
    """

    object: str
    triangles: int
    face_pairs: int
    coplanar_pairs: int
    faces: int
    curves: int
    closed: bool
    covered_twice_volume: float | None
    segments: tuple = ()

    @property
    def intersects(self) -> bool:
        return self.face_pairs > 0

    def as_dict(self) -> dict:
        return {'object': self.object, 'triangles': self.triangles, 'face_pairs': self.face_pairs,
                'coplanar_pairs': self.coplanar_pairs, 'faces': self.faces, 'curves': self.curves,
                'closed': self.closed, 'covered_twice_volume': self.covered_twice_volume,
                'segments': [[list(point) for point in segment] for segment in self.segments]}

    def csv_row(self) -> list:
        volume = '' if self.covered_twice_volume is None else repr(self.covered_twice_volume)
        return [self.object, self.triangles, self.face_pairs, self.coplanar_pairs, self.faces, self.curves,
                str(self.closed).lower(), volume]


@dataclass
class SelfCheckReport:
    """What a self-intersection check found: one result per object checked (sorted by name), ``skipped``
    ``{name: reason}``, ``blend_file``, ``blender_version``, ``time`` (ISO 8601, UTC) and ``seconds``."""

    scope: str
    blend_file: str = ''
    blender_version: str = ''
    time: str = ''
    seconds: float = 0.0
    skipped: dict[str, str] = field(default_factory=dict)
    results: list[SelfCheckResult] = field(default_factory=list)
    #: The object being checked now, for the interface's status bar.
    activity: str = field(default='', repr=False, compare=False)

    @property
    def intersecting(self) -> list[SelfCheckResult]:
        """The objects whose faces pass through each other."""
        return [result for result in self.results if result.intersects]

    def metadata(self) -> dict:
        return {'check': 'self', 'blend_file': self.blend_file, 'scope': self.scope,
                'extension_version': extension_version(), 'blender_version': self.blender_version,
                'time': self.time, 'seconds': self.seconds, 'objects': len(self.results),
                'self_intersecting': len(self.intersecting), 'skipped': dict(sorted(self.skipped.items()))}


def write_json(report: SelfCheckReport, path: str | Path) -> None:
    """``{...metadata, "results": [{object, face_pairs, curves, covered_twice_volume, segments, ...}]}``."""
    document = {**report.metadata(), 'results': [result.as_dict() for result in report.results]}
    Path(path).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def write_csv(report: SelfCheckReport, path: str | Path) -> None:
    """Comment lines ``# key: value`` with the metadata, then a header row and one row per object checked."""
    metadata = report.metadata()
    skipped = metadata.pop('skipped')
    with Path(path).open("w", newline="", encoding="utf-8") as stream:
        stream.writelines(f"# {key}: {value}\n" for key, value in metadata.items())
        stream.writelines(f"# skipped: {name}: {reason}\n" for name, reason in skipped.items())
        writer = csv.writer(stream)
        writer.writerow(CSV_COLUMNS)
        writer.writerows(result.csv_row() for result in report.results)
