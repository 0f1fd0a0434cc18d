#!/usr/bin/env bash
# prof top --call-graph dwarf shows a Python process's own functions in its rows,
# by the rules and counts of prof record: a user's 60/30/10 program (sixty(),
# thirty(), ten() spin 6, 3 and 1 ms of CPU in turn, half of it in user mode: a
# tenant's events count no kernel time) gives each its share within 5
# points among the rows' innermost Python functions; the header's Python line says
# how many samples were verified (>= 90 %) and its count of [python: unverified]
# activations is the rows' own.  Another user's python3.11 beside it is never
# attached (one interpreter) and none of its names show, for root (with
# --call-graph dwarf and with -g) and for the tenant with the capability install.
. "$(dirname "$0")/lib.sh"
command -v runuser >/dev/null || skip "needs runuser"
OTHER=prof_py_o$$
make_user "$OTHER"
cat >"$TMP/pub/top.py" <<'PY'
import sys, time
def sixty():
    end = time.process_time() + 0.006
    while time.process_time() < end: sum(range(200))
def thirty():
    end = time.process_time() + 0.003
    while time.process_time() < end: sum(range(200))
def ten():
    end = time.process_time() + 0.001
    while time.process_time() < end: sum(range(200))
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    sixty(); thirty(); ten()
PY
cat >"$TMP/pub/theirs.py" <<'PY'
import sys, time
def other_tenant_secret():
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end: pass
other_tenant_secret()
PY
# both outlive the views (killed at the end)
runuser -u "$PYUSER" -- "$PY" "$TMP/pub/top.py" 120 &
mine=$!
runuser -u "$OTHER" -- "$PY" "$TMP/pub/theirs.py" 120 &
other=$!
cleanup_hooks+=("kill $mine $other 2>/dev/null")
sleep 1

# check_top OUT ERR WHO: the view's rows and Python line, as the header says
check_top() {
	python3 - "$1" "$TMP/pub/top.py" "$3" <<'PY' || fail "$3: prof top's Python rows are not as built: $(head -c 3000 "$1")"
import re, sys
out, path, who = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
want = {"sixty": 60, "thirty": 30, "ten": 10}
n = {k: 0 for k in want}
total = unverified = 0
ours = re.compile(r"(\w+) \(" + re.escape(path) + r":(?:def )?(\d+)\)")
for line in out.splitlines():
    m = re.match(r"^ +[0-9.]+% +(\d+)  (.*)$", line)
    if not m:
        continue
    samples, rest = int(m.group(1)), m.group(2)
    unverified += samples * rest.count("[python: unverified]")
    if "other_tenant_secret" in rest:
        sys.exit(f"# {who}: another user's function shows: {line[:300]}")
    # the chain is leaf first: its first function of ours is the innermost
    f = ours.search(rest)
    if f and f.group(1) in want:
        d = {"sixty": 2, "thirty": 5, "ten": 8}[f.group(1)]
        if int(f.group(2)) not in (d, d + 1, d + 2):
            sys.exit(f"# {who}: {f.group(0)} at a line not its own")
        n[f.group(1)] += samples
        total += samples
py = re.search(r"^Python: (\d+) samples of (\d+) interpreter\(s\), (\d+) with Python frames, (\d+) of them all "
               r"verified; (\d+) \[python: unverified\] frames", out, re.M)
if not py:
    sys.exit(f"# {who}: no Python line in the view")
samples, procs, with_py, verified, bad = map(int, py.groups())
shares = {k: 100 * v / max(total, 1) for k, v in n.items()}
print(f"# {who}: {total} samples in the rows' functions: " + ", ".join(f"{k} {v:.1f}%" for k, v in shares.items()) +
      f"; Python line: {verified} of {samples} verified, {bad} unverified activations (rows: {unverified}), {procs} interpreter(s)")
if total < 1500 or any(abs(shares[k] - w) > 5 for k, w in want.items()):
    sys.exit(f"# {who}: shares off")
if procs != 1:
    sys.exit(f"# {who}: {procs} interpreters attached, not the user's one")
if verified * 100 < samples * 90:
    sys.exit(f"# {who}: only {verified} of {samples} verified")
if unverified != bad:
    sys.exit(f"# {who}: the rows have {unverified} [python: unverified] frames, the header counts {bad}")
PY
}

"$PROF" top --uid "$PYUSER" --call-graph dwarf -F 1000 --stdio -d 5 -n 1 --rows 100000 >"$TMP/root.out" \
	2>"$TMP/err" || fail "prof top --call-graph dwarf: $(cat "$TMP/err")"
check_top "$TMP/root.out" "$TMP/err" root

# with -g (frame pointers: no stack copy) the chains read at the sample instant alone
# give the same rows and counts, and nothing says Python frames need dwarf
"$PROF" top --uid "$PYUSER" -g -F 1000 --stdio -d 5 -n 1 --rows 100000 >"$TMP/fp.out" 2>"$TMP/err" ||
	fail "prof top -g: $(cat "$TMP/err")"
check_top "$TMP/fp.out" "$TMP/err" "root -g"
! grep -q 'Python frames need --call-graph dwarf' "$TMP/fp.out" || fail "prof top -g: says Python frames need dwarf"

# the tenant, with the capability install (prof(1), SETTING UP): reads only their own
if command -v setcap >/dev/null; then
	mkdir "$TMP/bin" "$TMP/u" && chown "$PYUSER" "$TMP/u" || fail "dirs"
	cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail "copy"
	if setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "$TMP/bin/prof" 2>/dev/null; then
		# --pid: --uid needs tracefs readable by the tenant (prof(1), SETTING UP)
		pypid=$(pgrep -u "$PYUSER" -f "$TMP/pub/top.py" | head -n 1)
		[ -n "$pypid" ] || fail "the user's program is not running"
		runuser -u "$PYUSER" -- env HOME="$TMP/u" "$TMP/bin/prof" top --pid "$pypid" --call-graph dwarf -F 1000 \
			--stdio -d 5 -n 1 --rows 100000 >"$TMP/tenant.out" 2>"$TMP/err" ||
			fail "prof top by the tenant: $(cat "$TMP/err")"
		check_top "$TMP/tenant.out" "$TMP/err" tenant
	else
		note "file capabilities not supported here: the tenant's view not checked"
	fi
else
	note "setcap not installed (libcap2-bin): the tenant's view not checked"
fi
kill -0 "$other" 2>/dev/null || fail "the other user's process did not run beside it"
pass "prof top --call-graph dwarf: sixty, thirty, ten in the rows, their shares as built, the counts the header's"
