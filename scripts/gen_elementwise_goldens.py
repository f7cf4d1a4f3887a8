#!/usr/bin/python3
"""Writes xlite/eval/testdata/elementwise_goldens.txt: expected results of
elementwise HLO opcodes computed independently of xlite, with numpy (float
math, f16 rounding) and plain Python (XLA's integer rules, bf16 rounding,
total order). elementwise_golden_test.cc evaluates each line and compares.

Line format (tab separated):
  name  opcode  attrs  in_type  out_type  ulps  in0  [in1  [in2]]  expected
Values are hexadecimal bit patterns separated by commas; attrs is '-' or the
attribute text appended to the instruction; ulps is the tolerance in units
in the last place of out_type (0 = bit exact; NaN matches any NaN).

Run from the repository root: scripts/gen_elementwise_goldens.py
"""

import itertools
import math
import os
import sys

import numpy as np

np.seterr(all="ignore")

LINES = []


def emit(name, opcode, attrs, in_type, out_type, ulps, inputs, expected):
    fields = [name, opcode, attrs or "-", in_type, out_type, str(ulps)]
    for values in list(inputs) + [expected]:
        fields.append(",".join("%x" % int(v) for v in values))
    LINES.append("\t".join(fields))


# ---------------------------------------------------------------- floats

def f32_bits(a):
    return np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)


def f64_bits(a):
    return np.asarray(a, dtype=np.float64).view(np.uint64)


def f16_bits(a):
    return np.asarray(a, dtype=np.float16).view(np.uint16).astype(np.uint64)


def bf16_round_bits(a):
    """f32 values -> bf16 bits, round to nearest even, NaN made quiet."""
    out = []
    for u in f32_bits(a):
        u = int(u)
        if (u & 0x7F800000) == 0x7F800000 and (u & 0x7FFFFF):
            out.append((u >> 16) | 0x40)
            continue
        out.append(((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF)
    return out


def bf16_values(bits):
    return np.array([int(b) << 16 for b in bits], dtype=np.uint32).view(np.float32)


F32_SPECIAL = np.array(
    [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.75, 1e-40, -1e-45, 1e30, -1e30,
     np.inf, -np.inf, np.nan, 2.5, 0.1, 100.0, -7.3, 0.75, -0.3],
    dtype=np.float32)

# Binary float operands: every pair of a smaller set.
F32_PAIR_SET = np.array([0.0, -0.0, 1.0, -2.5, 3.0, 1e-40, 1e30, np.inf, -np.inf,
                         np.nan, 0.1, -7.0], dtype=np.float32)
PAIRS = list(itertools.product(F32_PAIR_SET, F32_PAIR_SET))
F32_A = np.array([p[0] for p in PAIRS], dtype=np.float32)
F32_B = np.array([p[1] for p in PAIRS], dtype=np.float32)


def round_afz(x):
    x64 = x.astype(np.float64)
    return np.copysign(np.floor(np.abs(x64) + 0.5), x64).astype(np.float32)


def sign_keep_zero(x):
    return np.where(np.isnan(x) | (x == 0), x, np.copysign(np.float32(1), x)).astype(x.dtype)


def erf_f32(x):
    return np.array([math.erf(float(v)) if not math.isnan(v) else math.nan for v in x],
                    dtype=np.float32)


UNARY_F32 = [
    # opcode, function, ulps
    ("negate", lambda x: -x, 0),
    ("abs", np.abs, 0),
    ("sqrt", np.sqrt, 0),
    ("rsqrt", lambda x: np.float32(1) / np.sqrt(x), 1),
    ("cbrt", np.cbrt, 2),
    ("exponential", np.exp, 2),
    ("exponential-minus-one", np.expm1, 2),
    ("log", np.log, 2),
    ("log-plus-one", np.log1p, 2),
    ("sine", np.sin, 2),
    ("cosine", np.cos, 2),
    ("tan", np.tan, 3),
    ("tanh", np.tanh, 2),
    ("sinh", np.sinh, 2),
    ("cosh", np.cosh, 2),
    ("asin", np.arcsin, 2),
    ("acos", np.arccos, 2),
    ("atan", np.arctan, 2),
    ("asinh", np.arcsinh, 2),
    ("acosh", np.arccosh, 2),
    ("atanh", np.arctanh, 2),
    ("logistic", lambda x: np.float32(1) / (np.float32(1) + np.exp(-x)), 2),
    ("erf", erf_f32, 2),
    ("floor", np.floor, 0),
    ("ceil", np.ceil, 0),
    ("round-nearest-afz", round_afz, 0),
    ("round-nearest-even", np.rint, 0),
    ("sign", sign_keep_zero, 0),
]


def nan_max(a, b):
    # NaN-propagating; pairs of equal-valued zeros are excluded by callers.
    return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(a < b, b, a)))


