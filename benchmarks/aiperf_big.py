"""1 M AIPerf 0.13 per-request records (issue 35): four runs of a real client's artifact
folders (tests/data/clients/aiperf-0.13.0: each run's own ``profile_export_aiperf.json``) whose
``profile_export.jsonl`` holds 250,000 records each, made from a genuine record of that run by
perturbing its times (every ``ms`` metric scaled, fresh ``inter_chunk_latency`` gaps, 11 … 19 a
record) from a seed. ~2.9 GB in all (each file under the 1 GiB cap of a result file).

    python benchmarks/aiperf_big.py OUT [--records 1000000]
"""

from __future__ import annotations

import argparse
import copy
import shutil
import sys
from pathlib import Path

import numpy as np
import orjson

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "data" / "clients" / "aiperf-0.13.0"
RUNS = ("concurrency-sweep/concurrency_1", "concurrency-sweep/concurrency_2",
        "concurrency-sweep/concurrency_4", "stub-model-openai-chat-request_rate4")


def _records(template: dict[str, object], n: int, rng: np.random.Generator,
             first: int) -> bytes:
    """``n`` records like ``template``, as JSON Lines."""
    metrics: dict[str, dict[str, object]] = template["metrics"]  # type: ignore[assignment]
    timed = [k for k, m in metrics.items() if m.get("unit") == "ms" and k != "inter_chunk_latency"]
    scales = rng.lognormal(0.0, 0.3, n)
    counts = rng.integers(12, 21, n)      # output tokens; one gap fewer
    gaps = np.round(rng.lognormal(np.log(18.0), 0.35, int((counts - 1).sum())), 6)
    cut = np.cumsum(counts - 1)
    lines = []
    record = copy.deepcopy(template)
    meta: dict[str, object] = record["metadata"]  # type: ignore[assignment]
    mine: dict[str, dict[str, object]] = record["metrics"]  # type: ignore[assignment]
    start = 0
    for i in range(n):
        s = float(scales[i])
        for k in timed:
            mine[k]["value"] = float(metrics[k]["value"]) * s  # type: ignore[arg-type]
        k_out = int(counts[i])
        mine["output_sequence_length"]["value"] = k_out
        mine["output_token_count"]["value"] = k_out
        mine["inter_chunk_latency"]["value"] = gaps[start:int(cut[i])].tolist()
        start = int(cut[i])
        meta["session_num"] = first + i
        meta["profiling_index"] = first + i
        meta["conversation_id"] = f"session_{first + i:07d}"
        lines.append(orjson.dumps(record))
    return b"\n".join(lines) + b"\n"


def make(root: Path, records: int = 1_000_000, seed: int = 35) -> int:
    """Write the four run folders under ``root``; returns the bytes of JSON Lines written."""
    rng = np.random.default_rng(seed)
    written = 0
    per_run = -(-records // len(RUNS))
    for r, run in enumerate(RUNS):
        src, dst = FIXTURES / run, root / run
        dst.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src / "profile_export_aiperf.json", dst / "profile_export_aiperf.json")
        template = orjson.loads((src / "profile_export.jsonl").read_bytes().split(b"\n", 1)[0])
        n = min(per_run, records - r * per_run)
        with (dst / "profile_export.jsonl").open("wb") as out:
            for begin in range(0, n, 50_000):   # in blocks: the generator stays small
                chunk = _records(template, min(50_000, n - begin), rng, begin)
                out.write(chunk)
                written += len(chunk)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--records", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    print(f"{make(args.out, args.records) / 1e9:.2f} GB of JSON Lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
