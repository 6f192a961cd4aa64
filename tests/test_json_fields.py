"""Decoding only the keys a reader uses (reportgen.load.formats.json_fields) gives what the
full decode gives for those keys, and gives way to the full decode on any other shape."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.load.formats import guidellm
from reportgen.load.formats.json_fields import decode_fields

DATA = Path(__file__).resolve().parent / "data"
GUIDELLM_JSON = sorted(p for p in DATA.rglob("*.json")
                       if b'"generative_benchmark"' in p.read_bytes()[:65536])


def test_only_the_named_keys_are_kept_at_every_level() -> None:
    raw = (b'{"a": 1, "b": {"x": [1, 2], "y": 3}, "c": [{"k": 1, "z": 2}, {"z": 3}], '
           b'"d": {"deep": [{"skipped": true}]}, "p99.9": 4}')
    got = decode_fields(raw, {"a": None, "b": {"x": None}, "c": [{"k": None}], "e": None,
                              "p99.9": None})
    assert got == {"a": 1, "b": {"x": [1, 2]}, "c": [{"k": 1}, {}], "p99.9": 4}


@pytest.mark.parametrize("raw", [
    b'{"b": [1]}',             # a list where an object is named
    b'{"c": {"k": 1}}',        # an object where a list is named
    b'[{"b": {}}]',            # not one object
    b'{"b": {}}\n{"b": {}}',   # JSON Lines
    b'\xef\xbb\xbf{"b": {}}',  # a byte-order mark
    b'{"b": {"x": 1,}}',       # invalid JSON, even in a skipped part
])
def test_another_shape_gives_way_to_the_full_decode(raw: bytes) -> None:
    assert decode_fields(raw, {"b": {"x": None}, "c": [{"k": None}]}) is None


def test_the_files_cover_both_guidellm_generations() -> None:
    assert len(GUIDELLM_JSON) >= 4
    assert {p.parent.parent.name for p in GUIDELLM_JSON} >= {"guidellm-0.4.0", "guidellm-0.8.1"}


@pytest.mark.parametrize("path", GUIDELLM_JSON, ids=lambda p: p.relative_to(DATA).as_posix())
def test_guidellm_reads_the_same_runs_as_from_the_whole_file(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    raw = path.read_bytes()
    used = decode_fields(raw, guidellm.USED)
    assert used is not None  # the fast route is taken on every real file
    assert len(raw) > 2 * len(repr(used)) or "stripped" in path.name  # and skips most of it
    fast = guidellm.read(raw, path.name)
    monkeypatch.setattr(guidellm, "decode_fields", lambda raw, shape: None)
    assert guidellm.read(raw, path.name) == fast
    assert fast and all(r.record.get("completed", 0) >= 0 for r in fast)
