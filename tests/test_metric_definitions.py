"""One stated definition per metric (issue 30, item 5): docs/METRICS.md and the page's Terms
define every metric the page uses; every client reportgen reads has its own definitions, with
their source, in the client table and in docs/CLIENTS.md."""

from __future__ import annotations

from pathlib import Path

from reportgen.files.resources import templates_dir
from reportgen.load.formats import READERS
from reportgen.reference.clients import client
from reportgen.text.i18n import load_ui

DOCS = Path(__file__).resolve().parents[1] / "docs"
MEASURED_BY_A_CLIENT = [r.CLIENT for r in READERS if r.CLIENT != "tidy"]  # tidy: your harness


def test_metrics_doc_defines_each_metric_and_links_the_clients() -> None:
    text = (DOCS / "METRICS.md").read_text(encoding="utf-8")
    for name in ("run span", "output tok/s", "request throughput", "TTFT", "ITL", "TPOT",
                 "E2EL", "decode step", "percentiles"):
        assert f"| **{name}**" in text, name
    assert "(CLIENTS.md)" in text


def test_every_client_read_has_its_definitions_and_source() -> None:
    clients_doc = (DOCS / "CLIENTS.md").read_text(encoding="utf-8")
    for cid in [*MEASURED_BY_A_CLIENT, "vllm", "sglang"]:
        row = client(cid)
        assert row.source and "ttft" in row.definitions and row.throughput is not None, cid
        assert f"| {row.name.split()[0]}".lower() in clients_doc.lower(), cid


def test_terms_define_request_throughput_and_the_run_span() -> None:
    ui = load_ui(templates_dir() / "i18n" / "ui.toml")
    for key in ("req_s", "span", "output_tok_s", "tpot", "itl", "e2el", "ttft"):
        assert ui.t(f"glossary.{key}.what").en, key
    assert "run span" in ui.t("glossary.output_tok_s.what").en
