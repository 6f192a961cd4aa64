"""Performance benchmarks: the synthetic-round generator (make_round.py) and the timing run
(run.py)."""
