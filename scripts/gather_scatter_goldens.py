#!/usr/bin/python3
"""Writes xlite/eval/testdata/gather_scatter_goldens.txt: inputs and expected
outputs of the evaluator's gather/scatter tests (gather_scatter_ops_test.cc),
computed with numpy's own indexing (take_along_axis, fancy indexing, ufunc.at,
plain loops), independently of the evaluator's code.

Each line is `<case> <array> <values...>` (row-major). Run from the repo root:
  /usr/bin/python3 scripts/gather_scatter_goldens.py  (Debian python3-numpy)
"""
import numpy as np

rng = np.random.default_rng(20261202)
lines = []


def put(case, name, array):
    values = np.asarray(array).reshape(-1)
    lines.append(" ".join([case, name] + [str(int(v)) if float(v).is_integer() else repr(float(v))
                                           for v in values]))


def ints(shape, low=-9, high=10):
    return rng.integers(low, high, size=shape).astype(np.float64)


# --- gather -----------------------------------------------------------------

# torch.gather(x, dim=1, idx) written with batching dims (implicit index dim).
x = ints((3, 4))
idx = np.array([[3, 0], [1, 1], [2, 3]])
put("take_along_axis", "operand", x)
put("take_along_axis", "indices", idx)
put("take_along_axis", "expected", np.take_along_axis(x, idx, axis=1))
# The same as (row, column) pairs, the pre-batching-dims form.
pairs = np.stack([np.repeat(np.arange(3)[:, None], 2, axis=1), idx], axis=2)
put("take_along_axis_pairs", "indices", pairs)

# Embedding lookup; ids 7 and -3 are out of range and clamp to 4 and 0.
table = ints((5, 3))
ids = np.array([4, 0, 7, -3])
put("embedding", "operand", table)
put("embedding", "indices", ids)
put("embedding", "expected", table[np.clip(ids, 0, 4)])

# Batched gather: operand [V=5, B=2, D=3], indices [S=4, B=2];
# out[s, b, :] = operand[idx[s, b], b, :].
operand = ints((5, 2, 3))
idx = np.array([[0, 4], [2, 2], [4, 1], [3, 0]])
put("batched", "operand", operand)
put("batched", "indices", idx)
put("batched", "expected", operand[idx, np.arange(2)[None, :], :])

# index_vector_dim = 0: column i of indices is a (row, col) start of a 2x3
# window of a 5x6 operand, clamped into range; the batch dim sits between the
# two offset dims of the output [2, 3, 3].
x = ints((5, 6))
starts = np.array([[1, 4, -2], [2, 5, 1]])
put("ivd_first", "operand", x)
put("ivd_first", "indices", starts)
windows = []
for i in range(3):
    r = np.clip(starts[0, i], 0, 5 - 2)
    c = np.clip(starts[1, i], 0, 6 - 3)
    windows.append(x[r:r + 2, c:c + 3])
put("ivd_first", "expected", np.stack(windows, axis=1))

# --- scatter ----------------------------------------------------------------

# Row add with duplicate indices; index_vector_dim == rank of the indices.
operand = ints((4, 3))
idx = np.array([2, 0, 2, 3, 2])
updates = ints((5, 3))
expected = operand.copy()
np.add.at(expected, idx, updates)
put("scatter_add", "operand", operand)
put("scatter_add", "indices", idx)
put("scatter_add", "updates", updates)
put("scatter_add", "expected", expected)

# Overwrite; the duplicate index 1 takes the later update.
operand = ints((4, 3))
idx = np.array([[1], [3], [1]])
updates = ints((3, 3))
expected = operand.copy()
for i in range(3):
    expected[idx[i, 0]] = updates[i]
put("scatter_overwrite", "operand", operand)
put("scatter_overwrite", "indices", idx)
put("scatter_overwrite", "updates", updates)
put("scatter_overwrite", "expected", expected)

# Windows of 2 into [6]: starts 5 and -1 would leave the operand: skipped.
operand = ints((6,))
idx = np.array([[1], [5], [-1], [3]])
updates = ints((4, 2))
expected = operand.copy()
for i in range(4):
    s = idx[i, 0]
    if 0 <= s <= 6 - 2:
        expected[s:s + 2] += updates[i]
put("scatter_oob", "operand", operand)
put("scatter_oob", "indices", idx)
put("scatter_oob", "updates", updates)
put("scatter_oob", "expected", expected)

# Variadic: (a0, a1, u0, u1) -> (u1, a0), in index order (duplicates chain).
a0, a1 = ints((5,)), ints((5,))
idx = np.array([[2], [4], [2]])
u0, u1 = ints((3,)), ints((3,))
e0, e1 = a0.copy(), a1.copy()
for i in range(3):
    j = idx[i, 0]
    old = e0[j]
    e0[j] = u1[i]
    e1[j] = old
for name, v in [("operand0", a0), ("operand1", a1), ("indices", idx), ("updates0", u0),
                ("updates1", u1), ("expected0", e0), ("expected1", e1)]:
    put("scatter_variadic", name, v)

# Batching dims: operand [B=2, N=4], indices [S=3, B=2];
# operand[b, idx[s, b]] = max(operand[b, idx[s, b]], updates[s, b]).
operand = ints((2, 4))
idx = np.array([[1, 3], [1, 0], [2, 3]])
updates = ints((3, 2))
expected = operand.copy()
np.maximum.at(expected, (np.broadcast_to(np.arange(2)[None, :], idx.shape), idx), updates)
put("scatter_batching", "operand", operand)
put("scatter_batching", "indices", idx)
put("scatter_batching", "updates", updates)
put("scatter_batching", "expected", expected)

with open("xlite/eval/testdata/gather_scatter_goldens.txt", "w") as f:
    f.write("\n".join(lines) + "\n")
