#!/usr/bin/env bash
# Generators, an asyncio task chain and exceptions raised and caught deep.  In 3.11
# a generator or coroutine runs in an eval activation of its own (next(), send()
# and await go through C), its frame in its object, not in the thread's frame chunk.
# - gen_body() yields after calling g_work(): g_work's frame starts where the
#   consumer gen_user()'s ends, as a callback's first frame would, yet it has a
#   caller (gen_body): every sample of it has [python: callers not proven] above it,
#   and gen_user stands in the activation above.
# - top() awaits middle() awaits leaf(), which spins: each is its own activation,
#   so every sample of leaf() whose activations are verified shows top, middle and
#   leaf in that order, each under an _PyEval_EvalFrameDefault of its own.
# - deep(30) spins 2 ms in raiser() at the bottom and raises, catcher() catches it
#   and calls after() that spins 1 ms: raiser and after take 2/3 and 1/3 of their
#   samples (within 5 points), raiser always with callers not proven above it.
. "$(dirname "$0")/lib.sh"
cat >"$TMP/pub/gens.py" <<'PY'
import asyncio, sys, time
def spin(s):
    end = time.process_time() + s
    while time.process_time() < end: pass
def g_work():
    end = time.process_time() + 0.001
    while time.process_time() < end: pass
def gen_body():
    while True:
        g_work()
        yield 1
def gen_user(secs):
    g = gen_body()
    end = time.process_time() + secs
    while time.process_time() < end:
        next(g)
async def leaf():
    end = time.process_time() + 0.001
    while time.process_time() < end: pass
async def middle():
    await leaf()
async def top(secs):
    end = time.process_time() + secs
    while time.process_time() < end:
        await middle()
def raiser():
    end = time.process_time() + 0.002
    while time.process_time() < end: pass
    raise ValueError("deep")
def deep(n):
    if n == 0:
        raiser()
    deep(n - 1)
def after():
    end = time.process_time() + 0.001
    while time.process_time() < end: pass
def catcher(secs):
    end = time.process_time() + secs
    while time.process_time() < end:
        try:
            deep(30)
        except ValueError:
            after()
secs = float(sys.argv[1])
gen_user(secs)
asyncio.run(top(secs))
catcher(secs)
PY
F=$TMP/gens.data
py_record "$F" "$TMP/pub/gens.py" 2.5
py_folded "$F" "$TMP/prof.folded"
python3 - "$TMP/prof.folded" <<'PY' || fail "generators, coroutines or exceptions"
import sys
M = "[python: callers not proven]"
E = "_PyEval_EvalFrameDefault"
n = dict(g_work=0, g_bare=0, g_nouser=0, leaf=0, chain=0, raiser=0, r_bare=0, after=0)
def name(f):
    return f.split(" (")[0] if "gens.py:def " in f else None
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames, count = stack.split(";"), int(count)
    names = [name(f) for f in frames]
    for i, f in enumerate(names):
        if f == "g_work":
            n["g_work"] += count
            if frames[i - 1] != M:
                n["g_bare"] += count
                print("# g_work with nothing above it in its activation:", ";".join(frames[i - 3:i + 1]))
            # the consumer's activation above: gen_user, unless unverified
            outer = [g for g in frames[:i - 2] if g.startswith("gen_user (") or g.startswith("[python: unverified")]
            if not outer:
                n["g_nouser"] += count
        if f == "leaf":
            n["leaf"] += count
            act = [x for x in names[:i] if x in ("top", "middle")]
            if "[python: unverified]" in frames[:i]:
                continue
            # top, E..., middle, E..., leaf: each its own activation
            t, m = names.index("top") if "top" in names else -1, names.index("middle") if "middle" in names else -1
            if act == ["top", "middle"] and E in frames[t:m] and E in frames[m:i]:
                n["chain"] += count
            else:
                print("# leaf without its chain:", ";".join(frames[max(t, 0):i + 1]))
        if f == "raiser":
            n["raiser"] += count
            n["r_bare"] += count * (frames[i - 1] != M)
        if f == "after":
            n["after"] += count
print("# " + ", ".join(f"{k} {v}" for k, v in n.items()))
share = 100 * n["raiser"] / max(n["raiser"] + n["after"], 1)
print(f"# raiser {share:.1f} % of raiser and after (2/3 by construction)")
bad = n["g_bare"] or n["g_nouser"] or n["r_bare"] or n["leaf"] - n["chain"] > n["leaf"] // 20
if bad or min(n["g_work"], n["leaf"], n["raiser"], n["after"]) < 500 or abs(share - 200 / 3) > 5:
    sys.exit(1)
PY
pass "generators, a coroutine chain and deep exceptions show what ran, callers not proven where they may be"
