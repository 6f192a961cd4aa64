"""The dataset's compacted layer (``dataset/compacted/<table>/part-NN.parquet``): the same rows
as the per-round files, 64 files whatever the number of rounds; what the index's trend reads."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from reportgen import dataset
from reportgen.cli import main
from reportgen.index.update import build_index

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks import tiny_rounds  # noqa: E402

NAMES = ["setup.tier_count", "engines.{e}.itl_p50_c1_ms", "engines.{e}.efficiency_cmax"]
GLOBBY = "r[1]*x"


def index(rounds: list[Path], out: Path) -> str:
    result = CliRunner().invoke(main, ["index", *map(str, rounds), "-o", str(out), "-q",
                                       "-j", "1"])
    assert result.exit_code == 0, result.output
    return str(result.output)


def parts(ds: Path) -> dict[str, bytes]:
    return {str(p.relative_to(ds)): p.read_bytes()
            for p in sorted((ds / "compacted").rglob("*.parquet"))}


def same_bucket(count: int) -> list[str]:
    """``count`` round names in one bucket (found by rule: crc32 % 64)."""
    names = [f"r{i}" for i in range(2000)]
    first = dataset.bucket_of(names[0])
    return [n for n in names if dataset.bucket_of(n) == first][:count]


@pytest.fixture(scope="module")
def rounds(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Four tiny rounds, one named with glob characters."""
    made = tiny_rounds.generate(tmp_path_factory.mktemp("cds") / "rounds", 4)
    return [*made[:3], made[3].rename(made[3].with_name(GLOBBY))]


