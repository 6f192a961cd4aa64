"""reportgen.load.placement: which runs are copies of each other, which configuration, workload,
axis point and repeat each run belongs to. Tiny hand-made summary frames, exact answers."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

from reportgen.load.placement import (
    Duplicate,
    Unplaced,
    Workload,
    choose_axis,
    configurations,
    dedupe,
    effective_concurrency,
    layout,
    place,
)
from reportgen.load.workload_groups import workloads

NAN = math.nan
INF = math.inf
BASE: dict[str, Any] = {
    "source": "r/x.json", "record": 0, "rel": "x.json", "copy": 0, "many": False, "line": 1.0,
    "date": None, "label": None, "model_id": "org/model", "backend": "vllm", "num_prompts": 10.0,
    "completed": 10.0, "total_input_tokens": 1000.0, "total_output_tokens": 500.0,
    "duration_s": 5.0, "output_throughput_tok_s": 100.0, "ttft_median_ms": 20.0,
    "itl_median_ms": 5.0, "ttft_mean_ms": 21.0, "e2el_median_ms": NAN, "dataset": None,
    "input_len_setting": NAN, "output_len_setting": NAN, "sharegpt_output_len_setting": NAN,
    "concurrency": NAN, "has_max_concurrency_key": True, "request_rate": INF,
    "engine": "e", "workload": "w", "range_ratio_setting": NAN, "client": "vllm",
}


def frame(*rows: dict[str, Any]) -> pd.DataFrame:
    """Rows over BASE; a run is named by its path inside the round (``rel``), which these
    tests give as ``source``."""
    return pd.DataFrame([BASE | ({"rel": r["source"]} if "source" in r and "rel" not in r
                                 else {}) | r for r in rows])


# ------------------------------------------------------------------ dedupe


def test_json_and_its_console_copy_keep_the_json() -> None:
    # the console prints two decimals: 5.123456 s → "5.12", 102.3456 tok/s → "102.35"
    json_run = {"source": "r/c8.json", "copy": 0, "duration_s": 5.123456,
                "output_throughput_tok_s": 102.3456, "ttft_median_ms": 20.004}
    console = {"source": "r/c8.log", "copy": 2, "duration_s": 5.12,
               "output_throughput_tok_s": 102.35, "ttft_median_ms": 20.0}
    for rows in ((json_run, console), (console, json_run)):
        kept, dups = dedupe(frame(*rows))
        assert list(kept["source"]) == ["r/c8.json"]
        assert dups == [Duplicate(dropped="r/c8.log", kept="r/c8.json")]


def test_one_run_file_wins_over_a_record_of_a_many_run_file() -> None:
    # the entries of a JSON list share its line, so they are named by position
    summary = {"source": "r/summary.json", "record": 2, "copy": 1, "many": True, "line": NAN}
    run = {"source": "r/run=2.json", "record": 0, "copy": 0}
    kept, dups = dedupe(frame(summary, run))
    assert list(kept["source"]) == ["r/run=2.json"]
    assert dups == [Duplicate(dropped="r/summary.json#3", kept="r/run=2.json")]


def test_two_genuine_repeats_with_close_numbers_are_both_kept() -> None:
    kept, dups = dedupe(frame(
        {"source": "r/run1.json", "duration_s": 5.00, "output_throughput_tok_s": 100.0},
        {"source": "r/run2.json", "duration_s": 5.01, "output_throughput_tok_s": 99.8},
    ))
    assert list(kept["source"]) == ["r/run1.json", "r/run2.json"]
    assert dups == []


def test_repeats_that_differ_only_in_latency_are_both_kept() -> None:
    kept, dups = dedupe(frame({"source": "r/a.json", "itl_median_ms": 5.01},
                              {"source": "r/b.json", "itl_median_ms": 5.02}))
    assert len(kept) == 2 and dups == []


def test_runs_without_a_duration_are_kept_and_never_compared(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a tidy import may state no duration or count: such a run cannot be told for a copy, and
    # comparing each with every other one made 2,000 of them take seconds (issue 18)
    from reportgen.load import copies

    calls = []
    original = copies.same_run

    def counted(*args: Any) -> bool:
        calls.append(args)
        return original(*args)

    monkeypatch.setattr(copies, "same_run", counted)
    rows = [{"source": f"r/{i}.csv", "duration_s": NAN, "completed": NAN} for i in range(3)]
    kept, dups = dedupe(frame(*rows, {"source": "r/x.json"}, {"source": "r/x.log", "copy": 2}))
    assert list(kept["source"]) == ["r/0.csv", "r/1.csv", "r/2.csv", "r/x.json"]
    assert dups == [Duplicate("r/x.log", "r/x.json")]
    assert len(calls) == 1  # only x.log against x.json


def test_copies_that_state_different_dates_or_models_are_two_runs() -> None:
    same = {"duration_s": 6.0, "output_throughput_tok_s": 83.33}
    kept, dups = dedupe(frame(
        same | {"source": "r/a.json", "date": "20250101-120000"},
        same | {"source": "r/b.json", "date": "20250102-120000"},
        same | {"source": "r/c.json", "date": "20250101-120000", "model_id": "org/other"},
        same | {"source": "r/a.log", "copy": 2, "date": None, "model_id": None},
    ))
    assert list(kept["source"]) == ["r/a.json", "r/b.json", "r/c.json"]
    assert dups == [Duplicate("r/a.log", "r/a.json")]


def test_dedupe_keeps_the_original_row_order() -> None:
    kept, dups = dedupe(frame(
        {"source": "r/b.json", "duration_s": 7.0},
        {"source": "r/a.log", "copy": 2, "duration_s": 6.0},
        {"source": "r/a.json", "duration_s": 6.0},
    ))
    assert list(kept.index) == [0, 2]
    assert dups == [Duplicate("r/a.log", "r/a.json")]


def test_dedupe_of_nothing() -> None:
    kept, dups = dedupe(frame().iloc[0:0])
    assert kept.empty and dups == []


# ------------------------------------------------------------------ workloads


def test_workloads_from_settings_are_exact() -> None:
    random = {"dataset": "random", "input_len_setting": 1024.0}
    ids, specs = workloads(frame(
        random | {"output_len_setting": 128.0, "total_output_tokens": 1280.0},
        random | {"output_len_setting": 128.0, "total_output_tokens": 640.0},
        random | {"output_len_setting": 130.0, "total_output_tokens": 1280.0},
    ))
    assert list(ids) == ["random-1024-128", "random-1024-128", "random-1024-130"]
    assert specs == [Workload("random-1024-128", "random", 1024.0, 128.0, True),
                     Workload("random-1024-130", "random", 1024.0, 130.0, True)]
    assert specs[0].label("en") == "random · in 1,024 / out 128"
    assert specs[0].label("zh") == "random · 输入 1,024 / 输出 128"


def test_workloads_from_means_group_within_ten_percent() -> None:
    ids, specs = workloads(frame(
        {"total_input_tokens": 10000.0, "total_output_tokens": 1000.0},  # 1000 / 100 per request
        {"total_input_tokens": 10800.0, "total_output_tokens": 1040.0},  # 1080 / 104: +8 %
        {"total_input_tokens": 12000.0, "total_output_tokens": 1000.0},  # 1200 / 100: +20 %
    ))
    # labelled with lengths one of its runs used (the lower middle run), never 1040-102,
    # the mean of two runs that no run used
    assert list(ids) == ["1000-100", "1000-100", "1200-100"]
    assert specs == [Workload("1000-100", None, 1000, 100, False),
                     Workload("1200-100", None, 1200, 100, False)]
    assert specs[0].label("en") == "in ≈1,000 / out ≈100"
    assert specs[0].label("zh") == "输入 ≈1,000 / 输出 ≈100"


def test_lengths_stated_in_names_group_exactly() -> None:
    # 18432 and 20480 are within 10 % of each other, but the names state them: two workloads
    ids, specs = workloads(frame(
        {"total_input_tokens": 18432.0, "total_output_tokens": 128.0,
         "rel": "r/glm5_fp8_vllm_tp8_isl18432_osl128_conc4.json"},
        {"total_input_tokens": 20480.0, "total_output_tokens": 128.0,
         "rel": "r/glm5_fp8_vllm_tp8_isl20480_osl128_conc4.json"},
    ))
    assert list(ids) == ["18432-128", "20480-128"]
    assert all(s.from_settings for s in specs)


@pytest.mark.parametrize(("rel", "want"), [
    ("r/minimax_m25_vllm_tep8_isl1024_osl128_conc16.json", "tep8"),
    ("r/minimax_m25_vllm_dep8_isl1024_osl128_conc16.json", "dep8"),
    ("deepseek-tp4_pp2/bench/c8.json", "tp4-pp2"),
    ("TP8-EP8/result.json", "tp8-ep8"),
    ("vllm-bench-tpu/result-short-rate8.json", ""),
    ("sglang_outputs_deepseek_dp_mla_output.jsonl", ""),
])
def test_parallel_layouts_read_from_names(rel: str, want: str) -> None:
    assert layout(rel) == want


def test_two_layouts_are_two_configurations_never_repeats() -> None:
    summary = frame(
        {"rel": "r/minimax_m25_vllm_tep8_isl1024_osl128_conc16.json", "concurrency": 16.0},
        {"rel": "r/minimax_m25_vllm_dep8_isl1024_osl128_conc16.json", "concurrency": 16.0},
    )
    cfg, configs = configurations(summary, pd.Series(["w", "w"], index=summary.index))
    assert len(set(cfg)) == 2
    assert sorted(c.label for c in configs) == ["DEP8", "TEP8"]


def test_output_length_off_by_more_than_ten_percent_is_another_workload() -> None:
    ids, _ = workloads(frame({"total_output_tokens": 1000.0}, {"total_output_tokens": 1120.0}))
    assert list(ids) == ["100-100", "100-112"]


def test_sharegpt_without_lengths_is_one_workload() -> None:
    ids, specs = workloads(frame(
        {"dataset": "sharegpt", "total_input_tokens": 2200.0, "total_output_tokens": 1900.0},
        {"dataset": "sharegpt", "total_input_tokens": 4500.0, "total_output_tokens": 3800.0},
        {"dataset": "sharegpt", "total_input_tokens": 900.0, "total_output_tokens": 700.0},
        {"dataset": "random", "input_len_setting": 1024.0, "output_len_setting": 1024.0},
    ))
    assert list(ids) == ["sharegpt", "sharegpt", "sharegpt", "random-1024-1024"]
    # workloads are ordered by length: one without set lengths comes last
    assert [w.id for w in specs] == ["random-1024-1024", "sharegpt"]
    assert specs[1].id == "sharegpt" and specs[1].dataset == "sharegpt"
    assert math.isnan(specs[1].input_tokens) and math.isnan(specs[1].output_tokens)
    assert specs[1].label("en") == "sharegpt"


def test_workloads_are_ordered_by_length_and_named_by_their_files() -> None:
    _, specs = workloads(frame(
        {"rel": "result-long-rate1.json", "total_input_tokens": 8000.0,
         "total_output_tokens": 1000.0},
        {"rel": "result-short-rate1.json", "total_input_tokens": 1000.0,
         "total_output_tokens": 250.0},
        {"rel": "result-short-rate2.json", "total_input_tokens": 1000.0,
         "total_output_tokens": 250.0},
    ))
    assert [w.id for w in specs] == ["100-25", "800-100"]   # (10 requests each)
    assert [w.name for w in specs] == ["short", "long"]
    assert specs[0].label("en").startswith("short · in ≈")


def test_sharegpt_runs_with_different_fixed_output_lengths_are_two_workloads() -> None:
    ids, specs = workloads(frame(
        {"dataset": "sharegpt", "sharegpt_output_len_setting": 128.0,
         "total_output_tokens": 1280.0},
        {"dataset": "sharegpt", "sharegpt_output_len_setting": 1024.0,
         "total_output_tokens": 10240.0},
    ))
    assert list(ids) == ["sharegpt-128", "sharegpt-1024"]
    assert [(w.dataset, w.output_tokens, w.from_settings) for w in specs] == [
        ("sharegpt", 128.0, True), ("sharegpt", 1024.0, True)]
    assert all(math.isnan(w.input_tokens) for w in specs)
    assert specs[0].label("en") == "sharegpt · out 128"


def test_a_run_naming_its_dataset_joins_runs_of_unknown_dataset_with_its_lengths() -> None:
    ids, specs = workloads(frame(
        {"total_input_tokens": 10240.0, "total_output_tokens": 2560.0},
        {"total_input_tokens": 10240.0, "total_output_tokens": 2560.0},
        {"dataset": "random", "input_len_setting": 1024.0, "output_len_setting": 256.0,
         "total_input_tokens": 10240.0, "total_output_tokens": 2560.0},
    ))
    assert ids[0] == ids[1] == ids[2]
    assert len(specs) == 1


def test_workloads_come_shortest_first_whatever_their_run_counts() -> None:
    short = {"dataset": "random", "input_len_setting": 128.0, "output_len_setting": 128.0}
    long = {"dataset": "random", "input_len_setting": 4096.0, "output_len_setting": 1024.0}
    ids, specs = workloads(frame(short, long, long, long, short | {"input_len_setting": 256.0}))
    assert [s.id for s in specs] == ["random-128-128", "random-256-128", "random-4096-1024"]
    assert list(ids) == ["random-128-128", "random-4096-1024", "random-4096-1024",
                         "random-4096-1024", "random-256-128"]


def test_workloads_of_nothing() -> None:
    ids, specs = workloads(frame().iloc[0:0])
    assert ids.empty and specs == []


# ------------------------------------------------------------------ configurations


def _configs(rows: list[dict[str, Any]], wl: list[str] | None = None
             ) -> tuple[list[str], list[tuple[str, str, str]]]:
    summary = frame(*rows)
    assigned, configs = configurations(summary, pd.Series(wl or ["w"] * len(summary)))
    return list(assigned), [(c.id, c.label, c.basis) for c in configs]


def test_configurations_by_folder() -> None:
    assert _configs([{"rel": "vllm/bench/c1.json"}, {"rel": "vllm/bench/c8.json"},
                     {"rel": "sglang/bench/c1.json"}]) == (
        ["vllm", "vllm", "sglang"],
        [("vllm", "vllm", "folder"), ("sglang", "sglang", "folder")])


def test_configurations_by_folder_drop_shared_words() -> None:
    assert _configs([{"rel": "vllm-bench-gpu/res/r1.json"},
                     {"rel": "vllm-bench-tpu/res/r1.json"}]) == (
        ["gpu", "tpu"], [("gpu", "gpu", "folder"), ("tpu", "tpu", "folder")])


def test_one_jsonl_file_per_configuration() -> None:
    assert _configs([
        {"rel": "out_llama_70b_output.jsonl", "many": True, "record": 0},
        {"rel": "out_llama_70b_output.jsonl", "many": True, "record": 1},
        {"rel": "out_llama_405b_output.jsonl", "many": True, "record": 0},
    ]) == (["70b", "70b", "405b"], [("70b", "70b", "file"), ("405b", "405b", "file")])


def test_file_name_words_explained_by_the_workload_do_not_split() -> None:
    rels = ["result-short-rate1.json", "result-short-rate2.json", "result-long-rate1.json",
            "result-long-rate2.json"]
    assigned, configs = _configs([{"rel": r} for r in rels], ["s", "s", "l", "l"])
    assert assigned == ["model"] * 4
    assert configs == [("model", "model", "single")]


def test_file_name_words_not_explained_by_the_workload_split() -> None:
    assert _configs([{"rel": "vllm-c1.json"}, {"rel": "vllm-c8.json"},
                     {"rel": "sglang-c1.json"}]) == (
        ["vllm", "vllm", "sglang"],
        [("vllm", "vllm", "file name"), ("sglang", "sglang", "file name")])


def test_label_field_wins_over_folder() -> None:
    assert _configs([{"rel": "a/c1.json", "label": "Baseline"},
                     {"rel": "b/c1.json", "label": "Tuned v2"}]) == (
        ["baseline", "tuned-v2"],
        [("baseline", "Baseline", "label"), ("tuned-v2", "Tuned v2", "label")])


def test_label_splits_runs_of_one_folder() -> None:
    assert _configs([{"rel": "a/c1.json", "label": "X"}, {"rel": "a/c2.json", "label": "Y"},
                     {"rel": "a/c3.json", "label": "X"}]) == (
        ["x", "y", "x"], [("x", "X", "label"), ("y", "Y", "label")])


def test_served_model_separates_runs_of_one_folder() -> None:
    assert _configs([{"rel": "c1.json", "model_id": "org/llama-8b"},
                     {"rel": "c2.json", "model_id": "org/qwen-7b"}]) == (
        ["llama-8b", "qwen-7b"],
        [("llama-8b", "llama-8b", "model"), ("qwen-7b", "qwen-7b", "model")])


def test_nothing_separates_one_configuration_named_by_its_model() -> None:
    assert _configs([{"rel": "c1.json"}, {"rel": "c2.json"}]) == (
        ["model", "model"], [("model", "model", "single")])


def test_sweep_bench_part_of_a_folder_is_not_a_configuration() -> None:
    assigned, configs = _configs([
        {"rel": "exp/SERVE--a=1-BENCH--max_concurrency=1/run=0.json"},
        {"rel": "exp/SERVE--a=1-BENCH--max_concurrency=8/run=0.json"},
        {"rel": "exp/SERVE--a=2-BENCH--max_concurrency=1/run=0.json"},
    ])
    assert assigned[0] == assigned[1] != assigned[2]
    assert [c[2] for c in configs] == ["folder", "folder"]


@pytest.mark.parametrize(("folders", "wanted"), [
    (("exp/SERVE--gpu_memory_utilization=0.8", "exp/SERVE--gpu_memory_utilization=0.9"),
     ("gpu_memory_utilization=0.8", "gpu_memory_utilization=0.9")),
    (("vllm-0.10.1", "vllm-0.11.0"), ("0.10.1", "0.11.0")),
])
def test_folder_labels_keep_whole_values(folders: tuple[str, str],
                                         wanted: tuple[str, str]) -> None:
    _, configs = _configs([{"rel": f"{f}/run=0.json"} for f in folders])
    assert tuple(c[1] for c in configs) == wanted


def test_configurations_of_nothing() -> None:
    assigned, configs = configurations(frame().iloc[0:0], pd.Series([], dtype=object))
    assert assigned.empty and configs == []


# ------------------------------------------------------------------ the sweep axis


def test_effective_concurrency() -> None:
    conc, note = effective_concurrency(frame(
        # 2024 client: no max_concurrency key, every request at once → num_prompts
        {"has_max_concurrency_key": False, "request_rate": INF, "num_prompts": 200.0},
        # explicit null: the client could limit and did not → stays unknown
        {"has_max_concurrency_key": True, "request_rate": INF, "num_prompts": 200.0},
        # no key, but rate-limited: the arrival rate, not a concurrency
        {"has_max_concurrency_key": False, "request_rate": 4.0, "num_prompts": 200.0},
        {"concurrency": 8.0, "request_rate": INF, "num_prompts": 200.0},
        {"has_max_concurrency_key": False, "request_rate": INF, "num_prompts": NAN},
    ))
    assert conc.tolist()[0] == 200.0 and conc.tolist()[3] == 8.0
    assert [math.isnan(c) for c in conc] == [False, True, True, False, True]
    assert note.tolist() == ["num_prompts", "", "", "", ""]


@pytest.mark.parametrize(("conc", "rate", "axis"), [
    ([1.0, 2.0, 4.0], [INF, INF, INF], "concurrency"),
    ([8.0, 8.0], [INF, INF], "concurrency"),
    ([NAN, NAN], [1.0, 2.0], "request_rate"),
    ([NAN, NAN], [INF, INF], "request_rate"),
    ([8.0, 8.0], [1.0, 2.0], "request_rate"),         # only the rate varies
    ([8.0, 16.0], [1.0, 2.0], "concurrency"),         # both vary: concurrency
    ([8.0, NAN], [INF, 2.0], "request_rate"),         # not every run has a concurrency
    ([8.0, NAN], [2.0, 2.0], "concurrency"),          # neither varies: the one that exists
    ([NAN, NAN], [NAN, NAN], "request_rate"),
])
def test_choose_axis(conc: list[float], rate: list[float], axis: str) -> None:
    assert choose_axis(pd.Series(conc), pd.Series(rate)) == axis


def _placed(axis: str | None, *rows: dict[str, Any]
            ) -> tuple[str, list[tuple[str, str, float, int]], list[Unplaced]]:
    chosen, placed, unplaced = place(frame(*rows), axis)
    return chosen, [(s, e, t, r) for s, e, t, r in zip(
        placed["source"], placed["engine"], placed["tier"], placed["repeat"], strict=True)], \
        unplaced


def test_place_numbers_repeats_per_cell() -> None:
    axis, placed, unplaced = _placed(
        None,
        {"source": "r/c4-run2.json", "concurrency": 4.0},
        {"source": "r/c4-run1.json", "concurrency": 4.0},
        {"source": "r/c1-run1.json", "concurrency": 1.0},
        {"source": "r/c4-run3.json", "concurrency": 4.0},
        {"source": "r/c4-other.json", "concurrency": 4.0, "engine": "f"},
        {"source": "r/c4-run1.json", "concurrency": 4.0, "workload": "w2"},
    )
    assert axis == "concurrency"
    assert placed == [
        ("r/c1-run1.json", "e", 1.0, 1),
        ("r/c4-run1.json", "e", 4.0, 1),
        ("r/c4-run2.json", "e", 4.0, 2),
        ("r/c4-run3.json", "e", 4.0, 3),
        ("r/c4-run1.json", "e", 4.0, 1),   # another workload: its own cell
        ("r/c4-other.json", "f", 4.0, 1),  # another configuration: its own cell
    ]
    assert unplaced == []


def test_place_records_of_one_file_in_record_order() -> None:
    _, placed, _ = _placed(
        "request_rate",
        {"source": "r/a.jsonl", "many": True, "record": 1, "request_rate": 2.0},
        {"source": "r/a.jsonl", "many": True, "record": 0, "request_rate": 2.0},
    )
    assert placed == [("r/a.jsonl", "e", 2.0, 1), ("r/a.jsonl", "e", 2.0, 2)]


def test_place_keeps_num_prompts_concurrency_and_its_note() -> None:
    _, placed, _ = place(frame({"has_max_concurrency_key": False, "num_prompts": 64.0}))
    assert placed["concurrency"].tolist() == [64.0]
    assert placed["concurrency_note"].tolist() == ["num_prompts"]
    assert placed["tier"].tolist() == [64.0]


def test_unplaced_runs_on_the_concurrency_axis() -> None:
    axis, placed, unplaced = _placed(
        "concurrency",
        {"source": "r/c8.json", "concurrency": 8.0},
        {"source": "r/rate.jsonl", "many": True, "record": 2, "line": 3.0, "request_rate": 4.0},
        {"source": "r/rate2.json", "request_rate": 2.0},
    )
    assert axis == "concurrency"
    assert placed == [("r/c8.json", "e", 8.0, 1)]
    reason = "no max_concurrency (a rate-limited run?): no place on the concurrency axis"
    assert unplaced == [Unplaced("r/rate.jsonl#L3", reason), Unplaced("r/rate2.json", reason)]


def test_unplaced_runs_on_the_rate_axis() -> None:
    axis, placed, unplaced = _placed(
        "request_rate",
        {"source": "r/a.json", "request_rate": 2.0},
        {"source": "r/b.json", "request_rate": NAN},
    )
    assert axis == "request_rate"
    assert placed == [("r/a.json", "e", 2.0, 1)]
    assert unplaced == [Unplaced("r/b.json", "no request_rate: no place on the rate axis")]


def test_rate_axis_keeps_inf_as_a_tier() -> None:
    _, placed, unplaced = _placed(
        None, {"source": "r/r1.json", "request_rate": 1.0},
        {"source": "r/rinf.json", "request_rate": INF})
    assert placed == [("r/r1.json", "e", 1.0, 1), ("r/rinf.json", "e", INF, 1)]
    assert unplaced == []


@pytest.mark.parametrize(("axis", "rows", "engines"), [
    ("concurrency", [{"source": "r/c4-r1.json", "concurrency": 4.0, "request_rate": 1.0},
                     {"source": "r/c4-rinf.json", "concurrency": 4.0, "request_rate": INF},
                     {"source": "r/c8-r1.json", "concurrency": 8.0, "request_rate": 1.0}],
     ["e@1 req/s", "e@∞ req/s", "e@1 req/s"]),
    ("request_rate", [{"source": "r/c1.json", "concurrency": 1.0, "request_rate": INF},
                      {"source": "r/c16.json", "concurrency": 16.0, "request_rate": INF},
                      {"source": "r/r2.json", "request_rate": 2.0}],
     ["e@C=1", "e@C=16", "e@none"]),
])
def test_runs_that_differ_on_the_other_axis_are_not_repeats(
        axis: str, rows: list[dict[str, Any]], engines: list[str]) -> None:
    chosen, placed, unplaced = place(frame(*rows))
    assert chosen == axis and unplaced == []
    other = "request_rate" if axis == "concurrency" else "concurrency"
    for _, cell in placed.groupby(["engine", "workload", "tier"]):
        assert cell[other].nunique(dropna=False) == 1, cell[["source", other, "repeat"]]
    assert placed.sort_index()["engine"].tolist() == engines
    assert placed["repeat"].tolist() == [1, 1, 1]


def test_runs_of_one_configuration_at_one_other_axis_value_keep_its_id() -> None:
    _, placed, _ = place(frame({"source": "r/a.json", "concurrency": 4.0, "request_rate": 2.0},
                               {"source": "r/b.json", "concurrency": 8.0, "request_rate": 2.0}))
    assert placed["engine"].tolist() == ["e", "e"]


def test_models_that_share_a_last_name_are_labelled_in_full() -> None:
    summary = frame({"rel": "a.json", "model_id": "together/llama-2-70b-chat"},
                    {"rel": "b.json", "model_id": "llama-2-70b-chat"},
                    {"rel": "c.json", "model_id": "org/other"})
    _, configs = configurations(summary, pd.Series(["w"] * 3, index=summary.index))
    assert sorted(c.label for c in configs) == ["llama-2-70b-chat", "other",
                                                "together/llama-2-70b-chat"]
