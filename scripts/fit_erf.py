#!/usr/bin/python3
"""Fits the rational approximation erf(x) ~= x * P(x^2) / Q(x^2) on [0, 4]
used by xlite's erf-expander (xlite/passes/erf_expander.cc), then measures its
error in ulp when evaluated in float32 (Horner, as the pass emits it).

Method: linearised least squares on P(t) - erf(x)/x * Q(t) = 0 with Q(0) = 1,
re-weighted by 1/|Q| of the previous fit (Sanathanan-Koerner iteration), then
weighted by 1/|erf| for relative error. Prints C++ constants."""
import math
import numpy as np

P_DEG, Q_DEG = 6, 4
xs = np.concatenate([np.linspace(1e-4, 4.0, 20000), np.linspace(0, 1e-3, 200)[1:]])
t = xs * xs
f = np.array([math.erf(v) for v in xs]) / xs  # erf(x)/x
w = np.ones_like(xs)
for _ in range(30):
    cols = [t**i for i in range(P_DEG + 1)] + [-f * t**j for j in range(1, Q_DEG + 1)]
    a = np.stack(cols, axis=1) * w[:, None]
    coef, *_ = np.linalg.lstsq(a, f * w, rcond=None)
    p = coef[:P_DEG + 1]
    q = np.concatenate([[1.0], coef[P_DEG + 1:]])
    qv = np.polyval(q[::-1], t)
    w = 1.0 / np.abs(qv)

p32 = p.astype(np.float32)
q32 = q.astype(np.float32)

def erf32(x):
    x = np.clip(x.astype(np.float32), np.float32(-4), np.float32(4))
    tt = x * x
    num = np.float32(p32[-1])
    for c in p32[-2::-1]:
        num = num * tt + c
    den = np.float32(q32[-1])
    for c in q32[-2::-1]:
        den = den * tt + c
    return (x * num / den).astype(np.float32)

test = np.concatenate([np.linspace(-6, 6, 400001, dtype=np.float32),
                       np.geomspace(1e-38, 6, 20000).astype(np.float32)])
got = erf32(test)
want = np.array([math.erf(float(v)) for v in test], dtype=np.float32)
ulp = np.abs(got.view(np.int32).astype(np.int64) - want.view(np.int32).astype(np.int64))
print("max ulp (float32, vs correctly rounded erf):", int(ulp.max()))
print("P:", ", ".join(repr(float(c)) for c in p32))
print("Q:", ", ".join(repr(float(c)) for c in q32))
