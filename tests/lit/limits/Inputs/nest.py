"""Writes a module nested N deep: nest.py KIND N, KIND one of call,
conditional (both branches the same computation, so paths double per level),
fusion, while, or chain (N negates in one computation)."""
import sys

kind, n = sys.argv[1], int(sys.argv[2])
lines = ["HloModule %s_%d" % (kind, n)]


def computation(name, params, body, root):
    lines.append("%s {" % name)
    lines.extend("  %s = %s parameter(%d)" % (p, t, i) for i, (p, t) in enumerate(params))
    lines.extend("  " + b for b in body)
    lines.extend(["  ROOT " + root, "}"])


def caller(i):
    """The op of level i calling level i - 1 on `x`."""
    callee = "n%d" % (i - 1)
    if kind == "call":
        return [], "r = f32[4] call(x), to_apply=" + callee
    if kind == "fusion":
        return [], "r = f32[4] fusion(x), kind=kLoop, calls=" + callee
    if kind == "conditional":
        return ["k = pred[] constant(true)"], (
            "r = f32[4] conditional(k, x, x), true_computation=%s, false_computation=%s"
            % (callee, callee))
    return (["t = (s32[], f32[4]) tuple(zero, x)",
             "w = (s32[], f32[4]) while(t), condition=once, body=" + callee],
            "r = f32[4] get-tuple-element(w), index=1")


state = "(s32[], f32[4])"
if kind == "chain":
    lines.append("ENTRY e {\n  v0 = f32[4] parameter(0)")
    lines.extend("  %sv%d = f32[4] negate(v%d)" % ("ROOT " if i == n else "", i, i - 1)
                 for i in range(1, n + 1))
    lines.append("}")
elif kind == "while":
    computation("once", [("s", state)], ["i = s32[] get-tuple-element(s), index=0",
                                          "one = s32[] constant(1)"],
                "c = pred[] compare(i, one), direction=LT")
    for i in range(n + 1):
        inner, root = caller(i) if i > 0 else ([], "r = f32[4] negate(x)")
        body = ["i = s32[] get-tuple-element(s), index=0", "x = f32[4] get-tuple-element(s), index=1",
                "zero = s32[] constant(0)", "one = s32[] constant(1)", "j = s32[] add(i, one)"]
        computation(("ENTRY " if i == n else "") + "n%d" % i, [("s", state)],
                    body + inner + [root], "out = %s tuple(j, r)" % state)
else:
    for i in range(n + 1):
        inner, root = caller(i) if i > 0 else ([], "r = f32[4] negate(x)")
        computation(("ENTRY " if i == n else "") + "n%d" % i, [("x", "f32[4]")], inner, root)
print("\n".join(lines))
