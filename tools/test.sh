#!/usr/bin/env bash
# The one test command (README, CI): installs what the tests need on a fresh Debian machine,
# then runs the whole suite, browser tests included. Missing chromium is a failure, not a skip.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
fc-list 2>/dev/null | grep -qi "WenQuanYi Micro Hei" || need_apt+=(fonts-wqy-microhei)
command -v pdftoppm >/dev/null 2>&1 || need_apt+=(poppler-utils)   # print test: PDF → pixels
if ((${#need_apt[@]})); then
  as_root=()
  [ "$(id -u)" = 0 ] || ! sudo -n true 2>/dev/null || as_root=(sudo -n)
  if [ "$(id -u)" = 0 ] || ((${#as_root[@]})); then
    echo "tools/test.sh: installing ${need_apt[*]} (apt)" >&2
    source tools/apt_get.sh   # waits for apt's lock when another process holds it
    apt_get update -qq
    apt_get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "tools/test.sh: please install: ${need_apt[*]} (apt-get install -y ${need_apt[*]})" >&2
    exit 1
  fi
fi

PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
.venv/bin/ruff check reportgen tests tools benchmarks
.venv/bin/mypy   # reportgen/ with pandas-stubs, strict: no error ([tool.mypy] in pyproject.toml)
exec .venv/bin/python -m pytest "$@"