def nan_min(a, b):
    return np.where(np.isnan(a), a, np.where(np.isnan(b), b, np.where(b < a, b, a)))


BINARY_F32 = [
    ("add", np.add, 0),
    ("subtract", np.subtract, 0),
    ("multiply", np.multiply, 0),
    ("divide", np.divide, 0),
    ("remainder", np.fmod, 0),
    ("maximum", nan_max, 0),
    ("minimum", nan_min, 0),
    ("power", np.power, 2),
    ("atan2", np.arctan2, 2),
]


def gen_floats():
    x = F32_SPECIAL
    for opcode, fn, ulps in UNARY_F32:
        emit(opcode.replace("-", "_") + "_f32", opcode, None, "f32", "f32", ulps,
             [f32_bits(x)], f32_bits(fn(x).astype(np.float32)))
    emit("is_finite_f32", "is-finite", None, "f32", "pred", 0, [f32_bits(x)],
         np.isfinite(x).astype(np.uint64))
    # max/min of equal zeros depend on operand order; leave those pairs out.
    keep = ~((F32_A == 0) & (F32_B == 0))
    for opcode, fn, ulps in BINARY_F32:
        a, b = (F32_A[keep], F32_B[keep]) if opcode in ("maximum", "minimum") else (F32_A, F32_B)
        emit(opcode + "_f32", opcode, None, "f32", "f32", ulps, [f32_bits(a), f32_bits(b)],
             f32_bits(fn(a, b).astype(np.float32)))

    # f64: a few ops in double.
    x64 = x.astype(np.float64) * 1.000000001
    emit("add_f64", "add", None, "f64", "f64", 0, [f64_bits(x64), f64_bits(x64[::-1])],
         f64_bits(x64 + x64[::-1]))
    emit("divide_f64", "divide", None, "f64", "f64", 0, [f64_bits(x64), f64_bits(x64[::-1])],
         f64_bits(x64 / x64[::-1]))
    emit("sqrt_f64", "sqrt", None, "f64", "f64", 0, [f64_bits(x64)], f64_bits(np.sqrt(x64)))
    emit("exponential_f64", "exponential", None, "f64", "f64", 1, [f64_bits(x64)],
         f64_bits(np.exp(x64)))

    # bf16: operands are bf16 values, the op runs in f32 and rounds once.
    a_bits = bf16_round_bits(F32_A)
    b_bits = bf16_round_bits(F32_B)
    a, b = bf16_values(a_bits), bf16_values(b_bits)
    for opcode, fn in [("add", np.add), ("multiply", np.multiply), ("divide", np.divide)]:
        emit(opcode + "_bf16", opcode, None, "bf16", "bf16", 0, [a_bits, b_bits],
             bf16_round_bits(fn(a, b)))
    xb_bits = bf16_round_bits(x)
    xb = bf16_values(xb_bits)
    emit("exponential_bf16", "exponential", None, "bf16", "bf16", 1, [xb_bits],
         bf16_round_bits(np.exp(xb)))
    emit("sqrt_bf16", "sqrt", None, "bf16", "bf16", 0, [xb_bits], bf16_round_bits(np.sqrt(xb)))
    # Rounding ties of an add: 1 + 2^-8 is halfway between bf16 neighbours.
    ties_a = np.array([1.0, 1.0, 1.0078125, 256.0], dtype=np.float32)
    ties_b = np.array([2.0**-8, 3 * 2.0**-8, 2.0**-8, 1.0], dtype=np.float32)
    emit("add_bf16_ties", "add", None, "bf16", "bf16", 0,
         [bf16_round_bits(ties_a), bf16_round_bits(ties_b)], bf16_round_bits(ties_a + ties_b))

    # f16 through numpy's own float16.
    a16, b16 = F32_A.astype(np.float16), F32_B.astype(np.float16)
    for opcode, fn in [("add", np.add), ("multiply", np.multiply), ("subtract", np.subtract)]:
        r = fn(a16.astype(np.float32), b16.astype(np.float32)).astype(np.float16)
        emit(opcode + "_f16", opcode, None, "f16", "f16", 0, [f16_bits(a16), f16_bits(b16)],
             f16_bits(r))
    x16 = x.astype(np.float16)
    emit("exponential_f16", "exponential", None, "f16", "f16", 1, [f16_bits(x16)],
         f16_bits(np.exp(x16.astype(np.float32)).astype(np.float16)))