@pytest.fixture(scope="module")
def site(rounds: list[Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cds") / "site"
    index(rounds, out)
    return out


def test_bucket_rule() -> None:
    import zlib

    assert dataset.BUCKETS == 64
    assert dataset.bucket_of("round-1") == zlib.crc32(b"round-1") % 64
    assert 0 <= dataset.bucket_of(GLOBBY) < 64


def test_compacted_rows_are_the_per_round_rows(rounds: list[Path], site: Path) -> None:
    ds = site / "dataset"
    plain = [r.name for r in rounds if r.name != GLOBBY]   # DuckDB would glob the other
    con = duckdb.connect()
    for table in ("round", "runs", "tiers", "values"):
        files = [str(ds / table / f"{n}.parquet") for n in plain]
        per_round = con.execute("SELECT * FROM read_parquet(?, union_by_name = true) "
                                "ORDER BY ALL", [files])
        cols = [d[0] for d in per_round.description]
        want = per_round.fetchall()
        compacted = con.execute(
            f"SELECT {', '.join(cols)} FROM read_parquet(?, union_by_name = true) "
            "WHERE round != ? ORDER BY ALL", [str(ds / "compacted" / table / "*.parquet"),
                                              GLOBBY])
        got = compacted.fetchall()
        assert got == want and len(want) >= len(plain), table
        assert set(cols) == {d[0] for d in con.execute(
            "SELECT * FROM read_parquet(?, union_by_name = true) LIMIT 0",
            [str(ds / "compacted" / table / "*.parquet")]).description}, table
    # the round with glob characters is there too, its rows those of its own file
    own = pq.read_table(ds / "values" / f"{GLOBBY}.parquet").to_pylist()
    part = pq.read_table(ds / "compacted" / "values" /
                         dataset.part_name(dataset.bucket_of(GLOBBY)))
    assert [r for r in part.to_pylist() if r["round"] == GLOBBY] == \
        [{k: r.get(k) for k in part.column_names} for r in own] != []
    assert sorted(ds.joinpath("compacted").iterdir()) == \
        [ds / "compacted" / t for t in sorted(("round", "runs", "tiers", "values"))]


def test_the_trend_reads_the_compacted_files(rounds: list[Path], site: Path,
                                             tmp_path: Path) -> None:
    ds = site / "dataset"
    names = [r.name for r in rounds]
    got = dataset.trend_values(ds, names, NAMES)
    assert set(got) == set(names)            # the round with `[` and `*` included
    cached = json.loads((site / ".reportgen-index" / "tables" / f"{GLOBBY}.json")
                        .read_text(encoding="utf-8"))["values"]
    assert got[GLOBBY]["setup.tier_count"] == cached["setup.tier_count"] == 4
    # from the per-round files alone: the same dict (but for the round DuckDB would glob)
    alone = tmp_path / "ds"
    shutil.copytree(ds, alone)
    shutil.rmtree(alone / "compacted")
    per_round = dataset.trend_values(alone, names, NAMES)
    assert dataset.trend_values(ds, names, NAMES, compacted=False) == per_round
    assert per_round == {n: v for n, v in got.items() if n != GLOBBY}
    # rounds not asked for are ignored; a subset gives the subset
    assert dataset.trend_values(ds, names[:1], NAMES) == {names[0]: got[names[0]]}


def test_a_missing_or_unreadable_part_falls_back_to_the_rounds_files(
        rounds: list[Path], site: Path, tmp_path: Path) -> None:
    names = [r.name for r in rounds[:3]]
    ds = tmp_path / "ds"
    shutil.copytree(site / "dataset", ds)
    want = dataset.trend_values(ds, names, NAMES)
    buckets = [dataset.bucket_of(n) for n in names]
    assert len(set(buckets)) == 3     # the fixture's rounds fall in three buckets
    (ds / "compacted" / "values" / dataset.part_name(buckets[0])).unlink()
    (ds / "compacted" / "values" / dataset.part_name(buckets[1])).write_bytes(b"not parquet")
    assert dataset.trend_values(ds, names, NAMES) == want
    # neither read: the round keeps the cache's points (left out)
    (ds / "values" / f"{names[0]}.parquet").unlink()
    assert set(dataset.trend_values(ds, names, NAMES)) == set(names[1:])


def test_a_type_conflict_becomes_json_text(tmp_path: Path) -> None:
    a, b, c = same_bucket(3)
    ds = tmp_path / "ds"
    dataset.write_round(ds, a, {"runs": [{"x": 1.5, "y": True}, {"x": 2, "y": None}]})
    dataset.write_round(ds, b, {"runs": [{"x": "two", "z": 1}]})
    dataset.write_round(ds, c, {"runs": [{"y": False}]})
    dataset.compact(ds, [c, b, a], [dataset.bucket_of(a)])
    table = pq.read_table(ds / "compacted" / "runs" / dataset.part_name(dataset.bucket_of(a)))
    assert table.column_names == ["round", "x", "y", "z"]
    assert str(table.schema.field("x").type) == "string"
    assert str(table.schema.field("y").type) == "bool"      # one type: kept
    rows = sorted(table.to_pylist(), key=lambda r: str(r["round"]))
    by_round = sorted([a, a, b, c])
    assert [r["round"] for r in rows] == by_round
    want = {a: [("1.5", True, None), ("2.0", None, None)], b: [("two", None, 1.0)],
            c: [(None, False, None)]}
    assert [(r["x"], r["y"], r["z"]) for r in table.to_pylist()] == \
        [v for n in sorted({a, b, c}) for v in want[n]]
    # rounds sorted by name, each round's rows in its file's order
    assert [r["round"] for r in table.to_pylist()] == by_round


def test_only_the_changed_rounds_bucket_is_rewritten(tmp_path: Path) -> None:
    rounds = tiny_rounds.generate(tmp_path / "rounds", 3)
    site = tmp_path / "site"
    index(rounds, site)
    ds = site / "dataset"
    before = {p: (p.stat().st_mtime_ns, p.read_bytes())
              for p in (ds / "compacted").rglob("*.parquet")}
    mine = dataset.part_name(dataset.bucket_of(rounds[1].name))
    target = rounds[1] / "vllm" / "bench" / "c4.json"
    data = json.loads(target.read_text())
    data["output_throughput"] *= 1.01
    target.write_text(json.dumps(data))
    index(rounds, site)
    for path, (mtime, body) in before.items():
        if path.name == mine:
            assert path.stat().st_mtime_ns != mtime
        else:
            assert (path.stat().st_mtime_ns, path.read_bytes()) == (mtime, body), path
    assert (ds / "compacted" / "tiers" / mine).read_bytes() != before[
        ds / "compacted" / "tiers" / mine][1]
    # a gone round leaves its bucket (here: the only round in it, so the file goes)
    index(rounds[:2], site)
    assert not (ds / "compacted" / "values" /
                dataset.part_name(dataset.bucket_of(rounds[2].name))).exists()
    rows = duckdb.connect().execute(
        "SELECT DISTINCT round FROM read_parquet(?) ORDER BY 1",
        [str(ds / "compacted" / "values" / "*.parquet")]).fetchall()
    assert rows == [(r.name,) for r in sorted(rounds[:2])]


def test_a_gone_round_leaves_a_shared_bucket(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    a, b = same_bucket(2)
    for count, name in enumerate((a, b), 1):
        dataset.write_round(ds, name, {"values": {"setup.tier_count": count}})
    bucket = dataset.bucket_of(a)
    dataset.compact(ds, [a, b], [bucket])
    part = ds / "compacted" / "values" / dataset.part_name(bucket)
    assert pq.read_table(part).column("round").to_pylist() == sorted([a, b])
    # the rows of a round not asked for are ignored
    assert dataset.trend_values(ds, [b], ["setup.tier_count"]) == {b: {"setup.tier_count": 2}}
    dataset.compact(ds, [a], [bucket])     # b left the series; its own files remain
    assert pq.read_table(part).column("round").to_pylist() == [a]
    assert (ds / "values" / f"{b}.parquet").exists()


def test_deleted_compacted_files_come_back_byte_identical(rounds: list[Path], site: Path,
                                                          tmp_path: Path) -> None:
    again = tmp_path / "site"
    shutil.copytree(site, again)
    ds = again / "dataset"
    want = parts(ds)
    assert want == parts(site / "dataset")
    assert "up to date" in CliRunner().invoke(main, ["index", *map(str, rounds), "-o",
                                                     str(again), "-j", "1"]).output
    shutil.rmtree(ds / "compacted")
    index(rounds, again)
    assert parts(ds) == want
    # one part file missing is enough to rebuild it
    (ds / "compacted" / "values" / dataset.part_name(dataset.bucket_of(GLOBBY))).unlink()
    index(rounds, again)
    assert parts(ds) == want


def test_compacted_bytes_are_deterministic(rounds: list[Path], site: Path,
                                           tmp_path: Path) -> None:
    index(rounds, tmp_path / "site")
    assert parts(tmp_path / "site" / "dataset") == parts(site / "dataset")
    assert len(parts(site / "dataset")) == 4 * len({dataset.bucket_of(r.name) for r in rounds})


def test_the_index_pages_are_the_same_with_the_compacted_trend(
        rounds: list[Path], site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dataset, "duckdb_available", lambda: False)
    index(rounds, tmp_path / "plain")
    assert (tmp_path / "plain" / "index.html").read_bytes() == \
        (site / "index.html").read_bytes()



def test_an_interrupted_run_compacts_on_the_next(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """compact runs before the commit: stopped there, the round is still changed next time and
    its bucket is written then."""
    rounds = tiny_rounds.generate(tmp_path / "rounds", 2)
    site = tmp_path / "site"
    index(rounds, site)
    before = parts(site / "dataset")
    target = rounds[1] / "vllm" / "bench" / "c4.json"
    data = json.loads(target.read_text())
    data["output_throughput"] *= 1.01
    target.write_text(json.dumps(data))

    def stop(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(dataset, "compact", stop)
    with pytest.raises(KeyboardInterrupt):
        build_index(rounds, site, jobs=1)
    assert parts(site / "dataset") == before
    monkeypatch.undo()
    index(rounds, site)
    index(rounds, tmp_path / "want")
    assert parts(site / "dataset") == parts(tmp_path / "want" / "dataset") != before
    # a FIFO in place of a per-round file is skipped, never read
    fifo = site / "dataset" / "runs" / f"{rounds[0].name}.parquet"
    fifo.unlink()
    os.mkfifo(fifo)
    dataset.compact(site / "dataset", [r.name for r in rounds],
                    [dataset.bucket_of(rounds[0].name)])
    assert not (site / "dataset" / "compacted" / "runs" /
                dataset.part_name(dataset.bucket_of(rounds[0].name))).exists() or \
        rounds[0].name not in pq.read_table(
            site / "dataset" / "compacted" / "runs" /
            dataset.part_name(dataset.bucket_of(rounds[0].name))).column("round").to_pylist()
