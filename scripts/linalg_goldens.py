#!/usr/bin/python3
"""Writes xlite/eval/testdata/linalg_goldens.txt: HLO modules for the
evaluator's convolution, fft, cholesky, triangular-solve and dot tests, their
inputs, and the expected outputs computed here with numpy, independently of
the C++ (convolutions by explicit zero-insertion, padding and sliding sums).

Each case is four kinds of line, one value list per line:
  <name>.hlo <one-line HLO module>
  <name>.arg<i> <shape> <values...>     (complex: re im pairs)
  <name>.out <values...>                (complex: re im pairs)
Run from the repository root: /usr/bin/python3 scripts/linalg_goldens.py (Debian numpy)
"""
import numpy as np

rng = np.random.default_rng(20261202)
lines = []


def ints(shape, lo=-3, hi=4):
    return rng.integers(lo, hi, size=shape).astype(np.float64)


def fmt(values):
    flat = np.asarray(values).reshape(-1)
    if np.iscomplexobj(flat):
        flat = np.stack([flat.real, flat.imag], axis=-1).reshape(-1)
    return " ".join(repr(float(v)) for v in flat)


def emit(name, hlo, args, out):
    lines.append(f"{name}.hlo " + " ".join(hlo.split()))
    for i, (shape, values) in enumerate(args):
        lines.append(f"{name}.arg{i} {shape} {fmt(values)}")
    lines.append(f"{name}.out {fmt(out)}")


def shape_text(t, dims):
    return f"{t}[{','.join(str(d) for d in dims)}]"


# ------------------------------------------------------------ convolution

def dilate(x, axis, factor):
    if factor == 1 or x.shape[axis] == 0:
        return x
    shape = list(x.shape)
    shape[axis] = (shape[axis] - 1) * factor + 1
    out = np.zeros(shape, x.dtype)
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(None, None, factor)
    out[tuple(idx)] = x
    return out


def pad_axis(x, axis, lo, hi):
    # Negative padding removes elements.
    if lo < 0:
        x = np.take(x, range(-lo, x.shape[axis]), axis=axis)
        lo = 0
    if hi < 0:
        x = np.take(x, range(0, x.shape[axis] + hi), axis=axis)
        hi = 0
    widths = [(0, 0)] * x.ndim
    widths[axis] = (lo, hi)
    return np.pad(x, widths)


