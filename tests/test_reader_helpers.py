"""Helpers the client readers share: reaching a settings object (metric_keys.member) and
placing a run's axis from its settings or its artifact folder (metric_blocks.put_axis)."""

from __future__ import annotations

import math
from typing import Any

from reportgen.load.formats.metric_blocks import put_axis
from reportgen.load.formats.metric_keys import member

NAN = math.nan


def test_member_is_the_object_at_a_path_or_empty() -> None:
    data = {"input_config": {"loadgen": {"concurrency": 4}, "models": ["m"]}, "error": "boom"}
    assert member(data, "input_config", "loadgen") == {"concurrency": 4}
    assert member(data, "input_config", "models") == {}   # a list, not an object
    assert member(data, "error") == {} and member(data, "missing", "deeper") == {}
    assert member("text") == {} and member(data) is data


def axis(conc: float, rate: float, shown: str = "run/profile_export_aiperf.json"
         ) -> tuple[dict[str, Any], dict[str, tuple[str, str]]]:
    record: dict[str, Any] = {}
    settings: dict[str, tuple[str, str]] = {}
    put_axis(record, settings, shown, conc, rate, "input_config.loadgen")
    return record, settings


def test_a_concurrency_is_a_closed_loop_at_rate_inf() -> None:
    record, settings = axis(8, NAN)
    assert record == {"max_concurrency": 8, "request_rate": "inf"}
    assert settings == {"max_concurrency": ("8", "run/profile_export_aiperf.json: "
                                                 "input_config.loadgen")}


def test_a_rate_with_a_concurrency_cap_keeps_both() -> None:
    record, _ = axis(16, 2.5)
    assert record == {"max_concurrency": 16, "request_rate": 2.5}


def test_the_folder_name_gives_the_axis_only_when_the_settings_give_none() -> None:
    record, settings = axis(NAN, NAN, "art/m-openai-chat-concurrency4/profile_export.csv")
    assert record == {"max_concurrency": 4, "request_rate": "inf"}
    assert settings["max_concurrency"][1].endswith("the artifact folder's name")
    record, _ = axis(NAN, NAN, "art/m-openai-chat-request_rate2.5/profile_export.csv")
    assert record == {"request_rate": 2.5}
    assert axis(2, NAN, "art/m-concurrency4/x.csv")[0]["max_concurrency"] == 2
    assert axis(NAN, NAN, "art/run/x.csv") == ({}, {})


def test_a_concurrency_that_is_not_a_whole_number_is_not_placed() -> None:
    assert axis(0.5, NAN) == ({}, {})
