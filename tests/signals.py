"""Signal tests start their child as a terminal would: every signal they send at its default
action. A shell's background job (`cmd &`) starts with SIGINT and SIGQUIT ignored and `nohup`
ignores SIGHUP; a child inherits that, and reportgen rightly leaves an ignored signal ignored
(files/write.py), so such a run would wait out the test's timeout instead of testing the
clean-up."""

from __future__ import annotations

import signal

SENT = (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM)


def default_dispositions() -> None:
    """``preexec_fn`` for ``subprocess.Popen``: the signals the tests send at SIG_DFL."""
    for sig in SENT:
        signal.signal(sig, signal.SIG_DFL)
