"""AIPerf's per-request file streamed into columns (formats/aiperf_records, issue 35) gives
the values the usual whole-file route gives, and leaves every file it does not expect to it
(so its errors stay the same)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from reportgen.errors import InputError
from reportgen.load.formats import aiperf, aiperf_records
from reportgen.load.gaps import Ragged

DATA = Path(__file__).parent / "data" / "clients"
GENUINE = sorted(DATA.rglob("profile_export.jsonl"))


def _streamed(raw: bytes) -> dict[str, Any] | None:
    runs = aiperf.read_stream(io.BytesIO(raw), "p.jsonl")  # type: ignore[arg-type]
    return None if runs is None else runs[0].record


def _same(fast: dict[str, Any], usual: dict[str, Any]) -> None:
    assert fast.keys() == usual.keys()
    for key in ("ttfts", "latencies", "input_lens", "output_lens"):
        np.testing.assert_array_equal(fast[key], np.asarray(usual[key], dtype=float), key)
    itls = fast["itls"]
    assert isinstance(itls, Ragged)
    assert itls.lengths.tolist() == [len(g) for g in usual["itls"]]
    assert itls.values.tolist() == [g for gaps in usual["itls"] for g in gaps]
    assert fast["errors"] == usual["errors"]


@pytest.mark.parametrize("path", GENUINE, ids=lambda p: str(p.relative_to(DATA)))
def test_genuine_files_give_the_usual_values(path: Path) -> None:
    raw = path.read_bytes()
    fast = _streamed(raw)
    assert fast is not None
    _same(fast, aiperf.read(raw, "p.jsonl")[0].record)


def _record(**metrics: Any) -> dict[str, Any]:
    base = {"time_to_first_token": {"value": 150.0, "unit": "ms"},
            "request_latency": {"value": 300.0, "unit": "ms"},
            "input_sequence_length": {"value": 32, "unit": "tokens"},
            "output_sequence_length": {"value": 4, "unit": "tokens"},
            "inter_chunk_latency": {"value": [40.0, 50.0, 60.0], "unit": "ms"}}
    return {"metadata": {"benchmark_phase": "profiling"}, "metrics": {**base, **metrics}}


def _lines(*records: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in records)


def test_odd_records_give_the_usual_values() -> None:
    warm = _record()
    warm["metadata"]["benchmark_phase"] = "warmup"
    failed = {**_record(), "error": {"message": "boom", "type": "X"}}
    raw = _lines(
        _record(),
        warm,                                                          # left out
        failed,                                                        # 0 s, no gaps
        _record(inter_chunk_latency={"value": [-1.0, 2.0, 0.0], "unit": "ms"}),  # -1 dropped
        _record(time_to_first_token={"value": None, "unit": "ms"}),   # unknown: NaN
        _record(time_to_first_token={"value": -5, "unit": "ms"}),     # unknown: NaN
        _record(request_latency={"value": 0.3, "unit": "s"},          # seconds
                inter_chunk_latency={"value": [], "unit": "ns"}),
        _record(output_sequence_length={"value": 7.9, "unit": "tokens"}),  # 7
        {"metadata": {"benchmark_phase": "profiling"}},                # no metrics at all
        {**_record(), "error": "a string"},
    )
    fast = _streamed(raw)
    assert fast is not None
    _same(fast, aiperf.read(raw, "p.jsonl")[0].record)
    assert fast["itls"].lengths.tolist() == [3, 0, 2, 3, 3, 0, 3, 0, 0]
    assert fast["errors"][1] == "boom" and fast["errors"][-1] == "error"


@pytest.mark.parametrize("odd", [
    _record(time_to_first_token={"value": 1.0, "unit": "tokens"}),   # no time unit: an error
    _record(time_to_first_token={"value": True, "unit": "ms"}),      # not a number
    _record(inter_chunk_latency={"value": [1.0, "2"], "unit": "ms"}),
    _record(inter_chunk_latency={"value": 5.0, "unit": "ms"}),       # no list
    _record(inter_chunk_latency={"value": [[1.0]], "unit": "ms"}),
    [1, 2],                                                           # no object
])
def test_what_it_does_not_expect_is_left_to_the_usual_route(odd: Any) -> None:
    raw = _lines(_record(), odd)
    assert _streamed(raw) is None
    try:
        aiperf.read(raw, "p.jsonl")
    except InputError as exc:
        assert exc.line == 2  # the usual route names the record's line


def test_nan_literal_and_cut_line_are_left_to_the_usual_route() -> None:
    raw = _lines(_record()) + b'{"metadata": {"benchmark_phase": "profiling"}, "metrics": {'
    assert _streamed(raw) is None
    with pytest.raises(InputError):
        aiperf.read(raw, "p.jsonl")
    nan = _lines(_record()) + _lines(_record()).replace(b"150.0", b"NaN")
    assert _streamed(nan) is None


@pytest.mark.parametrize("block", [1, 7, 100, 2657, 5000])
def test_any_block_size_gives_the_same_columns(block: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    raw = GENUINE[0].read_bytes()
    whole = _streamed(raw)
    assert whole is not None
    monkeypatch.setattr(aiperf_records, "BLOCK", block)
    for text in (raw, raw.rstrip(b"\n"), raw + b"\n  \n"):
        got = aiperf_records.columns(io.BytesIO(text[10:]), text[:10])  # type: ignore[arg-type]
        assert got is not None
        _same(got, {k: list(v) if k != "itls" else [] for k, v in whole.items()} | {
            "itls": np.split(whole["itls"].values, np.cumsum(whole["itls"].lengths)[:-1])})


def test_a_gap_beyond_any_measurement_is_refused() -> None:
    from reportgen.load.client_files import _possible
    raw = _lines(_record(), _record(inter_chunk_latency={"value": [1.0, 1e21], "unit": "ms"}))
    run = aiperf.read_stream(io.BytesIO(raw), "p.jsonl")  # type: ignore[arg-type]
    assert run is not None
    with pytest.raises(InputError, match=r"itls: 1e\+18 is no possible value \(request 1\)"):
        _possible(run[0], "p.jsonl")
