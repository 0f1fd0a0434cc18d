#!/usr/bin/env bash
# Python in a container (../container.sh: own mount, pid and uts namespaces,
# pivot_root into a root with Debian's python3.11, its libraries and its encodings
# copied in, the program at /app/ctr_py.py, a path only the container has):
# prof record --container ID --call-graph dwarf finds the interpreter through the
# task's root and names the container's own function, at its path inside,
# "container_spin (/app/ctr_py.py:def 2)", in >= 90 % of the samples (all verified).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../container.sh"
command -v ldd >/dev/null || skip "needs ldd (libc-bin)"
[ ! -e /app ] || skip "the host has /app: the test needs that path to exist only in the container"
container_root "$TMP/root"
R=$TMP/root
ctr_copy_object "$R" "$PY"
while read -r _ _ path _; do
	case $path in /*) ctr_copy_object "$R" "$path" ;; esac
done < <(ldd "$PY")
mkdir -p "$R/usr/lib/python3.11" && cp -r /usr/lib/python3.11/encodings "$R/usr/lib/python3.11/" || fail "copy encodings"
cat >"$R/app/ctr_py.py" <<'PY'
import sys, time
def container_spin():
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end: pass
container_spin()
PY
container_run "$R" docker -- "$PY" -I -S /app/ctr_py.py 6
F=$TMP/ctr.data
"$PROF" record --container "$CTR_ID" --call-graph dwarf -F 1000 -v -d 3 -o "$F" 2>"$TMP/summary" >/dev/null ||
	fail "prof record --container: $(tail -5 "$TMP/summary")"
grep -E '^prof: Python' "$TMP/summary" | sed 's/^/# /'
read -r samples procs verified < <(sed -nE 's/^prof: Python: ([0-9]+) samples of ([0-9]+) interpreter.*, ([0-9]+) of them all verified.*/\1 \2 \3/p' "$TMP/summary")
[ "${procs:-0}" -eq 1 ] || fail "not one interpreter attached: $(cat "$TMP/summary")"
"$PROF" report -i "$F" -F folded -g >"$TMP/folded" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
named=$(awk '/container_spin_\(\/app\/ctr_py\.py:def_2\)/ { n += $NF } END { print n + 0 }' "$TMP/folded")
note "$named of $samples samples name container_spin (/app/ctr_py.py:def 2), $verified verified"
[ "$samples" -ge 500 ] && [ "$((named * 100))" -ge "$((samples * 90))" ] ||
	fail "container_spin named in $named of $samples samples: $(head -3 "$TMP/folded")"
pass "the container's Python function named at its path inside"
