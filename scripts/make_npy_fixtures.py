#!/usr/bin/python3
"""Writes the numpy-made fixtures of xlite/runtime/npy_io_test.cc.

Run from the repository root: scripts/make_npy_fixtures.py. The files are
small and committed; the test states the values each one holds, so a change
here must be mirrored there.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "xlite", "runtime", "testdata")


def save(name, array, version=None):
    path = os.path.join(OUT, name)
    if version is None:
        np.save(path, array)
    else:
        with open(path, "wb") as f:
            np.lib.format.write_array(f, array, version=version)


def main():
    os.makedirs(OUT, exist_ok=True)
    save("f32_c.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
    save("f64_fortran.npy", np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)))
    save("i16_big_endian.npy", np.array([1, -2, 300], dtype=">i2"))
    save("bool.npy", np.array([True, False, True]))
    save("c64.npy", np.array([1 + 2j, -3.5], dtype=np.complex64))
    save("u64_scalar.npy", np.array(2**63 + 5, dtype=np.uint64))
    save("f16.npy", np.array([0.5, -2, 65504], dtype=np.float16))
    save("i8_empty.npy", np.zeros((0, 3), dtype=np.int8))
    save("i32_v2.npy", np.array([7, -7], dtype=np.int32), version=(2, 0))
    save("i32_v3.npy", np.array([7, -7], dtype=np.int32), version=(3, 0))
    args = dict(arg0=np.arange(4, dtype=np.int32).reshape(2, 2),
                arg1=np.array([1.5, -1.5], dtype=np.float32))
    np.savez(os.path.join(OUT, "args.npz"), **args)
    np.savez_compressed(os.path.join(OUT, "args_compressed.npz"), **args)


if __name__ == "__main__":
    main()
