#!/usr/bin/env bash
# A file cut short while prof report reads it (log rotation, a full disk, a copy still
# being written) ends in a clear error naming the file, exit 1, never a SIGBUS.  A
# helper starts prof report on a ~40 MB perf.data, stops it (SIGSTOP) once it is
# reading the data (its /proc/PID/maps shows the file mapped, as before the fix, or
# /proc/PID/io shows 8 MiB read), truncates the file to 4 MiB and lets it go on.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

for i in 1 2; do
	"$PROF_HOT" 30 >/dev/null &
	cleanup_hooks+=("kill $! 2>/dev/null")
done
F=$TMP/big.data
# (16 MiB rings: on a loaded host perf gets little CPU and its default rings lose most
# of the records; a recording is made again, longer, until the file is big enough)
for secs in 4 8 12; do
	"$PERF" record -q -a -g -e cpu-clock -c 20000 -m 4096 -o "$F" -- sleep "$secs" >/dev/null 2>&1 || fail "perf record"
	size=$(stat -c %s "$F")
	[ "$size" -ge $((24 << 20)) ] && break
	note "perf record -a for $secs s wrote $size bytes (a loaded host): again, longer"
done
[ "$size" -ge $((24 << 20)) ] || fail "the perf.data is $size bytes, want 24 MiB or more to cut while read"
cp "$F" "$TMP/orig.data"
"$PROF" report -i "$F" -g >/dev/null 2>"$TMP/err" || fail "the whole file: $(cat "$TMP/err")"

cat >"$TMP/cut.py" <<'PY'
import os, re, signal, subprocess, sys, time
prof, path, cut, threshold = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ino, size = os.stat(path).st_ino, os.stat(path).st_size
p = subprocess.Popen([prof, "report", "-i", path, "-g"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
how, deadline = None, time.time() + 60
while not how and p.poll() is None and time.time() < deadline:
    try:
        maps = open(f"/proc/{p.pid}/maps").read()
        rchar = int(re.search(r"rchar: (\d+)", open(f"/proc/{p.pid}/io").read()).group(1))
    except (OSError, AttributeError):
        continue
    if any(len(f) >= 5 and f[4] == str(ino) for f in (l.split() for l in maps.splitlines())):
        how = "mapped"
    elif rchar >= threshold:
        how = "read"
if how:
    os.kill(p.pid, signal.SIGSTOP)
    rchar = int(re.search(r"rchar: (\d+)", open(f"/proc/{p.pid}/io").read()).group(1))
    if how == "read" and rchar > size - (1 << 20):
        how = None          # past the data already: nothing left to cut under it
    else:
        os.truncate(path, cut)
    os.kill(p.pid, signal.SIGCONT)
err = p.communicate(timeout=120)[1].decode(errors="replace").strip()
print(f"{how or 'missed'} {p.returncode} {err}")
PY

for try in 1 2 3; do
	cp "$TMP/orig.data" "$F"
	read -r how rc msg < <(python3 "$TMP/cut.py" "$PROF" "$F" $((4 << 20)) $((8 << 20)))
	[ "$how" != missed ] && break
	note "try $try: prof report was done reading before it could be stopped"
done
[ "$how" != missed ] || fail "prof report never caught reading the file (3 tries)"
note "stopped while the file was $how; exit $rc: $msg"
[ "$rc" != -7 ] || fail "prof report died of SIGBUS on a file cut while read: $msg"
[ "$rc" -eq 1 ] || fail "a file cut while read: exit $rc, want 1: $msg"
grep -qF "prof report: $F: the file was cut short while being read: $((4 << 20)) bytes now, $size when opened" <<<"$msg" ||
	fail "the message does not say the file was cut: $msg"
pass "cut to 4 MiB while read: exit 1: $msg"
