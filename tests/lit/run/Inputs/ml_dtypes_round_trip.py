"""The JAX user's round trip through `xlite run`, with real numpy and
ml_dtypes: `write IN.npz` saves ml_dtypes arrays positionally (np.savez names
them arr_0, arr_1...); `check OUT.npz` loads xlite's results with np.load and
prints each one's dtype and values, which come back as ml_dtypes types.

Usage: ml_dtypes_round_trip.py write IN.npz | check OUT.npz
"""
import sys

import ml_dtypes
import numpy as np

ARRAYS = [
    np.array([1.5, -2, 3], ml_dtypes.bfloat16),
    np.array([0.5, 448], ml_dtypes.float8_e4m3fn),
    np.array([2, -3], ml_dtypes.float8_e5m2),
    np.array([-8, -1, 7], ml_dtypes.int4),
]


def main():
    mode, path = sys.argv[1:3]
    if mode == "write":
        np.savez(path, *ARRAYS)
        return
    results = np.load(path)
    for name, want in zip(results, ARRAYS):
        got = results[name]
        same = got.dtype == want.dtype and np.array_equal(got, want)
        print(f"{name} {got.dtype} {got.tolist()} {'same' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
