"""Copy Pair for Report: a self-contained JSON document of one pair (points, settings, the answer shown, versions),
and ``python -m core.replay FILE`` (exit 0: reproduced, 1: a different answer, 2: a bad file).
See docs/architecture.md, section "Replay: a pair in a file".
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .narrowphase.collide import collide
from .contact import TOUCHING, Contact
from .steps import checkpoint
from .validation import as_iteration_cap, as_length, as_points

FORMAT = "collision-inspector-pair"
FORMAT_VERSION = 1
#: The keyword arguments of ``core.collide`` that a document records.
SETTING_NAMES = ("tolerance", "touch_tolerance", "max_iterations")
#: Largest angle (radians) between the stored and replayed normals that still counts as the same.
NORMAL_TOLERANCE = 1e-6
#: Points turned into lists or JSON text per call: one call over a million points keeps the interpreter for
#: seconds (``json.dumps``) or most of a second (``tolist``), which a worker thread must not do to the interface.
TEXT_ROWS = 1024


def pair_document(points_a, points_b, settings: dict | None = None, contact: Contact | None = None, *,
                  meta: dict | None = None) -> dict:
    """A JSON-ready dict describing the pair, its settings and its answer.

    ``settings`` may hold ``tolerance``, ``touch_tolerance`` and ``max_iterations`` (missing ones
    take ``collide``'s defaults). ``contact`` is the answer to record; ``None`` computes it with
    those settings. ``meta`` (JSON-ready: object names, file, Blender version...) is copied as is.
    """
    cloud_a, cloud_b = as_points(points_a, "points_a"), as_points(points_b, "points_b")
    chosen = _settings(settings or {})
    if contact is None:
        contact = collide(cloud_a, cloud_b, **chosen)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "points_a": _rows_as_lists(cloud_a),
        "points_b": _rows_as_lists(cloud_b),
        "settings": chosen,
        "expected": contact_fields(contact),
        "core": version_info(),
        "meta": dict(meta or {}),
    }


def contact_fields(contact: Contact) -> dict:
    """The answer fields of a ``Contact`` as plain JSON values."""
    return {
        "status": contact.status,
        "signed_distance": float(contact.signed_distance),
        "depth": float(contact.depth),
        "distance": float(contact.distance),
        "normal": np.asarray(contact.normal, dtype=float).tolist(),
        "point_a": np.asarray(contact.point_a, dtype=float).tolist(),
        "point_b": np.asarray(contact.point_b, dtype=float).tolist(),
        "bounds": [float(contact.bounds[0]), float(contact.bounds[1])],
        "tolerance": float(contact.tolerance),
        "solver_status": contact.solver_status,
        "gjk_iterations": int(contact.gjk_iterations),
        "epa_iterations": int(contact.epa_iterations),
    }


def version_info() -> dict:
    """Python and numpy versions, and a SHA-256 over ``core``'s own sources (which code answered)."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for source in sorted(package.rglob("*.py")):
        digest.update(source.relative_to(package).as_posix().encode())
        digest.update(source.read_bytes())
    return {"source_sha256": digest.hexdigest(), "python": platform.python_version(), "numpy": np.__version__}


def _rows_as_lists(points: np.ndarray) -> list:
    """``points.tolist()``, made ``TEXT_ROWS`` rows at a time (a cancelled worker stops between them)."""
    rows = []
    for start in range(0, len(points), TEXT_ROWS):
        checkpoint()
        rows.extend(points[start:start + TEXT_ROWS].tolist())
    return rows


def document_text(document: dict) -> str:
    """``json.dumps(document, allow_nan=False)``, the same text, with long lists (the points) written ``TEXT_ROWS``
    items at a time (floats in their exact ``repr`` form; NaN and inf refused)."""
    return "{" + ", ".join(f"{json.dumps(key)}: {_value_text(value)}" for key, value in document.items()) + "}"


def _value_text(value) -> str:
    if not isinstance(value, list) or len(value) <= TEXT_ROWS:
        return json.dumps(value, allow_nan=False)
    pieces = []
    for start in range(0, len(value), TEXT_ROWS):
        checkpoint()  # (a cancelled worker stops here)
        pieces.append(json.dumps(value[start:start + TEXT_ROWS], allow_nan=False)[1:-1])
    return "[" + ", ".join(pieces) + "]"


def write_pair(path, document: dict) -> str:
    """Write a document as JSON (``document_text``) and answer the text written (without its closing newline)."""
    text = document_text(document)
    Path(path).write_text(text + "\n", encoding="utf-8")
    return text


def load_pair(path) -> dict:
    """Read and check a document; ``ValueError`` says what is wrong with a bad file."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"{path} is not a {FORMAT} document")
    if document.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"{path} has format_version {document.get('format_version')!r}, "
                         f"this core reads {FORMAT_VERSION}")
    for key in ("points_a", "points_b"):
        as_points(document.get(key), key)
    _settings(document.get("settings") or {})
    expected = document.get("expected")
    if not isinstance(expected, dict) or not {"status", "signed_distance", "normal"} <= expected.keys():
        raise ValueError(f"{path} has no expected status, signed_distance and normal")
    return document


@dataclass(frozen=True)
class Replay:
    """A document's pair measured again: the new contact and how it compares with the stored one."""

    contact: Contact
    reproduced: bool
    differences: tuple[str, ...]


def replay(document: dict) -> Replay:
    """Run ``core.collide`` on the document's pair with its settings and compare with the stored answer.

    Reproduced means: the same status, a signed distance within the touch band (the larger of the
    stored and the new one) and, unless touching, the normal within ``NORMAL_TOLERANCE`` radians.
    """
    contact = collide(as_points(document["points_a"], "points_a"), as_points(document["points_b"], "points_b"),
                      **_settings(document.get("settings") or {}))
    expected = document["expected"]
    band = max(float(expected.get("tolerance", 0.0)), contact.tolerance)
    differences = []
    if contact.status != expected["status"]:
        differences.append(f"status {contact.status!r}, stored {expected['status']!r}")
    if not abs(contact.signed_distance - float(expected["signed_distance"])) <= band:
        differences.append(f"signed_distance {contact.signed_distance!r}, stored {expected['signed_distance']!r}")
    if contact.status != TOUCHING:
        stored = np.asarray(expected["normal"], dtype=float)
        error = math.atan2(np.linalg.norm(np.cross(contact.normal, stored)), float(contact.normal @ stored))
        if not error <= NORMAL_TOLERANCE:
            differences.append(f"normal {contact.normal.tolist()}, stored {stored.tolist()} ({error:.3g} rad apart)")
    return Replay(contact, not differences, tuple(differences))


def _settings(settings: dict) -> dict:
    """The three ``collide`` settings, checked, with defaults for the missing ones."""
    if not isinstance(settings, dict):
        raise ValueError(f"settings must be a dict, got {type(settings).__name__}")
    unknown = set(settings) - set(SETTING_NAMES)
    if unknown:
        raise ValueError(f"unknown settings {sorted(unknown)}; expected some of {list(SETTING_NAMES)}")
    return {
        "tolerance": as_length(settings.get("tolerance"), "tolerance", allow_none=True),
        "touch_tolerance": as_length(settings.get("touch_tolerance"), "touch_tolerance", allow_none=True),
        "max_iterations": (None if settings.get("max_iterations") is None
                           else as_iteration_cap(settings["max_iterations"], "max_iterations")),
    }


def _report(document: dict, result: Replay) -> str:
    contact, expected = result.contact, document["expected"]
    lines = [
        f"pair: {len(document['points_a'])} and {len(document['points_b'])} points, settings {document['settings']}",
        f"stored core: {document.get('core', {})}",
        f"this core:   {version_info()}",
        f"status           {contact.status}  (stored {expected['status']})",
        f"signed_distance  {contact.signed_distance!r}  (stored {expected['signed_distance']!r})",
        f"normal           {contact.normal.tolist()}  (stored {expected['normal']})",
        f"point_a          {contact.point_a.tolist()}  (stored {expected.get('point_a')})",
        f"point_b          {contact.point_b.tolist()}  (stored {expected.get('point_b')})",
        f"solver_status    {contact.solver_status}, "
        f"{contact.gjk_iterations} GJK + {contact.epa_iterations} EPA iterations",
    ]
    lines += [f"differs: {text}" for text in result.differences]
    lines.append("reproduced: yes" if result.reproduced else "reproduced: no")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m core.replay FILE``: 0 when the stored answer is reproduced, 1 when not, 2 for a bad file."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] in ("-h", "--help"):
        print("usage: python -m core.replay FILE", file=sys.stderr)
        return 2
    try:
        document = load_pair(args[0])
        result = replay(document)
    except ValueError as exc:
        print(f"core.replay: {exc}", file=sys.stderr)
        return 2
    print(_report(document, result))
    return 0 if result.reproduced else 1


if __name__ == "__main__":
    sys.exit(main())
