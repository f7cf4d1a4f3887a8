#!/usr/bin/env python3
"""Runs `xlite run --communicator mpi` under real mpirun and checks it.

collectives --np N: every model in models/ (instantiated for N devices) gives
    the same summary and the same .npz bytes under `mpirun -np N` as the
    in-process run.
failures: a wrong rank count, diverged programs, a killed / exited / stalled
    rank all end every rank with a clear error and a non-zero exit, in time.
corpus: multi-device modules of the corpus, both ways.
calibrate: `xlite calibrate --collectives` prints a fit per collective kind.
Exits 77 (ctest's skip code) with a message when mpirun is absent.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))


def instantiate(text, n):
    """Replaces @expr@ with its value for n devices (helpers below)."""
    def all_ids(k=n):
        return "{" + ",".join(str(i) for i in range(k)) + "}"

    def pairs(k=n):
        return ",".join("{%d,%d}" % (i, i + 1) for i in range(0, k, 2))

    def ring(k=n):
        return ",".join("{%d,%d}" % (i, (i + 1) % k) for i in range(k))

    def swaps(k=n):
        return ",".join("{%d,%d},{%d,%d}" % (i, i + 1, i + 1, i) for i in range(0, k, 2))

    def chain(k=n):
        return ",".join("{%d,%d}" % (i, i + 1) for i in range(k - 1))

    scope = {"N": n, "all": all_ids, "pairs": pairs, "ring": ring, "swaps": swaps,
             "chain": chain}
    return re.sub(r"@([^@\n]+)@", lambda m: str(eval(m.group(1), scope)), text)


class Runner:
    def __init__(self, args, workdir):
        self.xlite = args.xlite
        self.mpirun = args.mpirun
        self.workdir = workdir
        self.env = dict(os.environ)
        # CI runs as root; OpenMPI refuses that unless told.
        self.env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        self.env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
        self.env.pop("XLITE_MPI_FAULT", None)
        # In the sanitizer build, ranks under mpirun skip the leak check:
        # OpenMPI leaves allocations in plugins it has unloaded, which no
        # suppression can name. The in-process runs keep it (and every other
        # check stays on under mpirun).
        self.mpi_env = dict(self.env)
        self.mpi_env["ASAN_OPTIONS"] = ":".join(
            x for x in [self.env.get("ASAN_OPTIONS", ""), "detect_leaks=0"] if x)
        self.failures = 0

    def run(self, cmd, env=None, timeout=90):
        start = time.monotonic()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, env=env or self.env,
                               timeout=timeout)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired as e:
            rc, out, err = "hang", e.stdout or "", e.stderr or ""
            out = out.decode() if isinstance(out, bytes) else out
            err = err.decode() if isinstance(err, bytes) else err
        return rc, out, err, time.monotonic() - start

    def mpi(self, np, args, env=None, timeout=90):
        cmd = [self.mpirun, "--oversubscribe", "-np", str(np), self.xlite] + args
        return self.run(cmd, env or self.mpi_env, timeout)

    def fail(self, what, detail=""):
        self.failures += 1
        print("FAIL: %s\n%s" % (what, detail))

    def write_model(self, name, n):
        with open(os.path.join(HERE, "models", name)) as f:
            text = instantiate(f.read(), n)
        path = os.path.join(self.workdir, "%s.%d.hlo" % (name[:-4], n))
        with open(path, "w") as f:
            f.write(text)
        return path

    def compare_both_ways(self, label, path, np, extra=()):
        # Outputs go to the scratch directory: `path` may be in the read-only corpus.
        stem = os.path.join(self.workdir, os.path.basename(path))
        ref_npz = stem + ".ref.npz"
        mpi_npz = stem + ".mpi.npz"
        common = ["run", path, "--random", "7", "--print-elements", "4"] + list(extra)
        rc, ref_out, ref_err, _ = self.run([self.xlite] + common + ["--output", ref_npz])
        if rc != 0:
            return self.fail("%s: in-process run failed (%s)" % (label, rc), ref_out + ref_err)
        rc, out, err, seconds = self.mpi(np, common + ["--communicator", "mpi",
                                                       "--collective-timeout", "30",
                                                       "--output", mpi_npz])
        if rc != 0:
            return self.fail("%s: mpirun -np %d failed (%s)" % (label, np, rc), out + err)
        if out != ref_out:
            return self.fail("%s: mpirun -np %d prints a different summary" % (label, np),
                             "--- in-process\n%s--- mpi\n%s" % (ref_out, out))
        with open(ref_npz, "rb") as a, open(mpi_npz, "rb") as b:
            if a.read() != b.read():
                return self.fail("%s: mpirun -np %d writes different outputs" % (label, np))
        print("ok: %s on %d ranks equals the in-process run (%.2f s)" % (label, np, seconds))


def collectives(r, np):
    models = sorted(m for m in os.listdir(os.path.join(HERE, "models"))
                    if m.endswith(".hlo") and m != "diverge.hlo")
    for name in models:
        r.compare_both_ways(name, r.write_model(name, np), np)


def spmd(r, np):
    # `--spmd` on np ranks equals `--spmd` in one process, bit for bit (a
    # GSPMD module and two JAX 0.10 shard_map modules).
    for name in ("run_spmd.hlo", "shard_map_psum.hlo", "shard_map_nested.hlo"):
        model = os.path.join(HERE, "..", "lit", "spmd", name)
        r.compare_both_ways("spmd " + name, model, np, extra=["--spmd"])


def expect_error(r, label, result, patterns, within):
    rc, out, err, seconds = result
    text = out + err
    if rc == "hang":
        return r.fail("%s: hangs" % label, text)
    if rc == 0:
        return r.fail("%s: exits 0" % label, text)
    if seconds > within:
        r.fail("%s: took %.1f s (limit %.1f s)" % (label, seconds, within), text)
    for p in patterns:
        if not re.search(p, text):
            return r.fail("%s: no message matching %r" % (label, p), text)
    print("ok: %s ends with exit %s in %.2f s" % (label, rc, seconds))


def failures(r):
    two = r.write_model("all_reduce.hlo", 2)
    run2 = ["run", two, "--random", "1", "--communicator", "mpi"]
    # One rank too many: every rank says so.
    rc, out, err, seconds = r.mpi(3, run2)
    expect_error(r, "3 ranks for a 2-device module", (rc, out, err, seconds),
                 [r"runs on 2 devices .* this mpirun job has 3 ranks"], 30)
    if rc != "hang" and len(re.findall(r"has 3 ranks", out + err)) != 3:
        r.fail("the wrong rank count is not reported by each of the 3 ranks", out + err)
    # Ranks started with different inputs (here: seeds) refuse to run
    # rather than print a result that matches no single run.
    rc, out, err, seconds = r.run(
        [r.mpirun, "--oversubscribe", "-np", "2", "sh", "-c",
         '"$0" run "$1" --communicator mpi --random "$OMPI_COMM_WORLD_RANK"', r.xlite, two],
        r.mpi_env)
    expect_error(r, "ranks with different --random seeds", (rc, out, err, seconds),
                 [r"rank 0: the ranks of this job do not run the same program \(rank 1: "
                  r"inputs, options differ"], 30)
    # Diverged programs fail at once (peers' "finished" notices), long
    # before the timeout, on both runtimes.
    diverge = r.write_model("diverge.hlo", 2)
    expect_error(r, "diverged program, in-process",
                 r.run([r.xlite, "run", diverge, "--random", "1"]),
                 [r"finished without joining"], 30)
    expect_error(r, "diverged program, mpi",
                 r.mpi(2, ["run", diverge, "--random", "1", "--communicator", "mpi",
                           "--collective-timeout", "60"]),
                 [r"rank 0: evaluation failed: .*cannot complete: device 0 finished without "
                  r"joining it"], 20)
    # A rank that is killed, exits, or stops answering.
    four = r.write_model("all_reduce.hlo", 4)
    for fault, patterns, timeout, within in [
            ("kill:1", [r"XLITE_MPI_FAULT=kill:1", r"signal 9|Killed|stopped by mpirun"], 60, 25),
            ("exit:1", [r"XLITE_MPI_FAULT=exit:1", r"exit|stopped by mpirun|collective timeout"],
             3, 25),
            ("stall:2", [r"XLITE_MPI_FAULT=stall:2",
                         r"did not complete within the collective timeout \(2 s\)"], 2, 20)]:
        env = dict(r.mpi_env, XLITE_MPI_FAULT=fault)
        expect_error(r, "rank fault %s on 4 ranks" % fault,
                     r.mpi(4, ["run", four, "--random", "1", "--communicator", "mpi",
                               "--collective-timeout", str(timeout)], env=env),
                     patterns, within)
    kill_from_outside(r, four)


def kill_from_outside(r, path):
    """kill -9 of a rank that waits for nothing: mpirun must end the job."""
    env = dict(r.mpi_env, XLITE_MPI_FAULT="stall:1")
    cmd = [r.mpirun, "--oversubscribe", "-np", "4", r.xlite, "run", path, "--random", "1",
           "--communicator", "mpi", "--collective-timeout", "60"]
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env=env)
    lines = []
    pid = None
    for line in p.stdout:
        lines.append(line)
        m = re.search(r"rank 1 \(pid (\d+)\): XLITE_MPI_FAULT", line)
        if m:
            pid = int(m.group(1))
            os.kill(pid, signal.SIGKILL)
            break
    try:
        rest, _ = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        rest, _ = p.communicate()
        return r.fail("kill -9 of rank 1: the job hangs", "".join(lines) + rest)
    seconds = time.monotonic() - start
    text = "".join(lines) + rest
    if pid is None:
        return r.fail("kill -9 of rank 1: rank 1 never reported its pid", text)
    # Well inside the 60 s timeout: mpirun saw the death and stopped the job.
    expect_error(r, "kill -9 of rank 1 from outside", (p.returncode, text, "", seconds),
                 [r"signal 9|Killed", r"stopped by mpirun"], 20)


def corpus(r, corpus_dir):
    """Returns SKIP when the corpus is not there (e.g. in a worktree)."""
    if not os.path.isdir(corpus_dir):
        print("SKIP: no corpus at %s" % corpus_dir)
        return SKIP
    # Multi-device dumps the interpreter runs in about a second (the llama3
    # ones take minutes on 2 cores).
    for name, np in [("xla__tools__tests__data__spmd.hlo", 2),
                     ("xla__hlo__translate__hlo_to_mhlo__tests__module_config.hlo", 8)]:
        path = os.path.join(corpus_dir, name)
        if not os.path.exists(path):
            r.fail("%s is missing from the corpus" % name)
            continue
        r.compare_both_ways(name, path, np)
    return 0


def calibrate(r):
    """`xlite calibrate --collectives` on 2 ranks: JSON with a fit per kind."""
    import json
    out_json = os.path.join(r.workdir, "collectives.json")
    rc, out, err, seconds = r.mpi(2, ["calibrate", "--collectives", "--max-bytes", "16384",
                                      "-o", out_json])
    if rc != 0:
        return r.fail("calibrate --collectives failed (%s)" % rc, out + err)
    with open(out_json) as f:
        fits = json.load(f)
    kinds = ["all-reduce", "all-gather", "reduce-scatter", "all-to-all", "permute"]
    if fits.get("ranks") != 2 or any(k not in fits["collectives"] for k in kinds):
        return r.fail("calibrate --collectives JSON lacks ranks or kinds", json.dumps(fits))
    for kind, fit in fits["collectives"].items():
        sizes = [t["bytes"] for t in fit["timings"]]
        if sizes != [1024, 4096, 16384] or fit["alpha_seconds"] < 0 or \
                fit["beta_bytes_per_second"] < 0 or any(t["seconds"] <= 0 for t in fit["timings"]):
            return r.fail("calibrate --collectives: bad fit for %s" % kind, json.dumps(fit))
        if not re.search(r"^  %s +alpha" % re.escape(kind), err, re.M):
            return r.fail("calibrate --collectives prints no line for %s" % kind, err)
    print("ok: calibrate --collectives on 2 ranks (%.2f s)" % seconds)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--xlite", required=True)
    parser.add_argument("--mpirun", default=shutil.which("mpirun") or "")
    parser.add_argument("--corpus", default=os.path.join(HERE, "..", "..", "..", "shared",
                                                         "corpus", "hlo"))
    parser.add_argument("mode", choices=["collectives", "failures", "corpus", "calibrate", "spmd"])
    parser.add_argument("--np", type=int, default=4)
    args = parser.parse_args()
    if not args.mpirun or not os.access(args.mpirun, os.X_OK):
        print("SKIP: mpirun not found (install openmpi-bin to run the MPI tests)")
        return SKIP
    with tempfile.TemporaryDirectory() as workdir:
        r = Runner(args, workdir)
        if args.mode == "collectives":
            collectives(r, args.np)
        elif args.mode == "failures":
            failures(r)
        elif args.mode == "calibrate":
            calibrate(r)
        elif args.mode == "spmd":
            spmd(r, args.np)
        elif corpus(r, args.corpus) == SKIP:
            return SKIP
    return 1 if r.failures else 0


if __name__ == "__main__":
    sys.exit(main())
