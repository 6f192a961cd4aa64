"""tools/test.sh installs its Debian packages through tools/apt_get.sh, which waits while
another process holds apt's lock instead of failing (a fake apt-get on PATH plays the lock)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_apt_get(tmp_path: Path, busy_calls: int, tries: int = 5) -> subprocess.CompletedProcess:
    """Source tools/apt_get.sh and run `apt_get update` with an apt-get that reports a held
    lock for its first `busy_calls` calls; every call is logged with its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "apt-get"
    fake.write_text(f"""#!/bin/bash
echo "$*" >> {tmp_path}/calls
n=$(wc -l < {tmp_path}/calls)
if [ "$n" -le {busy_calls} ]; then
  echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 42 (apt-get)" >&2
  exit 100
fi
echo "apt-get ran: $*"
""")
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "APT_WAIT_S": "0",
           "APT_WAIT_TRIES": str(tries)}
    script = "set -euo pipefail; as_root=(); source tools/apt_get.sh; apt_get update -qq"
    return subprocess.run(["bash", "-c", script], cwd=REPO, env=env, text=True,
                          capture_output=True, check=False)


def test_a_held_lock_is_waited_for(tmp_path: Path) -> None:
    done = run_apt_get(tmp_path, busy_calls=2)
    assert done.returncode == 0, done.stderr
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls == ["-o DPkg::Lock::Timeout=300 update -qq"] * 3
    assert done.stderr.count("apt is busy") == 2


def test_a_lock_held_too_long_or_another_error_fails(tmp_path: Path) -> None:
    done = run_apt_get(tmp_path, busy_calls=10, tries=3)
    assert done.returncode == 1
    assert len((tmp_path / "calls").read_text().splitlines()) == 4   # first try + 3 retries
    assert "Could not get lock" in done.stderr


def test_test_sh_uses_the_waiting_apt_get() -> None:
    text = (REPO / "tools" / "test.sh").read_text(encoding="utf-8")
    assert "source tools/apt_get.sh" in text and "apt_get install" in text
    assert "apt-get install" not in text.replace("(apt-get install", "")