# ---------------------------------------------------------------- compare

def total_key(v):
    if math.isnan(v):
        return (2 if math.copysign(1, v) > 0 else 0, 0.0, 0)
    return (1, float(v), 1 if math.copysign(1, v) > 0 else 0)


DIRECTIONS = {
    "EQ": lambda a, b: a == b, "NE": lambda a, b: a != b, "LT": lambda a, b: a < b,
    "LE": lambda a, b: a <= b, "GT": lambda a, b: a > b, "GE": lambda a, b: a >= b,
}


def gen_compare():
    neg_nan = np.array([-np.nan], dtype=np.float32)
    values = np.concatenate([F32_PAIR_SET, neg_nan]).astype(np.float32)
    pairs = list(itertools.product(values, values))
    a = np.array([p[0] for p in pairs], dtype=np.float32)
    b = np.array([p[1] for p in pairs], dtype=np.float32)
    for d, fn in DIRECTIONS.items():
        emit("compare_%s_f32" % d.lower(), "compare", "direction=" + d, "f32", "pred", 0,
             [f32_bits(a), f32_bits(b)], [int(fn(x, y)) for x, y in zip(a, b)])
        emit("compare_%s_totalorder_f32" % d.lower(), "compare",
             "direction=%s, type=TOTALORDER" % d, "f32", "pred", 0,
             [f32_bits(a), f32_bits(b)],
             [int(fn(total_key(x), total_key(y))) for x, y in zip(a, b)])
    ints = [0, 1, -1, 5, -2**31, 2**31 - 1]
    ip = list(itertools.product(ints, ints))
    for d, fn in DIRECTIONS.items():
        emit("compare_%s_s32" % d.lower(), "compare", "direction=" + d, "s32", "pred", 0,
             [[x & 0xFFFFFFFF for x, _ in ip], [y & 0xFFFFFFFF for _, y in ip]],
             [int(fn(x, y)) for x, y in ip])
        emit("compare_%s_u32" % d.lower(), "compare", "direction=" + d, "u32", "pred", 0,
             [[x & 0xFFFFFFFF for x, _ in ip], [y & 0xFFFFFFFF for _, y in ip]],
             [int(fn(x & 0xFFFFFFFF, y & 0xFFFFFFFF)) for x, y in ip])


# ---------------------------------------------------------------- integers

INT_TYPES = {  # name: (bits, signed)
    "s4": (4, True), "u4": (4, False), "s8": (8, True), "u8": (8, False),
    "s16": (16, True), "s32": (32, True), "u32": (32, False), "s64": (64, True),
    "u64": (64, False),
}


