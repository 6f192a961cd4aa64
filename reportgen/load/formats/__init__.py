"""Readers for benchmark clients other than vLLM/SGLang: one module per format, one registry line.

The common record is the vLLM ``--save-result`` JSON object (the keys ``bench_json.bench_rows``
reads): every reader turns its client's files into such records, with units normalised to that
format's (latency statistics in ms: ``median_ttft_ms``; ``duration`` in s; per-request arrays
``ttfts``/``itls``/``latencies`` in s, ``input_lens``/``output_lens`` in tokens, ``errors``
strings), so placement, analysis and the page need nothing new for a new client.

A reader module defines:

- ``CLIENT: str`` — the client's id, e.g. ``"guidellm"`` (shown name in templates/i18n);
- ``sniff(name: str, head: bytes) -> str | None`` — decided by content (``name`` only narrows:
  a file name is never enough): ``None`` when the file is not this format, else a short
  description of what it is (used when nothing can be placed: "GuideLLM benchmarks.json");
- ``read(raw: bytes, shown: str) -> list[ClientRun]`` — every run in the file; InputError
  (naming ``shown`` and, where known, the line) for a file of this format that is broken.

Optionally, for files too large to hold whole (AIPerf's per-request records), both of:

- ``streams(what: str) -> bool`` — whether a file ``sniff`` described as ``what`` is read as a
  stream;
- ``read_stream(stream: InputStream, shown: str) -> list[ClientRun] | None`` — ``read`` from
  the open file, or None to have ``read`` decide (same values, same errors) on the whole file.

``READERS`` lists them in the order they are tried; the first whose ``sniff`` answers wins.
``sniff`` sees at most the file's first 64 KiB. ``reportgen.load.client_files`` does the rest: the
scan asks every reader, the round loader reads what one claimed, joins split runs, and sets the
summary's ``client`` column from ``CLIENT``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class NotRecomputable:
    """Statistics of the client's own that are not what reportgen recomputes from the run's
    per-request arrays (numpy's linear percentiles of unweighted per-request values), so the
    self-check ``summary.arrays`` does not compare them: a sketch's estimates, another
    percentile method, a weighted distribution, another definition of the metric."""

    metric: str        # "ttft", "tpot", "itl", "e2el" …; "*" for every metric
    percentiles: bool  # True: only its percentiles (mean and std are comparable); False: all
    why: str           # one line, from the client's source


@dataclass(frozen=True)
class ClientRun:
    """One run of a client, in the common record's keys."""

    record: dict[str, Any]   # vLLM result keys (units as in vLLM's format)
    line: int = 1            # where the run starts in its file (1-based), for the runs table
    client: str = ""         # the reader's CLIENT
    # how each unit was established: key → "seconds per the client's schema (file:key)" …
    units: dict[str, str] = field(default_factory=dict)
    # settings the file states about the run (model, gpu, tensor_parallel, input_len …):
    # setting → (value, source)
    settings: dict[str, tuple[str, str]] = field(default_factory=dict)
    # a run that is listed but not used (aggregate of runs counted elsewhere, warm-up …): why
    not_a_run: str = ""
    # joining a run split over two files (llmperf's *_summary.json + *_individual_responses
    # .json): ``key`` names this run; a ClientRun with ``requests_of`` set carries only the
    # per-request arrays of the run of that key in another file of the same client (the one in
    # the nearest folder), and is never a run of its own. ``requests_of="<prefix>*"``: the
    # requests of several runs run one after another (inference-perf's stages), in order of
    # sending: cut, in the order of their keys, into the runs of that prefix in the same
    # folder, by each run's request count (``num_prompts``)
    key: str = ""
    requests_of: str = ""
    # how the client defines a metric where clients differ (ITL, TPOT: per chunk or per token,
    # pooled or per request; percentile method): metric → definition, see docs/CLIENTS.md
    definitions: dict[str, str] = field(default_factory=dict)
    # the client's statistics that its own arrays do not reproduce, and why (the self-check
    # summary.arrays reads this; docs/CONTRIBUTING.md "Add a reader")
    not_recomputable: tuple[NotRecomputable, ...] = ()
    # the record's ``request_rate`` is the rate the client measured, not one it was set to
    # send (a GuideLLM sweep's benchmarks): the runs table's ``concurrency_note`` says so
    rate_measured: bool = False


Sniff = Callable[[str, bytes], "str | None"]
Read = Callable[[bytes, str], "list[ClientRun]"]

READERS: list[ModuleType] = []  # filled below, one line per format


SNIFF_HEAD = 64 << 10  # a reader decides from the first 64 KiB (2,000 files sniff in ms)


def sniff(name: str, head: bytes) -> tuple[str, str] | None:
    """(client, what the file is) for the first reader that claims it, else None."""
    head = head[:SNIFF_HEAD]
    for module in READERS:
        what = module.sniff(name, head)
        if what:
            return module.CLIENT, what
    return None


def reader(client: str) -> ModuleType:
    return next(r for r in READERS if client == r.CLIENT)


def _add(module: str) -> None:
    READERS.append(importlib.import_module(f"{__name__}.{module}"))


# GuideLLM first: its sniff is two marker scans of the head, AIPerf's up to eight (a
# 64 KiB benchmarks.json head scanned for every AIPerf marker cost more than reading it)
_add("guidellm")
_add("aiperf")
_add("genai_perf")
_add("inference_perf")
_add("llmperf")
_add("inferencex")
_add("tidy")  # the most lenient: last
