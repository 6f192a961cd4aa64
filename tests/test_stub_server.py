"""tools/stub_server.py keeps its timing model: the fixtures' tolerances depend on it."""

from __future__ import annotations

import http.client
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

STUB = Path(__file__).resolve().parents[1] / "tools" / "stub_server.py"


@pytest.fixture(scope="module")
def stub() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, str(STUB), "--port", str(port), "--ttft-ms", "40", "--gap-ms", "10",
         "--gap-per-ms", "5", "--max-seconds", "60"], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and "listening" in proc.stdout.readline()
    yield port
    proc.terminate()
    proc.wait(10)


def _stream(port: int, body: dict) -> tuple[list[float], list[dict]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    t0 = time.monotonic()
    conn.request("POST", "/v1/chat/completions", json.dumps(body),
                  {"Content-Type": "application/json"})
    resp = conn.getresponse()
    assert resp.status == 200
    times, chunks = [], []
    for line in resp:
        if line.startswith(b"data: {"):
            times.append(time.monotonic() - t0)
            chunks.append(json.loads(line[6:]))
    conn.close()
    return times, chunks


def test_models_endpoint(stub: int) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", stub, timeout=10)
    conn.request("GET", "/v1/models")
    data = json.loads(conn.getresponse().read())
    assert data["data"][0]["id"] == "stub-model"


def test_one_stream_follows_the_timing_model(stub: int) -> None:
    times, chunks = _stream(stub, {"messages": [{"role": "user", "content": "a b c"}],
                                   "max_tokens": 5, "stream": True,
                                   "stream_options": {"include_usage": True}})
    tokens = [c for c in chunks if c["choices"]]
    assert len(tokens) == 5  # one token per chunk, exactly max_tokens
    assert chunks[-1]["usage"] == {"prompt_tokens": 3, "completion_tokens": 5,
                                   "total_tokens": 8}
    assert times[0] >= 0.040  # TTFT never below the model
    # alone in flight each gap is gap_ms, on an absolute schedule from the request's arrival:
    # the last token can never come before TTFT + 4 gaps (a loaded machine only delays it)
    assert 0.080 <= times[4] < 0.080 + 1.0