def wrap(v, bits, signed):
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def int_edges(bits, signed):
    lo = -(1 << (bits - 1)) if signed else 0
    hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
    vals = {0, 1, 2, 3, hi, lo, bits - 1, bits, bits + 1, 7}
    if signed:
        vals |= {-1, -2, -3, -7, lo + 1}
    return sorted(wrap(v, bits, signed) for v in vals)


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def int_ops(bits, signed):
    mask = (1 << bits) - 1
    lo = -(1 << (bits - 1)) if signed else 0

    def div(a, b):
        if b == 0:
            return -1
        if signed and a == lo and b == -1:
            return lo
        return trunc_div(a, b)

    def rem(a, b):
        if b == 0:
            return a
        if signed and a == lo and b == -1:
            return 0
        return a - trunc_div(a, b) * b

    def shl(a, n):
        n &= mask
        return 0 if n >= bits else a << n

    def shr_logical(a, n):
        n &= mask
        return 0 if n >= bits else (a & mask) >> n

    def shr_arith(a, n):
        # The bits shift as a signed number even for unsigned types.
        n &= mask
        a = wrap(a, bits, True)
        if n >= bits:
            return -1 if a < 0 else 0
        return a >> n  # Python's >> floors, which is the arithmetic shift

    def power(a, b):
        if a == 1 or b == 0:
            return 1
        if b < 0:
            return 0
        return pow(a, b, 1 << bits)

    def mulhi(a, b):
        return (a * b) >> bits

    return {
        "add": lambda a, b: a + b,
        "subtract": lambda a, b: a - b,
        "multiply": lambda a, b: a * b,
        "divide": div,
        "remainder": rem,
        "maximum": max,
        "minimum": min,
        "and": lambda a, b: a & b,
        "or": lambda a, b: a | b,
        "xor": lambda a, b: a ^ b,
        "shift-left": shl,
        "shift-right-logical": shr_logical,
        "shift-right-arithmetic": shr_arith,
        "power": power,
        "mulhi": mulhi,
    }


def int_unary(bits, signed):
    mask = (1 << bits) - 1

    def clz(a):
        u = a & mask
        return bits - u.bit_length()

    return {
        "negate": lambda a: -a,
        "abs": abs,
        "sign": lambda a: (a > 0) - (a < 0),
        "not": lambda a: ~a,
        "count-leading-zeros": clz,
        "popcnt": lambda a: bin(a & mask).count("1"),
    }


def gen_integers():
    for name, (bits, signed) in INT_TYPES.items():
        mask = (1 << bits) - 1
        edges = int_edges(bits, signed)
        pairs = list(itertools.product(edges, edges))
        a = [p[0] for p in pairs]
        b = [p[1] for p in pairs]
        for opcode, fn in int_ops(bits, signed).items():
            if opcode == "power":  # keep exponents small enough to read
                pb = [(x, y) for x, y in pairs if y <= 9]
                pa_, pb_ = [p[0] for p in pb], [p[1] for p in pb]
            else:
                pa_, pb_ = a, b
            emit("%s_%s" % (opcode.replace("-", "_"), name), opcode, None, name, name, 0,
                 [[x & mask for x in pa_], [y & mask for y in pb_]],
                 [wrap(fn(x, y), bits, signed) & mask for x, y in zip(pa_, pb_)])
        for opcode, fn in int_unary(bits, signed).items():
            emit("%s_%s" % (opcode.replace("-", "_"), name), opcode, None, name, name, 0,
                 [[x & mask for x in edges]], [wrap(fn(x), bits, signed) & mask for x in edges])


# ---------------------------------------------------------------- conversions

