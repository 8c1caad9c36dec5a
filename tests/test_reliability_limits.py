"""The limits' own logic, without a server: the log flood filter and the Host check (R143, R144)."""

from __future__ import annotations

import logging

from s2r_tutor.web.hosts import default_hosts, host_name
from s2r_tutor.web.limits import RateLimitedLog


def test_a_repeated_log_record_is_let_through_a_few_times_per_window():
    """R143: 1,000 copies of one failure write `burst` lines, not 1,000; another message is not
    held back by the first; after the window the count of dropped ones is reported once."""
    f = RateLimitedLog(burst=5, window_s=60)
    make = lambda msg: logging.LogRecord("uvicorn.error", logging.ERROR, __file__, 1, msg, None, None)  # noqa: E731
    passed = sum(f.filter(make("Too many open files")) for _ in range(1000))
    assert passed == 5
    assert f.filter(make("another failure"))
    f.window_s = 0  # the window rolls over
    record = make("Too many open files")
    assert f.filter(record) and "995 more like it" in record.getMessage()


def test_host_names_compare_without_port_and_case():
    """R144: 'LOCALHOST:7860' is localhost; a bracketed IPv6 literal keeps its brackets."""
    assert host_name("LOCALHOST:7860") == "localhost"
    assert host_name("[::1]:7860") == "[::1]"
    assert host_name("evil.example") == "evil.example"
    hosts = default_hosts("0.0.0.0")
    assert {"127.0.0.1", "localhost"} <= hosts and "0.0.0.0" not in hosts and "evil.example" not in hosts
