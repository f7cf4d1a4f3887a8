"""xlite: a compact compiler for XLA's HLO IR, from Python.

Parse HLO text (or lower a jax function), verify it, run it on numpy arrays
on the cpu backend or the reference interpreter, and read the cost, memory
and schedule reports that ``xlite cost|mem|sched --json`` print::

    import numpy as np, xlite
    m = xlite.Module.from_file("examples/mlp.hlo")
    outputs = m.run(*inputs)              # a tuple of numpy arrays
    print(m.cost(device="h100")["seconds"])

Every error is an :class:`XliteError` carrying the command line's message.
"""

from __future__ import annotations

import functools
import json
import warnings
from typing import Any, Callable, Optional, Sequence

import numpy as np

from . import _xlite
from ._xlite import XliteError

__all__ = ["Module", "Executable", "XliteError", "compile", "jit", "available_backends"]

try:  # bf16 and the f8 kinds as real dtypes when ml_dtypes is installed
    import ml_dtypes as _ml_dtypes
except ImportError:  # pragma: no cover - depends on the environment
    _ml_dtypes = None


def available_backends() -> list[str]:
    """The backends this build has, e.g. ``["interpreter", "cpu"]``."""
    return _xlite.available_backends().split(", ")


def _argument(value: Any) -> _xlite.ArrayArgument:
    array = np.ascontiguousarray(value)
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    return _xlite.ArrayArgument(array.dtype.name, list(array.shape), array.reshape(-1).view(np.uint8))


def _dtype(name: str, storage: str) -> np.dtype:
    """numpy's dtype `name`, ml_dtypes' when numpy lacks it, else the raw
    bits' unsigned integer dtype (as ``xlite run`` writes .npy files)."""
    if hasattr(np, name):
        return np.dtype(name)
    if _ml_dtypes is not None and hasattr(_ml_dtypes, name):
        return np.dtype(getattr(_ml_dtypes, name))
    return np.dtype(storage)


def _results(leaves: list) -> tuple[np.ndarray, ...]:
    return tuple(data.view(_dtype(name, storage)).reshape(shape) for name, storage, shape, data in leaves)


def _report(result: tuple[str, list[str]]) -> dict:
    text, notes = result
    for note in notes:
        warnings.warn(note, stacklevel=3)
    return json.loads(text)


class Module:
    """An HLO module. Immutable: optimizing or compiling works on a copy."""

    def __init__(self, handle: _xlite.ModuleHandle):
        self._handle = handle

    @classmethod
    def from_text(cls, text: str, filename: str = "<text>") -> "Module":
        """Parses HLO text as XLA dumps it; errors name `filename`."""
        return cls(_xlite.ModuleHandle.parse(text, filename))

    @classmethod
    def from_file(cls, path: str) -> "Module":
        """Parses the HLO text file at `path`."""
        try:
            with open(path, encoding="utf-8") as file:
                text = file.read()
        except (OSError, UnicodeDecodeError) as error:
            raise XliteError(f"cannot read {path}: {error}") from None
        return cls.from_text(text, str(path))

    @classmethod
    def from_jax(cls, fn: Callable, *example_args: Any) -> "Module":
        """Lowers ``jax.jit(fn)`` for `example_args` (arrays or
        ``jax.ShapeDtypeStruct``s, pytrees allowed) and parses its HLO,
        shardings included. Every argument leaf stays a parameter."""
        return _lower_with_jax(fn, example_args)[0]

    def __str__(self) -> str:
        return self._handle.text()

    def __repr__(self) -> str:
        return f"<xlite.Module {self.name}>"

    @property
    def name(self) -> str:
        return self._handle.name()

    @property
    def device_count(self) -> int:
        """Replicas times partitions: more than one needs ``run(spmd=True)``."""
        return self._handle.device_count()

    @property
    def parameters(self) -> list[tuple[str, tuple[int, ...]]]:
        """The entry parameters as (dtype name, shape), e.g. ("float32", (8, 16))."""
        return [(dtype, tuple(shape)) for dtype, shape in self._handle.parameters()]

    def verify(self) -> None:
        """Raises XliteError listing every violation when the module is invalid."""
        self._handle.verify()

    def run(self, *arrays: Any, backend: Optional[str] = None, spmd: bool = False,
            threads: Optional[int] = None, seed: int = 0) -> tuple[np.ndarray, ...]:
        """Compiles and runs the module once on `arrays` (one per entry
        parameter) and returns its result leaves. See :func:`compile`."""
        return compile(self, backend=backend, spmd=spmd, threads=threads)(*arrays, seed=seed)

    def cost(self, device: str = "h100", *, spmd: bool = False, top: int = 20,
             xla_compat: bool = False, group_by: Optional[str] = None) -> dict:
        """``xlite cost --json``: flops, bytes and the roofline time on
        `device` (h100, h200, tpu-v5e, tpu-v5p, host or a JSON spec path).
        `group_by` ("op_name" or "source") adds ``groups``: the rows summed
        by JAX op or by source line, as ``--group-by`` does."""
        return _report(self._handle.cost(device, spmd, xla_compat, top, group_by or ""))

    def memory(self, backend: Optional[str] = None, *, device: Optional[str] = None,
               scheduler: str = "best", top: int = 10, group_by: Optional[str] = None) -> dict:
        """``xlite mem --json``: the peak memory and the buffers at the peak;
        with `backend`, the plan of the program that backend runs; with
        `group_by`, every buffer live at the peak summed by op or line."""
        return _report(self._handle.memory(backend or "", device or "", scheduler, top,
                                           group_by or ""))

    def schedule(self, device: str = "h100", *, spmd: bool = False,
                 memory_limit: Optional[int] = None, max_in_flight: int = 1,
                 group_by: Optional[str] = None) -> dict:
        """``xlite sched --json``: the latency hiding schedule's step time,
        exposed communication and peak memory on `device`; with `group_by`,
        the collectives' time summed by op or line."""
        return _report(self._handle.schedule(device, spmd, memory_limit, max_in_flight,
                                             group_by or ""))

    def shard(self, *, explain: bool = False, partition: bool = False,
              device: Optional[str] = None, names: Sequence[str] = ()) -> dict:
        """``xlite shard --json``: sharding propagation's result per
        instruction (``instructions``: name, computation, sharding). With
        `explain`, each result leaf's origin too (``leaves``: kind, the
        instruction it came from, the rule, the chain, conflicts). With
        `partition`, the SPMD partitioner's report under ``partition``
        (per-device bytes, every inserted collective with its cause and, on
        `device`, its time). `names` limits the listing to those
        instructions, as ``--explain NAME...`` does."""
        return _report(self._handle.shard(explain, partition, device or "", list(names)))

    def optimize(self, pipeline: Optional[str] = "default", *, passes: Optional[str] = None) -> "Module":
        """``xlite opt``: a new module after the named `pipeline` or, when
        `passes` is given, after that pass spec (``pipeline=None``)."""
        handle, notes = self._handle.optimize(pipeline or "", passes or "")
        for note in notes:
            warnings.warn(note, stacklevel=2)
        return Module(handle)