def conv_reference(x, k, win, fgc, bgc):
    """x: [N, C, *spatial], k: [O, I, *spatial]; returns [N/bgc, O, *out]."""
    ns = x.ndim - 2
    for d, w in enumerate(win):
        x = dilate(x, 2 + d, w["lhs_dilate"])
        x = pad_axis(x, 2 + d, *w["pad"])
        if w["reverse"]:
            k = np.flip(k, axis=2 + d)
        k = dilate(k, 2 + d, w["rhs_dilate"])
    n_in, c = x.shape[:2]
    o, cin_g = k.shape[:2]
    groups = fgc * bgc
    cout_g = o // groups
    n_out = n_in // bgc
    out_sp = [(x.shape[2 + d] - k.shape[2 + d]) // win[d]["stride"] + 1 for d in range(ns)]
    out = np.zeros([n_out, o] + out_sp, dtype=np.result_type(x, k))
    for pos in np.ndindex(*out_sp):
        sl = tuple(slice(p * win[d]["stride"], p * win[d]["stride"] + k.shape[2 + d])
                   for d, p in enumerate(pos))
        for oo in range(o):
            g = oo // cout_g
            if bgc > 1:
                patch = x[(slice(g * n_out, (g + 1) * n_out), slice(None)) + sl]
            else:
                patch = x[(slice(None), slice(g * cin_g, (g + 1) * cin_g)) + sl]
            out[(slice(None), oo) + pos] = np.tensordot(patch, k[oo], axes=ns + 1)
    return out


def window_text(win):
    def join(key):
        return "x".join(str(w[key]) for w in win)
    parts = [f"size={join('size')}", f"stride={join('stride')}",
             "pad=" + "x".join(f"{w['pad'][0]}_{w['pad'][1]}" for w in win),
             f"lhs_dilate={join('lhs_dilate')}", f"rhs_dilate={join('rhs_dilate')}",
             "rhs_reversal=" + "x".join("1" if w["reverse"] else "0" for w in win)]
    return "{" + " ".join(parts) + "}"


def conv_case(name, labels, n, c, o, spatial, ksize, fgc=1, bgc=1, t="f32", **kw):
    """labels like 'b01f_01io->b01f'; spatial/ksize: per spatial dim sizes."""
    ns = len(spatial)
    win = []
    for d in range(ns):
        win.append(dict(size=ksize[d], stride=kw.get("stride", [1] * ns)[d],
                        pad=kw.get("pad", [(0, 0)] * ns)[d],
                        lhs_dilate=kw.get("lhs_dilate", [1] * ns)[d],
                        rhs_dilate=kw.get("rhs_dilate", [1] * ns)[d],
                        reverse=kw.get("reverse", [False] * ns)[d]))
    lhs_l, rest = labels.split("_")
    rhs_l, out_l = rest.split("->")
    # Canonical operands, then permuted into the labelled layouts.
    x = ints([n, c] + list(spatial))
    k = ints([o, c // fgc] + list(ksize))
    ref = conv_reference(x, k, win, fgc, bgc)
    sp = [str(d) for d in range(ns)]
    x_perm = [["b", "f"].index(ch) if ch in "bf" else 2 + sp.index(ch) for ch in lhs_l]
    k_perm = [["o", "i"].index(ch) if ch in "oi" else 2 + sp.index(ch) for ch in rhs_l]
    out_perm = [["b", "f"].index(ch) if ch in "bf" else 2 + sp.index(ch) for ch in out_l]
    xl, kl, outl = x.transpose(x_perm), k.transpose(k_perm), ref.transpose(out_perm)
    extra = ""
    if fgc > 1:
        extra += f", feature_group_count={fgc}"
    if bgc > 1:
        extra += f", batch_group_count={bgc}"
    win_attr = f"window={window_text(win)}, " if ns else ""
    hlo = f"""HloModule {name}
ENTRY e {{
  x = {shape_text(t, xl.shape)} parameter(0)
  k = {shape_text(t, kl.shape)} parameter(1)
  ROOT c = {shape_text(t, outl.shape)} convolution(x, k), {win_attr}dim_labels={labels}{extra}
}}"""
    emit(name, hlo, [(shape_text(t, xl.shape), xl), (shape_text(t, kl.shape), kl)], outl)


conv_case("conv_1d", "bf0_oi0->bf0", 2, 3, 2, [7], [3])
conv_case("conv_nhwc_hwio", "b01f_01io->b01f", 2, 3, 4, [5, 6], [3, 2], pad=[(1, 1), (0, 1)])
conv_case("conv_nchw_oihw", "bf01_oi01->bf01", 2, 3, 4, [5, 5], [3, 3], pad=[(1, 1), (1, 1)])
conv_case("conv_stride", "b01f_01io->b01f", 1, 2, 3, [7, 8], [3, 3], stride=[2, 3],
          pad=[(1, 1), (1, 0)])
conv_case("conv_negative_padding", "b01f_01io->b01f", 1, 2, 2, [6, 6], [2, 2],
          pad=[(-1, 1), (2, -2)])
conv_case("conv_lhs_dilation", "b01f_01io->b01f", 1, 2, 2, [3, 4], [3, 3],
          lhs_dilate=[2, 2], pad=[(2, 2), (2, 1)])
conv_case("conv_rhs_dilation", "b01f_01io->b01f", 2, 2, 3, [7, 7], [3, 2], rhs_dilate=[2, 3],
          pad=[(1, 1), (0, 0)])
conv_case("conv_depthwise", "b01f_01io->b01f", 2, 4, 8, [5, 5], [3, 3], fgc=4,
          pad=[(1, 1), (1, 1)])
conv_case("conv_feature_groups", "bf01_oi01->bf01", 1, 6, 4, [4, 4], [2, 2], fgc=2)
conv_case("conv_batch_groups", "f01b_i01o->01bf", 6, 3, 4, [4, 5], [2, 3], bgc=2)
conv_case("conv_batch_groups_per_example", "b01f_01io->b01f", 4, 2, 4, [3, 3], [2, 2], bgc=4)
conv_case("conv_window_reversal", "b01f_01io->b01f", 1, 2, 3, [5, 4], [3, 2],
          reverse=[True, False], pad=[(1, 1), (1, 0)])
conv_case("conv_3d", "b012f_012io->b012f", 1, 2, 2, [4, 3, 5], [2, 2, 3], stride=[1, 2, 1],
          pad=[(0, 1), (1, 0), (1, 1)])
conv_case("conv_no_spatial", "bf_io->bf", 3, 4, 5, [], [])
conv_case("conv_mixed_layout", "0bf1_o1i0->f01b", 2, 3, 2, [5, 4], [2, 3], stride=[1, 2],
          pad=[(1, 0), (1, 1)], rhs_dilate=[2, 1])
conv_case("conv_f64_everything", "b0f_0io->b0f", 2, 4, 4, [6], [2], fgc=2, stride=[2],
          pad=[(3, -1)], lhs_dilate=[3], rhs_dilate=[2], reverse=[True], t="f64")
conv_case("conv_s32", "b01f_01io->b01f", 1, 3, 2, [4, 4], [2, 2], t="s32", pad=[(1, 0), (0, 1)])

# --------------------------------------------------------------------- fft


def cplx(shape):
    return ints(shape) + 1j * ints(shape)


def fft_case(name, kind, in_shape, lengths, t):
    ctype = "c128" if t == "f64" else "c64"
    axes = tuple(range(len(in_shape) - len(lengths), len(in_shape)))
    if kind == "RFFT":
        x = ints(in_shape)
        out = np.fft.rfftn(x, axes=axes)
        in_t, out_t = t, ctype
    else:
        x = cplx(in_shape)
        if kind == "FFT":
            out = np.fft.fftn(x, axes=axes)
        elif kind == "IFFT":
            out = np.fft.ifftn(x, axes=axes)
        else:
            out = np.fft.irfftn(x, s=lengths, axes=axes)
        in_t, out_t = ctype, (t if kind == "IRFFT" else ctype)
    hlo = f"""HloModule {name}
ENTRY e {{
  x = {shape_text(in_t, x.shape)} parameter(0)
  ROOT f = {shape_text(out_t, out.shape)} fft(x), fft_type={kind}, fft_length={{{','.join(map(str, lengths))}}}
}}"""
    emit(name, hlo, [(shape_text(in_t, x.shape), x)], out)


fft_case("fft_1d", "FFT", [2, 8], [8], "f32")
fft_case("fft_1d_non_power_of_two", "FFT", [3, 6], [6], "f64")
fft_case("fft_prime_length", "FFT", [7], [7], "f32")
fft_case("ifft_1d", "IFFT", [2, 8], [8], "f32")
fft_case("fft_2d", "FFT", [2, 4, 3], [4, 3], "f64")
fft_case("ifft_3d", "IFFT", [2, 2, 4], [2, 2, 4], "f64")
fft_case("rfft_1d", "RFFT", [2, 8], [8], "f32")
fft_case("rfft_odd", "RFFT", [5], [5], "f64")
fft_case("rfft_2d", "RFFT", [4, 6], [4, 6], "f32")
fft_case("irfft_1d", "IRFFT", [2, 5], [8], "f32")
fft_case("irfft_odd", "IRFFT", [3], [5], "f64")
fft_case("irfft_2d", "IRFFT", [3, 4], [3, 6], "f64")

# ------------------------------------------------------- cholesky, solves


def spd(batch, n, complex_=False):
    m = ints(batch + [n, n]) + (1j * ints(batch + [n, n]) if complex_ else 0)
    a = m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n)
    return a


def cholesky_case(name, batch, n, lower, t):
    complex_ = t.startswith("c")
    a = spd(batch, n, complex_)
    l = np.linalg.cholesky(a)
    out = l if lower else np.conj(np.swapaxes(l, -1, -2))
    # The triangle that must not be read holds junk.
    junk = 100 + ints(a.shape)
    mask = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    a_in = np.where(mask, a, junk)
    s = shape_text(t, a.shape)
    attr = ", lower=true" if lower else ""
    hlo = f"""HloModule {name}
ENTRY e {{
  a = {s} parameter(0)
  ROOT c = {s} cholesky(a){attr}
}}"""
    emit(name, hlo, [(s, a_in)], out)


cholesky_case("cholesky_lower_batched", [2], 4, True, "f64")
cholesky_case("cholesky_upper_batched", [3], 3, False, "f32")
cholesky_case("cholesky_lower_complex", [], 3, True, "c128")
cholesky_case("cholesky_upper_complex", [2], 3, False, "c64")


def solve_case(name, left, lower, unit, transpose, t="f64", batch=(2,)):
    complex_ = t.startswith("c")
    n, k = 4, 3
    a = ints(list(batch) + [n, n]) + (1j * ints(list(batch) + [n, n]) if complex_ else 0)
    a = a + np.eye(n) * 6  # well conditioned
    tri = np.tril(a, -1) if lower else np.triu(a, 1)
    diag = np.eye(n) if unit else np.eye(n) * a
    tri = tri + diag
    op = {"NO_TRANSPOSE": tri, "TRANSPOSE": np.swapaxes(tri, -1, -2),
          "ADJOINT": np.conj(np.swapaxes(tri, -1, -2))}[transpose]
    b_shape = list(batch) + ([n, k] if left else [k, n])
    b = ints(b_shape) + (1j * ints(b_shape) if complex_ else 0)
    if left:
        x = np.linalg.solve(op, b)
    else:  # x op = b  <=>  op^T x^T = b^T
        x = np.swapaxes(np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    if unit:  # the diagonal must not be read
        a = a + np.eye(n) * 50
    sa, sb = shape_text(t, a.shape), shape_text(t, b.shape)
    attrs = []
    if left:
        attrs.append("left_side=true")
    if lower:
        attrs.append("lower=true")
    if unit:
        attrs.append("unit_diagonal=true")
    attrs.append(f"transpose_a={transpose}")
    hlo = f"""HloModule {name}
ENTRY e {{
  a = {sa} parameter(0)
  b = {sb} parameter(1)
  ROOT x = {sb} triangular-solve(a, b), {', '.join(attrs)}
}}"""
    emit(name, hlo, [(sa, a), (sb, b)], x)


for left in (True, False):
    for lower in (True, False):
        for transpose in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"):
            side = "left" if left else "right"
            tri = "lower" if lower else "upper"
            solve_case(f"solve_{side}_{tri}_{transpose.lower()}", left, lower, False, transpose)
solve_case("solve_left_lower_unit", True, True, True, "NO_TRANSPOSE")
solve_case("solve_right_upper_unit_transpose", False, False, True, "TRANSPOSE")
solve_case("solve_complex_left_upper_adjoint", True, False, False, "ADJOINT", t="c128")
solve_case("solve_complex_right_lower_adjoint", False, True, False, "ADJOINT", t="c64",
           batch=())

# --------------------------------------------------------------------- dot


def dot_case(name, lhs_shape, rhs_shape, lb, lc, rb, rc, t="f32"):
    x, y = ints(lhs_shape), ints(rhs_shape)
    letters = "abcdefghijklmnop"
    lhs_sub = list(letters[:len(lhs_shape)])
    rhs_sub = list(letters[len(lhs_shape):len(lhs_shape) + len(rhs_shape)])
    for i, j in zip(lb + lc, rb + rc):
        rhs_sub[j] = lhs_sub[i]
    lfree = [lhs_sub[i] for i in range(len(lhs_shape)) if i not in lb + lc]
    rfree = [rhs_sub[i] for i in range(len(rhs_shape)) if i not in rb + rc]
    out_sub = [lhs_sub[i] for i in lb] + lfree + rfree
    out = np.einsum(f"{''.join(lhs_sub)},{''.join(rhs_sub)}->{''.join(out_sub)}", x, y)
    def dims(v):
        return "{" + ",".join(map(str, v)) + "}"
    hlo = f"""HloModule {name}
ENTRY e {{
  x = {shape_text(t, x.shape)} parameter(0)
  y = {shape_text(t, y.shape)} parameter(1)
  ROOT d = {shape_text(t, out.shape)} dot(x, y), lhs_batch_dims={dims(lb)}, lhs_contracting_dims={dims(lc)}, rhs_batch_dims={dims(rb)}, rhs_contracting_dims={dims(rc)}
}}"""
    emit(name, hlo, [(shape_text(t, x.shape), x), (shape_text(t, y.shape), y)], out)


dot_case("dot_batch_dims", [3, 2, 4, 5], [5, 4, 3, 6], [0, 3], [2], [2, 0], [1])
dot_case("dot_multiple_contracting", [4, 3, 5], [5, 2, 4], [], [0, 2], [], [2, 0])
dot_case("dot_f64_transposed_operands", [7, 9], [11, 7], [], [0], [], [1], t="f64")

with open("xlite/eval/testdata/linalg_goldens.txt", "w") as f:
    f.write("# Generated by scripts/linalg_goldens.py; do not edit.\n")
    f.write("\n".join(lines) + "\n")
print(f"wrote {len(lines)} lines")
