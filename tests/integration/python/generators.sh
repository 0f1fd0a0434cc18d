#!/usr/bin/env bash
# Generators, an asyncio task chain and exceptions raised and caught deep, with every
# frame read at the sample instant (python/chain.h).  In 3.11 a generator or
# coroutine runs in an eval activation of its own (next(), send() and await go
# through C), its frame in its object, not in the thread's frame chunk.
# - gen_body() yields after calling g_work(): every sample of g_work shows gen_body
#   right above it (same activation), and gen_user in the activation above.
# - top() awaits middle() awaits leaf(), which spins: each is its own activation,
#   so every sample of leaf() whose activations are verified shows top, middle and
#   leaf in that order, each under an _PyEval_EvalFrameDefault of its own.
# - deep(30) spins 2 ms in raiser() at the bottom and raises, catcher() catches it
#   and calls after() that spins 1 ms: raiser and after take 2/3 and 1/3 of their
#   samples (within 5 points), raiser always under 31 deep() frames and catcher,
#   after under catcher alone: the frames the exception popped leave nothing.
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
E = "_PyEval_EvalFrameDefault"
n = dict(g_work=0, g_bad=0, leaf=0, chain=0, raiser=0, r_bad=0, after=0, a_bad=0, unclaimed=0)
def name(f):
    return f.split(" (")[0] if "gens.py:" in f else f if f.startswith("[python") else None
def said(what, frames):
    print(f"# {what}:", ";".join(f.split(" (")[0] for f in frames if f != "[unknown]")[-400:])
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames, count = stack.split(";"), int(count)
    # nothing claimed: unverified, or (samples before the process was attached) no
    # chain read at the sample instant
    if "[python: unverified]" in frames or "[python: callers not proven]" in frames:
        n["unclaimed"] += count
        continue
    names = [name(f) for f in frames]
    py = [x for x in names if x]
    for i, f in enumerate(names):
        if f == "g_work":
            n["g_work"] += count
            # gen_body right above it; gen_user in the activation above that
            j = names.index("gen_user") if "gen_user" in names else -1
            if names[i - 1] != "gen_body" or j < 0 or E not in frames[j:i - 1]:
                n["g_bad"] += count
                said("g_work without gen_body and gen_user", frames[:i + 1])
        if f == "leaf":
            n["leaf"] += count
            act = [x for x in names[:i] if x in ("top", "middle")]
            t, m = names.index("top") if "top" in names else -1, names.index("middle") if "middle" in names else -1
            if act == ["top", "middle"] and E in frames[t:m] and E in frames[m:i]:
                n["chain"] += count
            else:
                said("leaf without its chain", frames[:i + 1])
        if f == "raiser":
            n["raiser"] += count
            if py[-33:] != ["catcher"] + ["deep"] * 31 + ["raiser"]:
                n["r_bad"] += count
                said("raiser without 31 deep() under catcher", frames[:i + 1])
        if f == "after":
            n["after"] += count
            if py[-2:] != ["catcher", "after"] or "deep" in py:
                n["a_bad"] += count
                said("after not right under catcher", frames[:i + 1])
print("# " + ", ".join(f"{k} {v}" for k, v in n.items()))
share = 100 * n["raiser"] / max(n["raiser"] + n["after"], 1)
print(f"# raiser {share:.1f} % of raiser and after (2/3 by construction)")
bad = n["g_bad"] or n["r_bad"] or n["a_bad"] or n["leaf"] - n["chain"] > n["leaf"] // 20
if bad or min(n["g_work"], n["leaf"], n["raiser"], n["after"]) < 500 or abs(share - 200 / 3) > 5:
    sys.exit(1)
PY
pass "generators, a coroutine chain and deep exceptions show every frame that ran, and only those"