class Executable:
    """A module compiled once for a backend; call it as often as needed."""

    def __init__(self, program: _xlite.Program):
        self._program = program

    @property
    def backend(self) -> str:
        return self._program.backend

    def __call__(self, *arrays: Any, seed: int = 0) -> tuple[np.ndarray, ...]:
        """Runs on `arrays` (numpy arrays or anything np.asarray takes) and
        returns the result leaves; `seed` seeds the ``rng`` op."""
        return _results(self._program.run([_argument(a) for a in arrays], seed))


def compile(module: Module, backend: Optional[str] = None, *, spmd: bool = False,
            threads: Optional[int] = None) -> Executable:
    """Compiles `module` for `backend` ("cpu" or "interpreter"; default: cpu
    when built). ``spmd=True`` partitions it and runs every partition on a
    thread (interpreter only). `threads`: worker threads, default one per core."""
    return Executable(_xlite.Program.compile(module._handle, backend or "", spmd, threads or 0))


def _lower_with_jax(fn: Callable, args: tuple) -> tuple[Module, Any]:
    """The module ``jax.jit(fn)`` lowers to for `args`, and its output tree."""
    try:
        import jax
    except ImportError:
        raise XliteError("not supported yet: Module.from_jax and xlite.jit without jax installed") from None
    lowered = jax.jit(fn, keep_unused=True).lower(*args)
    text = lowered.compiler_ir("hlo").as_hlo_text(print_large_constants=True)
    return Module.from_text(text, f"<jax {getattr(fn, '__name__', 'function')}>"), lowered.out_tree


def jit(fn: Optional[Callable] = None, *, backend: Optional[str] = None) -> Callable:
    """Like ``jax.jit``, but runs on xlite: lowers `fn` with jax once per
    input signature (shapes, dtypes and pytree structure), compiles it with
    xlite and returns the outputs as numpy arrays in `fn`'s output pytree."""
    if fn is None:
        return functools.partial(jit, backend=backend)
    import jax

    cache: dict = {}

    @functools.wraps(fn)
    def wrapped(*args: Any) -> Any:
        leaves, tree = jax.tree_util.tree_flatten(args)
        leaves = [np.asarray(jax.numpy.asarray(leaf)) for leaf in leaves]
        key = (tree, tuple((leaf.shape, leaf.dtype) for leaf in leaves))
        if key not in cache:
            module, out_tree = _lower_with_jax(fn, jax.tree_util.tree_unflatten(tree, leaves))
            cache[key] = (compile(module, backend=backend), out_tree)
        executable, out_tree = cache[key]
        return jax.tree_util.tree_unflatten(out_tree, executable(*leaves))

    return wrapped
