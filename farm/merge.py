"""Join the JSON reports of a check's shards (``check --shard K/N --json PART.json``) into one report.

The result is the report one process checking everything would have written: the same results in the
same order (by ``object_a``, ``object_b``), counts, and for an animation scan each pair's answer at its
worst frame over all shards, its first contact, deepest frame and contact intervals joined across the
shards' borders. Only ``time`` (the earliest shard's start) and ``seconds`` (the shards' sum) tell that it
was shared. Standard library only: no Blender needed.
"""

from __future__ import annotations

import json
from pathlib import Path

#: Header fields every shard of one check has alike (other fields are joined or summed).
SHARED_FIELDS = ('blend_file', 'scope', 'collection_a', 'collection_b', 'clearance', 'touch_tolerance', 'tolerance',
                 'max_iterations', 'plane_mode', 'plane_normal', 'rigid_body_shapes', 'extension_version',
                 'blender_version', 'objects', 'possible_pairs', 'resolved')

#: The clash statuses in the order of a report's counts ('separated' last).
STATUSES = ('penetrating', 'touching', 'clearance', 'separated')


#: --fail-on: which statuses make a command exit with 1 (as ``check --fail-on``).
FAILING_STATUSES = {
    'penetrating': {'penetrating'},
    'clearance': {'penetrating', 'touching', 'clearance'},
    'none': set(),
}


class MergeError(ValueError):
    """The parts are not the shards of one check (missing, repeated, from another file or settings, not shards)."""


def read_part(path: str | Path) -> dict:
    """A shard's JSON report; MergeError naming the file when it cannot be read or is not a shard's report."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise MergeError(f"{path}: cannot read the report: {error}") from None
    if not isinstance(document, dict) or not isinstance(document.get('shard'), dict):
        raise MergeError(f"{path}: not the report of a shard (written by 'check --shard K/N --json ...')")
    return document


def merge_parts(parts: list[dict], names: list[str] | None = None) -> dict:
    """The whole check's report from the reports of its shards (any order). ``names`` label the parts in
    messages (default: 'part 1', ...). MergeError when they are not exactly the shards 1 to N of one check."""
    names = names or [f"part {number}" for number in range(1, len(parts) + 1)]
    if not parts:
        raise MergeError("no parts to merge")
    labelled = sorted(zip(parts, names), key=lambda item: item[0]['shard']['index'])
    _check_complete(labelled)
    first = labelled[0][0]
    scan = 'frames' in first['shard']
    for part, name in labelled[1:]:
        for key in (*SHARED_FIELDS, *(() if scan else ('candidate_pairs',))):
            if part.get(key) != first.get(key):
                raise MergeError(f"{name} and {labelled[0][1]} are not shards of one check: their {key} differ "
                                 f"({part.get(key)!r} and {first.get(key)!r})")
    ordered = [part for part, _name in labelled]
    merged = {key: value for key, value in first.items() if key not in ('shard', 'results')}
    merged['time'] = min(part['time'] for part in ordered)
    merged['seconds'] = sum(part['seconds'] for part in ordered)
    merged['cancelled'] = any(part['cancelled'] for part in ordered)
    skipped: dict[str, str] = {}
    for part in ordered:  # an object skipped in several shards keeps the reason of the earliest frames
        for name, reason in part['skipped'].items():
            skipped.setdefault(name, reason)
    merged['skipped'] = dict(sorted(skipped.items()))
    results, separated, candidates = _scan_results(ordered) if scan else _check_results(ordered)
    merged['candidate_pairs'] = candidates
    counts = {status: 0 for status in STATUSES}
    for result in results:
        counts[result['status']] += 1
    counts['separated'] = separated
    merged['counts'] = counts
    merged['results'] = results
    return merged


def _check_complete(labelled: list[tuple[dict, str]]) -> None:
    """Exactly shards 1 to N of N, each once, all of a scan or all of a check."""
    counts = {part['shard']['count'] for part, _name in labelled}
    if len(counts) != 1:
        raise MergeError(f"the parts were cut into different numbers of shards: {sorted(counts)}")
    (count,) = counts
    seen: dict[int, str] = {}
    for part, name in labelled:
        index = part['shard']['index']
        if index in seen:
            raise MergeError(f"shard {index}/{count} given twice: {seen[index]} and {name}")
        seen[index] = name
    missing = [index for index in range(1, count + 1) if index not in seen]
    if missing:
        raise MergeError(f"missing shard(s) {', '.join(f'{index}/{count}' for index in missing)}")
    if len({'frames' in part['shard'] for part, _name in labelled}) != 1:
        raise MergeError("some parts are shards of an animation scan, others of a check")


def _pair(result: dict) -> tuple[str, str]:
    return result['object_a'], result['object_b']


def _check_results(parts: list[dict]) -> tuple[list[dict], int, int]:
    """A check's shards measured disjoint shares of the same candidate pairs: their results and counts add up."""
    results = sorted((result for part in parts for result in part['results']), key=_pair)
    return results, sum(part['counts']['separated'] for part in parts), parts[0]['candidate_pairs']


def _scan_results(parts: list[dict]) -> tuple[list[dict], int, int]:
    """A scan's shards scanned consecutive runs of frames: per pair, the answer of the shard with its worst
    frame-by-frame value (the earliest on a tie, as one scan keeps its first worst frame), the first contact
    of the earliest shard in contact, and the contact intervals of all, joined where they meet at a border."""
    best: dict[tuple[str, str], tuple[float, int, dict | None]] = {}   # pair -> (value, frame, result or None)
    first_contacts: dict[tuple[str, str], int] = {}
    intervals: dict[tuple[str, str], list[list[int]]] = {}
    for part in parts:  # in frame order
        shard = part['shard']
        listed = [(_pair(result), value, frame, result)
                  for result, (value, frame) in zip(part['results'], shard['worst'])]
        unlisted = [((a, b), value, frame, None) for a, b, value, frame in shard['unlisted']]
        for pair, value, frame, result in (*listed, *unlisted):
            if pair not in best or value < best[pair][0]:
                best[pair] = (value, frame, result)
            if result is None:
                continue
            if result['first_contact_frame'] is not None:
                first_contacts.setdefault(pair, result['first_contact_frame'])
            joined = intervals.setdefault(pair, [])
            for start, end in result['contact_intervals']:
                if joined and joined[-1][1] + 1 == start:
                    joined[-1][1] = end
                else:
                    joined.append([start, end])
    results = []
    for pair in sorted(best):
        result = best[pair][2]
        if result is None:
            continue
        results.append({**result, 'first_contact_frame': first_contacts.get(pair),
                        'contact_intervals': intervals.get(pair, [])})
    return results, len(best) - len(results), len(best)


def write_report(document: dict, path: str | Path) -> None:
    """Write a report as ``check --json`` writes it."""
    Path(path).write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


def exit_code(document: dict, fail_on: str) -> int:
    """1 when the report lists a result of the ``fail_on`` kind (a key of ``FAILING_STATUSES``), else 0."""
    failing = FAILING_STATUSES[fail_on]
    return 1 if any(result['status'] in failing for result in document['results']) else 0


def summary(document: dict) -> str:
    """The check's closing line: objects, candidate pairs, counts."""
    counts = ", ".join(f"{count} {status}" for status, count in document['counts'].items())
    return (f"{document['objects']} objects, {document['candidate_pairs']} candidate pairs of "
            f"{document['possible_pairs']}: {counts}")
