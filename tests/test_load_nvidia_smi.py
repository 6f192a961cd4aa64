"""nvidia-smi --query-gpu CSV captures: the two real samples and inline variants."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from data_paths import SHARED_SAMPLES

from reportgen.errors import InputError
from reportgen.load.nvidia_smi import load_gpu_csv

SAMPLES = SHARED_SAMPLES / "nvidia-smi-query-gpu-csv"   # no licence stated: not vendored


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gpu.csv"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.shared
def test_real_1hz_capture() -> None:
    gpu = load_gpu_csv(SAMPLES / "gpu_log_1hz_rtx4090.csv")
    assert len(gpu) == 2619
    assert list(gpu.columns) == ["timestamp", "name", "utilization_gpu_pct",
                                 "utilization_memory_pct", "memory_used_mib", "power_draw_w"]
    first = gpu.iloc[0]
    assert first["timestamp"] == pd.Timestamp("2026-01-03 15:36:53.507")
    assert first["name"] == "NVIDIA GeForce RTX 4090"
    assert first[["utilization_gpu_pct", "utilization_memory_pct", "memory_used_mib",
                  "power_draw_w"]].tolist() == [1.0, 2.0, 1129.0, 33.09]
    assert gpu["memory_used_mib"].max() > 17000  # the model was loaded at some point


@pytest.mark.shared
def test_real_100ms_power_capture() -> None:
    gpu = load_gpu_csv(SAMPLES / "nvidia-smi_lms100_power.csv")
    assert len(gpu) == 73 and list(gpu.columns) == ["timestamp", "power_draw_w"]
    assert gpu.loc[0, "power_draw_w"] == 22.89


def test_not_available_multi_gpu_and_temperature(tmp_path: Path) -> None:
    text = (
        "timestamp, index, name, power.draw [W], power.limit [W], temperature.gpu, "
        "clocks.sm [MHz]\n"
        "2026/11/18 14:00:00.100, 0, NVIDIA GeForce RTX 4090, 250.07 W, [N/A], 61, 2520 MHz\n"
        "2026/11/18 14:00:00.100, 1, NVIDIA GeForce RTX 4090, [Not Supported], 450.00 W, 40, "
        "210 MHz\n"
    )
    gpu = load_gpu_csv(write(tmp_path, text))
    assert list(gpu["index"]) == [0, 1]
    assert gpu.loc[0, "power_draw_w"] == 250.07 and math.isnan(gpu.loc[1, "power_draw_w"])
    assert math.isnan(gpu.loc[0, "power_limit_w"]) and gpu.loc[1, "power_limit_w"] == 450.0
    assert list(gpu["temperature_gpu_c"]) == [61.0, 40.0]
    assert list(gpu["clocks_sm_mhz"]) == [2520.0, 210.0]


def test_nounits_and_repeated_header(tmp_path: Path) -> None:
    header = "timestamp, utilization.gpu [%], memory.used [MiB]\n"
    text = (header + "2026/11/18 14:00:00.000, 45, 17304\n"
            + header + "2026/11/18 14:00:01.000, 46, 17305\n")
    gpu = load_gpu_csv(write(tmp_path, text))
    assert list(gpu["utilization_gpu_pct"]) == [45.0, 46.0]
    assert list(gpu["memory_used_mib"]) == [17304.0, 17305.0]


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("2026/11/18 14:00:00.000, 45 %, 17304 MiB\n", 1, "noheader"),
        ("", None, "empty file"),
        ("timestamp, memory.used [MiB]\n2026/11/18 14:00:00.000, 1 MiB, 2\n", 2,
         "expected 2 fields"),
        ("timestamp, memory.used [MiB]\n2026/11/18 14:00:00.000, lots\n", 2, "expected a number"),
        ("timestamp, memory.used [MiB]\nyesterday, 5 MiB\n", 2, "timestamp"),
        ("timestamp, memory.used [MiB]\n2026/11/18 14:00:00.000, 5 MiB\n"
         "timestamp, power.draw [W]\n", 3, "different header"),
    ],
)
def test_errors_name_file_and_line(tmp_path: Path, text: str, line: int | None,
                                   words: str) -> None:
    with pytest.raises(InputError) as exc:
        load_gpu_csv(write(tmp_path, text), name="e/gpu.csv")
    assert exc.value.path == "e/gpu.csv" and exc.value.line == line
    assert words in exc.value.message
