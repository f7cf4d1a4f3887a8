"""What bench/peers.py and its peer workers share: the workloads' parameter
shapes, a median timer and the one-JSON-object-per-line protocol between the
driver and a worker process (a worker stays alive for the whole run so that
its compiled functions are timed again in every round).

Plain Python and the standard library only: the driver runs it with the
system python, the workers with a venv's.
"""
import json
import os
import re
import select
import statistics
import subprocess
import sys
import time


def entry_parameters(path):
    """The entry computation's f32 parameter shapes, in parameter order."""
    with open(path) as f:
        text = f.read()
    entry = text[text.index("ENTRY"):]
    found = {}
    for name, dims, index in re.findall(r"(\S+) = f32\[([0-9,]*)\]\S* parameter\((\d+)\)",
                                        entry):
        found[int(index)] = tuple(int(d) for d in dims.split(",") if d)
    if sorted(found) != list(range(len(found))):
        raise ValueError(f"{path}: cannot read the entry parameters (f32 only)")
    return [found[i] for i in range(len(found))]


def workload_name(path):
    return os.path.splitext(os.path.basename(path))[0]


def median_ms(call, warmup, repeat):
    for _ in range(warmup):
        call()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def serve(handlers):
    """The worker's loop: one request per stdin line ({"op": NAME, ...}), one
    reply per stdout line; a failing request answers {"error": text}. The
    worker's own prints go to stderr so that stdout carries replies only."""
    replies = sys.stdout
    sys.stdout = sys.stderr
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = handlers[request.pop("op")](**request)
        except Exception as error:  # a peer's failure is that peer's result
            reply = {"error": f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"
                     if str(error) else type(error).__name__}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


class Worker:
    """The driver's end of one worker process."""

    def __init__(self, command, env):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, env=env)
        self.stderr_tail = []

    def ask(self, timeout, **request):
        """The reply to one request; {"error": ...} if the worker died or took
        over `timeout` seconds (then it is stopped: later requests fail)."""
        if self.process.poll() is not None:
            return {"error": f"worker exited ({self.last_error()})"}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.process.stdout, self.process.stderr], [], [],
                                        max(0.0, left))
            if not ready:
                self.close()
                return {"error": f"no answer within {timeout:g} s"}
            if self.process.stderr in ready:
                line = self.process.stderr.readline()
                if line:
                    self.stderr_tail = (self.stderr_tail + [line.rstrip()])[-20:]
            if self.process.stdout in ready:
                line = self.process.stdout.readline()
                if line:
                    return json.loads(line)
                self.process.wait()
                return {"error": f"worker exited ({self.last_error()})"}

    def last_error(self):
        rest = self.process.stderr.read() if self.process.poll() is not None else ""
        lines = self.stderr_tail + rest.strip().splitlines()
        return lines[-1] if lines else f"exit {self.process.returncode}"

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
