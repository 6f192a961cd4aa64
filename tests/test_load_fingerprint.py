"""fingerprint.txt: the verbatim nvidia-smi table (new and pre-2023 layouts) plus key: value."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.errors import InputError
from reportgen.load.fingerprint import parse_fingerprint

NEW = """\
Thu Nov 20 10:00:00 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 580.95.05              Driver Version: 580.95.05      CUDA Version: 13.0     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA GeForce RTX 4090        Off |   00000000:01:00.0 Off |                  Off |
| 30%   73C    P2            350W /  450W |   19089MiB /  24564MiB |    100%      Default |
|                                         |                        |                  N/A |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA GeForce RTX 4090        Off |   00000000:02:00.0 Off |                  Off |
|  0%   35C    P8             20W /  450W |       1MiB /  24564MiB |      0%      Default |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| Processes:                                                                              |
|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |
|=========================================================================================|
|    0   N/A  N/A            1001      C   python3                                19080MiB |
+-----------------------------------------------------------------------------------------+
engine: llama.cpp
engine_version: b9741
launch_args: llama-server -m /models/q4.gguf -ngl 99 -np 64
"""

OLD = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.60.13    Driver Version: 525.60.13    CUDA Version: N/A      |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  NVIDIA GeForce ...  Off  | 00000000:01:00.0 Off |                  N/A |
| N/A   35C    P8    N/A /  N/A |      1MiB / 24564MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "fingerprint.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_new_layout_two_gpus(tmp_path: Path) -> None:
    fp = parse_fingerprint(write(tmp_path, NEW), name="fp.txt")
    assert (fp.driver_version, fp.cuda_version) == ("580.95.05", "13.0")
    assert fp.gpu_name == "NVIDIA GeForce RTX 4090" and fp.gpu_count == 2
    assert (fp.memory_used_mib, fp.memory_total_mib) == (19089.0, 24564.0)  # first GPU
    assert (fp.temperature_c, fp.power_w, fp.power_cap_w) == (73.0, 350.0, 450.0)
    assert fp.utilization_gpu_pct == 100.0
    assert fp.values == {"engine": "llama.cpp", "engine_version": "b9741",
                         "launch_args": "llama-server -m /models/q4.gguf -ngl 99 -np 64"}
    assert fp.provenance["memory_used_mib"] == "fp.txt:10"
    assert fp.provenance["values.engine_version"] == "fp.txt:24"


def test_old_layout_and_not_available(tmp_path: Path) -> None:
    fp = parse_fingerprint(write(tmp_path, OLD))
    assert fp.driver_version == "525.60.13" and fp.cuda_version is None
    assert fp.gpu_name == "NVIDIA GeForce ..."
    assert fp.power_w is None and fp.power_cap_w is None  # N/A / N/A
    assert (fp.temperature_c, fp.memory_used_mib) == (35.0, 1.0)
    assert "power_w" not in fp.provenance


def test_key_values_only(tmp_path: Path) -> None:
    fp = parse_fingerprint(write(tmp_path, "gpu: RTX 4090\nnote: second run\n"))
    assert fp.values == {"gpu": "RTX 4090", "note": "second run"} and fp.driver_version is None


def test_nothing_recognisable_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        parse_fingerprint(write(tmp_path, "just prose without structure\n"), name="f.txt")
    assert str(exc.value).startswith("f.txt: expected verbatim nvidia-smi output")
