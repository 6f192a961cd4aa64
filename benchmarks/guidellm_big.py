"""100,000 GuideLLM 0.8.1 requests (issue 35: "no slower than today"): a real client's
``benchmarks.json`` (tests/data/clients/guidellm-0.8.1/concurrent, three benchmarks) whose
``requests.successful`` lists are repeated until the file holds ``requests`` of them, each
benchmark's ``request_totals.successful`` set to its list's length (the reader uses a list only
when it holds every successful request).

    python benchmarks/guidellm_big.py OUT [--requests 100000]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

FIXTURE = (Path(__file__).resolve().parents[1] / "tests" / "data" / "clients" / "guidellm-0.8.1"
           / "concurrent" / "benchmarks.json")


def make(root: Path, requests: int = 100_000) -> int:
    """Write ``root/concurrent/benchmarks.json``; returns its bytes."""
    data = orjson.loads(FIXTURE.read_bytes())
    benches = data["benchmarks"]
    per = -(-requests // len(benches))
    for i, bench in enumerate(benches):
        n = min(per, requests - i * per)
        good = bench["requests"]["successful"]
        bench["requests"]["successful"] = [good[k % len(good)] for k in range(n)]
        totals = bench["metrics"].get("request_totals") or bench["request_totals"]
        totals["successful"] = n
        totals["errored"] = totals["incomplete"] = 0
        totals["total"] = n
    out = root / "concurrent" / "benchmarks.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    raw = orjson.dumps(data)
    out.write_bytes(raw)
    return len(raw)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--requests", type=int, default=100_000)
    args = parser.parse_args(argv)
    print(f"{make(args.out, args.requests) / 1e6:.0f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
