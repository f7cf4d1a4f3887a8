"""Starts bench/peers.py's peer workers: PyTorch from the system python
(Debian's python3-torch), and PyTorch 2 and jax from the venv under build/
(created with pip where missing). Each start says what it set up or why the
peer is missing; nothing here times anything.
"""
import glob
import os
import subprocess
import sys

from peer_common import Worker

BENCH = os.path.dirname(os.path.abspath(__file__))
SYSTEM_PYTHON = "/usr/bin/python3"


def ensure_venv(venv, packages, notes):
    """The venv's python with `packages` ({import name: pip name}) installed
    where pip can install them; None (and a note) where there is no venv."""
    python = os.path.join(venv, "bin", "python")
    if not os.access(python, os.X_OK):
        made = subprocess.run([SYSTEM_PYTHON, "-m", "venv", venv], capture_output=True,
                              text=True)
        if made.returncode != 0:
            notes.append(f"cannot create {venv}: {last_line(made)}")
            return None
    missing = [pip for module, pip in packages.items()
               if subprocess.run([python, "-c", f"import {module}"],
                                 capture_output=True).returncode != 0]
    if missing:
        print(f"peers: pip install {' '.join(missing)} into {venv} ...", file=sys.stderr)
        try:
            done = subprocess.run([python, "-m", "pip", "install", "-q", *missing],
                                  capture_output=True, text=True, timeout=1800)
            if done.returncode != 0:
                notes.append(f"pip install {' '.join(missing)} failed: {last_line(done)}")
        except subprocess.TimeoutExpired:
            notes.append(f"pip install {' '.join(missing)} took over 1800 s")
    return python


def last_line(done):
    lines = (done.stderr or done.stdout or "").strip().splitlines()
    return lines[-1] if lines else f"exit {done.returncode}"


def nvidia_library_dirs(python):
    """The lib folders of the CUDA wheels (nvidia/*/lib) PyTorch's PyPI wheel
    pulls in, in the venv of `python`."""
    found = subprocess.run(
        [python, "-c", "import site; print('\\n'.join(site.getsitepackages()))"],
        capture_output=True, text=True).stdout.split()
    return sorted(d for s in found for d in glob.glob(os.path.join(s, "nvidia", "*", "lib")))


def start(python, script, label, notes, env=None, timeout=600):
    """A worker running bench/SCRIPT with `python` and its info reply, or
    (None, None) with a note saying why the peer is missing."""
    worker = Worker([python, os.path.join(BENCH, script)], env or dict(os.environ))
    info = worker.ask(timeout, op="info")
    if "error" in info:
        worker.close()
        notes.append(f"{label}: not measured ({info['error']})")
        return None, None
    return worker, info


def start_torch(python, label, notes):
    """A PyTorch worker; where importing torch fails on a shared library, a
    second try with LD_LIBRARY_PATH set to the CUDA wheels' lib folders (the
    CPU never uses them, but the wheel links them), noted."""
    env = dict(os.environ)
    quiet = []
    worker, info = start(python, "peers_torch.py", label, quiet, env)
    if worker is not None:
        notes.append(f"{label}: imports with LD_LIBRARY_PATH unchanged")
    elif ".so" in quiet[0]:
        dirs = nvidia_library_dirs(python)
        if dirs:
            env["LD_LIBRARY_PATH"] = os.pathsep.join(
                dirs + [p for p in [os.environ.get("LD_LIBRARY_PATH")] if p])
            notes.append(f"{label}: import torch needed LD_LIBRARY_PATH={env['LD_LIBRARY_PATH']}")
            quiet = []
            worker, info = start(python, "peers_torch.py", label, quiet, env)
    notes.extend(quiet)
    return worker, info