def gen_converts():
    vals = np.array([0.0, -0.0, 1.5, -1.5, 2.5, -2.7, 3e9, -3e9, 2147483520.0, np.nan,
                     np.inf, -np.inf, 255.9, 256.0, -0.9, 1e-40], dtype=np.float32)

    def to_int(v, lo, hi):
        out = []
        for x in v:
            x = float(x)
            if math.isnan(x):
                out.append(0)
            else:
                out.append(int(min(max(math.trunc(x) if math.isfinite(x) else x, lo), hi)))
        return out

    emit("convert_f32_s32", "convert", None, "f32", "s32", 0, [f32_bits(vals)],
         [v & 0xFFFFFFFF for v in to_int(vals, -2**31, 2**31 - 1)])
    emit("convert_f32_u8", "convert", None, "f32", "u8", 0, [f32_bits(vals)],
         to_int(vals, 0, 255))
    emit("convert_f32_s8", "convert", None, "f32", "s8", 0, [f32_bits(vals)],
         [v & 0xFF for v in to_int(vals, -128, 127)])
    emit("convert_f32_pred", "convert", None, "f32", "pred", 0, [f32_bits(vals)],
         [int(x != 0) for x in vals])
    # f32 -> bf16 / f16: ties between neighbours round to even.
    ties = np.array([1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, 1.0 + 2.0**-8 + 2.0**-20, 65520.0,
                     65519.0, 3.4e38, -3.4e38, 1e-40, 6e-8, 2.0**-25, 2.0**-24 * 1.5, np.nan,
                     -np.inf, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11], dtype=np.float32)
    emit("convert_f32_bf16", "convert", None, "f32", "bf16", 0, [f32_bits(ties)],
         bf16_round_bits(ties))
    emit("convert_f32_f16", "convert", None, "f32", "f16", 0, [f32_bits(ties)],
         f16_bits(ties.astype(np.float16)))
    emit("convert_bf16_f32", "convert", None, "bf16", "f32", 0, [bf16_round_bits(ties)],
         f32_bits(bf16_values(bf16_round_bits(ties))))
    ints = [0, 1, -1, 16777217, 16777219, -16777217, 2**31 - 1, -2**31, 33554435, 123456789]
    emit("convert_s32_f32", "convert", None, "s32", "f32", 0, [[v & 0xFFFFFFFF for v in ints]],
         f32_bits(np.array(ints, dtype=np.int64).astype(np.float32)))
    emit("convert_s32_f16", "convert", None, "s32", "f16", 0, [[v & 0xFFFFFFFF for v in ints]],
         f16_bits(np.array(ints, dtype=np.float64).astype(np.float16)))
    emit("convert_s32_s8", "convert", None, "s32", "s8", 0, [[v & 0xFFFFFFFF for v in ints]],
         [v & 0xFF for v in ints])
    emit("convert_s8_u32", "convert", None, "s8", "u32", 0, [[v & 0xFF for v in ints]],
         [wrap(v, 8, True) & 0xFFFFFFFF for v in ints])
    big = [0, 1, 2**64 - 1, 2**63, 2**53 + 1]
    emit("convert_u64_f64", "convert", None, "u64", "f64", 0, [big],
         f64_bits(np.array(big, dtype=np.uint64).astype(np.float64)))
    d = np.array([1.0 + 2.0**-24, 1.0 + 3 * 2.0**-24, 3.5e38, 1e-46, -1e-300, np.nan, 0.1],
                 dtype=np.float64)
    emit("convert_f64_f32", "convert", None, "f64", "f32", 0, [f64_bits(d)],
         f32_bits(d.astype(np.float32)))


# ---------------------------------------------------------------- reduce-precision

def gen_reduce_precision():
    # (5, 10) equals f16 rounding for values whose f16 form is normal.
    v = np.array([1.0, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 65504.0, 65519.0, 65520.0, 1e6,
                  -3.14159, 6.1035156e-05, -np.inf, 0.0, -0.0, 12345.678], dtype=np.float32)
    emit("reduce_precision_e5m10_f32", "reduce-precision", "exponent_bits=5, mantissa_bits=10",
         "f32", "f32", 0, [f32_bits(v)], f32_bits(v.astype(np.float16).astype(np.float32)))
    # (8, 7) equals bf16 rounding everywhere, denormals included.
    w = np.concatenate([v, np.array([1e-40, 3.4e38, 1.0 + 2.0**-8], dtype=np.float32)])
    emit("reduce_precision_e8m7_f32", "reduce-precision", "exponent_bits=8, mantissa_bits=7",
         "f32", "f32", 0, [f32_bits(w)], f32_bits(bf16_values(bf16_round_bits(w))))


def main():
    gen_floats()
    gen_compare()
    gen_integers()
    gen_converts()
    gen_reduce_precision()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(root, "xlite", "eval", "testdata", "elementwise_goldens.txt")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("# Generated by scripts/gen_elementwise_goldens.py; do not edit.\n")
        for line in LINES:
            f.write(line + "\n")
    print("wrote %d cases to %s" % (len(LINES), path), file=sys.stderr)


if __name__ == "__main__":
    main()
