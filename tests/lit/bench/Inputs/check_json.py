"""Checks one `xlite bench --json` object read from stdin, beyond its keys.

Usage: check_json.py REPEAT BACKEND [share|null]: the timed run count and the
backend echo the flags, min <= median <= max, the rates follow from the counts
and the median, and roofline_share is a positive number or null.
"""
import json
import math
import sys


def main():
    repeat, backend, share = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    m = json.load(sys.stdin)
    checks = [
        ("repeat", m["repeat"] == repeat),
        ("backend", m["backend"] == backend),
        ("order", 0 <= m["min_ms"] <= m["median_ms"] <= m["max_ms"]),
        ("compile_ms", m["compile_ms"] >= 0),
        ("gflops", math.isclose(m["gflops"], m["flops"] / (m["median_ms"] * 1e6), rel_tol=1e-9)),
        ("gbytes_per_s",
         math.isclose(m["gbytes_per_s"], m["bytes_accessed"] / (m["median_ms"] * 1e6),
                      rel_tol=1e-9)),
        ("roofline_share",
         m["roofline_share"] is None if share == "null"
         else m["roofline_share"] > 0 and math.isclose(
             m["roofline_share"], m["roofline_ms"] / m["median_ms"], rel_tol=1e-9)),
    ]
    failed = [name for name, ok in checks if not ok]
    if failed:
        print(f"check_json: wrong {', '.join(failed)} in {m}", file=sys.stderr)
        return 1
    print("check_json: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
