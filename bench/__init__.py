"""Benchmarks for s2r-tutor: retrieval quality, latency, memory and how cost grows with the corpus.

Run `python -m bench` (full, < 15 min on 2 cores) or `python -m bench --quick` (smoke, < 60 s);
both write a Markdown report (default `bench/RESULTS.md`). See `bench/README.md`.
"""
