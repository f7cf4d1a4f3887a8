"""Checks the structure of an `xlite sched --trace` file: valid JSON with
traceEvents, one named thread per stream (compute and each collective kind),
complete events on known threads with non-negative durations, and no two
slices overlapping on one stream. Prints a one-line summary for FileCheck."""
import collections
import json
import sys

with open(sys.argv[1]) as f:
    trace = json.load(f)
events = trace["traceEvents"]
threads = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
slices = collections.defaultdict(list)
for e in events:
    if e.get("ph") != "X":
        continue
    assert e["tid"] in threads, f"slice on an unnamed thread: {e}"
    assert e["dur"] >= 0, f"negative duration: {e}"
    slices[threads[e["tid"]]].append((e["ts"], e["ts"] + e["dur"], e["name"]))
for stream, spans in slices.items():
    spans.sort()
    for (b0, e0, n0), (b1, e1, n1) in zip(spans, spans[1:]):
        # Timestamps are microseconds as doubles: allow rounding.
        assert b1 >= e0 - 1e-6 * max(1.0, abs(e0)), f"{stream}: {n0} [{b0},{e0}] overlaps {n1} [{b1},{e1}]"
print("threads:", " ".join(threads[t] for t in sorted(threads)))
print("streams with slices:", " ".join(sorted(slices)))
print("no overlaps")
