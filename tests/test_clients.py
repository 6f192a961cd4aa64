"""Each configuration's client, named (issue 20, item 4): the client comes from the file's
format and keys, the page names it per configuration, and when the clients define a metric
differently the Terms section says how and the tables mark the metric with §."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.reference.clients import client, differing_metrics

TAG = re.compile(r"<[^>]+>")
TIERS = (1, 4, 16)


def metrics(prefix_e2el: str, conc: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, value in (("ttft", 100.0 + conc), ("tpot", 10.0), ("itl", 10.0),
                        (prefix_e2el, 1100.0 + conc)):
        out |= {f"mean_{name}_ms": value, f"median_{name}_ms": value,
                f"std_{name}_ms": 1.0, f"p99_{name}_ms": 1.5 * value}
    return out


def vllm_run(conc: int) -> dict[str, Any]:
    n = 8 * conc
    duration = 10.0 + conc
    return {"date": "20250301-101500", "backend": "vllm", "label": None,
            "model_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": n,
            "request_rate": "inf", "max_concurrency": conc, "duration": duration,
            "completed": n, "failed": 0, "total_input_tokens": 1000 * n,
            "total_output_tokens": 100 * n, "request_throughput": n / duration,
            "output_throughput": 100 * n / duration,
            "total_token_throughput": 1100 * n / duration, **metrics("e2el", conc)}


def sglang_run(conc: int) -> dict[str, Any]:
    """A line of SGLang bench_serving's JSONL (keys of python/sglang/bench_serving.py)."""
    n = 8 * conc
    duration = 12.0 + conc
    return {"backend": "sglang", "dataset_name": "random", "request_rate": float("inf"),
            "max_concurrency": conc, "random_input_len": 1000, "random_output_len": 100,
            "random_range_ratio": 1.0, "duration": duration, "completed": n,
            "total_input_tokens": 1000 * n, "total_output_tokens": 100 * n,
            "total_output_tokens_retokenized": 100 * n, "request_throughput": n / duration,
            "input_throughput": 1000 * n / duration, "output_throughput": 100 * n / duration,
            **metrics("e2e_latency", conc), "concurrency": conc * 0.9, "accept_length": None}


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("clients") / "round"
    (root / "vllm").mkdir(parents=True)
    (root / "sglang").mkdir()
    for conc in TIERS:
        (root / "vllm" / f"c{conc}.json").write_text(json.dumps(vllm_run(conc)))
    lines = [json.dumps(sglang_run(c)).replace("Infinity", "Infinity") for c in TIERS]
    (root / "sglang" / "sglang_1203_24_1000_100.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_the_table_knows_how_the_two_clients_differ() -> None:
    assert client("vllm").name == "vllm bench serve"
    assert client("sglang").name == "SGLang bench_serving"
    assert differing_metrics(["vllm", "sglang"]) == ("itl",)
    assert differing_metrics(["vllm", "vllm", ""]) == ()
    # a client the table does not know: nothing is assumed comparable
    assert client("someclient").name == "someclient"
    assert differing_metrics(["vllm", "someclient"]) == ("ttft", "itl", "tpot")


def test_each_configuration_names_its_client(mixed: Path, tmp_path: Path) -> None:
    tables = json.loads(CliRunner().invoke(main, ["tables", str(mixed), "--format",
                                                  "json"]).output)
    values = tables["values"]
    by_client = {values[k]: k.split(".")[1] for k in values
                 if k.startswith("engines.") and k.endswith(".client")}
    assert set(by_client) == {"vllm", "sglang"}
    assert tables["round"]["clients_differ"] == ["itl"]

    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["build", str(mixed), "-o", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    text = html.unescape(" ".join(TAG.sub(" ", page).split()))
    sglang_cfg, vllm_cfg = by_client["sglang"], by_client["vllm"]
    named = {f"{vllm_cfg}: vllm bench serve", f"{sglang_cfg}: SGLang bench_serving"}
    assert any(f"{a}; {b}" in text for a in named for b in named - {a}), "setup card (en)"
    named_zh = {f"{vllm_cfg}：vllm bench serve", f"{sglang_cfg}：SGLang bench_serving"}
    assert any(f"{a}；{b}" in text for a in named_zh for b in named_zh - {a}), "setup card (zh)"
    assert "measured by the same client" not in text
    assert "How each client defines the metrics" in text
    assert client("sglang").definitions["itl"].en in text
    assert "These clients define ITL differently" in text
    assert "ITL p50 §" in text and "TTFT p50 §" not in text
    assert "§ ITL measured by clients that define it differently" in text


def test_one_client_keeps_the_single_sentence(tmp_path: Path) -> None:
    root = tmp_path / "round"
    (root / "a").mkdir(parents=True)
    for conc in TIERS:
        (root / "a" / f"c{conc}.json").write_text(json.dumps(vllm_run(conc)))
    out = tmp_path / "report.html"
    assert CliRunner().invoke(main, ["build", str(root), "-o", str(out)]).exit_code == 0
    text = html.unescape(" ".join(TAG.sub(" ", out.read_text(encoding="utf-8")).split()))
    assert "measured from outside by the same client (vllm bench serve)" in text
    assert "§" not in text
    assert "How each client defines the metrics" not in text   # vLLM's are the Terms' own


def test_one_client_with_definitions_of_its_own_shows_them(tmp_path: Path) -> None:
    """A round measured by inference-perf alone: its TPOT ends at the last token and its ITL
    counts in-chunk zeros, so the Terms say whose definitions its figures follow."""
    fixture = Path(__file__).parent / "data" / "clients" / "inference-perf-0.7.0"
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["build", str(fixture), "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = html.unescape(" ".join(TAG.sub(" ", out.read_text(encoding="utf-8")).split()))
    assert "How each client defines the metrics" in text
    assert client("inference-perf").definitions["tpot"].en in text
    assert "Every figure of this round was measured by inference-perf, which defines " \
        "TTFT / ITL / TPOT otherwise than the Terms above" in text
    assert "These clients define TTFT, ITL and TPOT the same way" not in text


def test_a_wrong_client_record_names_its_line(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A client file's bytes are not kept after it is read; a record found wrong later is
    still reported at the line of its key (the file is read again for it)."""
    from types import SimpleNamespace

    from reportgen.errors import InputError
    from reportgen.load import client_files
    from reportgen.load.formats import ClientRun
    from reportgen.load.scanned import ScannedFile

    path = tmp_path / "run.json"
    path.write_text('{\n  "duration": 10.0,\n  "num_prompts": 3,\n  "completed": 5\n}\n')
    record = {"duration": 10.0, "num_prompts": 3, "completed": 5}
    fake = SimpleNamespace(read=lambda raw, shown: [ClientRun(dict(record), 1, "fake")])
    monkeypatch.setattr(client_files, "reader", lambda client: fake)
    scanned = ScannedFile(path, "r/run.json", "run.json", "client", "", "fake")
    with pytest.raises(InputError) as err:
        client_files.read_client_files([scanned])
    assert err.value.line == 4 and "exceed num_prompts" in err.value.message
