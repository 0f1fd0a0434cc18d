#!/usr/bin/env bash
# CPython 3.8-3.10: each Python call is its own activation of the eval function,
# and each activation's frame is pinned by the sample (its f, where the build's
# DWARF and its caller's call site say), so a fixed recursion depth is shown
# whole.  rec(7) calls itself down to rec(1), which spins in time.process_time():
# every verified sample inside time_process_time (the C function) under rec()
# shows rec() exactly 7 times, none more anywhere, and no [python: callers not
# proven] (no frame is read from a chain); unverified samples (counted: a frame first
# read after its sample) fewer than verified ones (below).  The first of 3.10, 3.9, 3.8 installed (pyenv,
# full DWARF); none: SKIP.
. "$(dirname "$0")/pyenv.sh"
cat >"$TMP/pub/rec.py" <<'PY'
import sys, time
def rec(k):
    if k == 1:
        end = time.process_time() + 0.002
        while time.process_time() < end: pass
    else:
        return rec(k - 1)
end = time.process_time() + float(sys.argv[1])
while time.process_time() < end:
    rec(7)
PY
for v in 3.10.13 3.9.18 3.8.18 ""; do
	[ -n "$v" ] || skip "none of CPython 3.8-3.10 installed under $PYENV_VERSIONS"
	pyenv_mount "$v" && break
done
# The unverified share grows with how late prof reads the frames, which is the host's
# state: on one host within an hour 0.06-0.14 s after the sample (1,700-2,700
# unverified against 12,000 verified) and 0.26-0.59 s (3,500-6,500 against 9,300-10,300),
# for the binaries of two stops alike.  The bound is that most samples are verified
# (fewer unverified than verified; a quarter on a quiet host), and a recording whose
# only fault is that share is made once more; any wrong frame fails at once.
F=$TMP/rec.data
for attempt in 1 2; do
pyv_record "$F" "$TMP/pub/rec.py" 4
pyv_folded "$F" "$TMP/prof.folded"
rc=0
python3 - "$TMP/prof.folded" <<'PY' || rc=$?
import collections, sys
spin = collections.Counter()
deeper = unverified = markers = 0
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    n = int(count)
    recs = sum(1 for f in frames if f.startswith("rec (") and "rec.py:" in f)
    markers += n * any("callers not proven" in f for f in frames)
    if any("[python: unverified]" in f for f in frames):
        unverified += n
        continue
    deeper += n * (recs > 7)
    # in time.process_time() under rec() (the module's own loop calls it too)
    if "time_process_time" in frames and recs:
        spin[recs] += n
total = sum(spin.values())
print(f"# {total} verified samples in time.process_time(), by rec() frames shown: {dict(spin)}; "
      f"{unverified} samples with an unverified frame, {deeper} with more than 7, {markers} with a marker")
if total < 1000 or set(spin) != {7} or deeper or markers:
    sys.exit(1)
if unverified > total:
    sys.exit(2)
PY
[ "$rc" -eq 0 ] && break
[ "$rc" -eq 2 ] && [ "$attempt" -eq 1 ] || fail "$v: recursion"
note "$v: unverified share over a quarter (frames read late on a busy host): recording again"
done
pass "$v: every verified sample of the recursion shows its 7 rec() frames"
