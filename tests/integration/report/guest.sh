#!/usr/bin/env bash
# Samples of a virtual machine's guest (cpumode PERF_RECORD_MISC_GUEST_KERNEL or
# _GUEST_USER: a qemu/KVM vCPU thread running its guest's code when the sample was
# taken) are not this host's code: perf report and perf script leave them out unless
# given --guest, and prof report must count the same samples as they do, saying how
# many it left out.  A real recording of a program, with every seventh sample turned
# into a guest's (kernel and user alternately) in the file: prof report's samples are
# perf script's, its header and JSON count the guest's, and the rest keep their names.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
export HOME=$TMP

"$PROF" record -q -F 997 -o "$TMP/host.data" -- "$PROF_HOT" 2 || fail "prof record failed"
n=$(python3 - "$TMP/host.data" "$TMP/guest.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off, size = struct.unpack_from("<QQ", b, 40)
pos, end, i, n = off, off + size, 0, 0
while pos + 8 <= end:
    typ, misc, sz = struct.unpack_from("<IHH", b, pos)
    if sz < 8:
        break
    if typ == 9:                        # PERF_RECORD_SAMPLE
        if i % 7 == 3:
            mode = 4 if n % 2 == 0 else 5   # GUEST_KERNEL, GUEST_USER
            struct.pack_into("<H", b, pos + 4, (misc & ~7) | mode)
            n += 1
        i += 1
    pos += sz
open(sys.argv[2], "wb").write(b)
print(n)
PY
) || fail "could not rewrite the recording"
[ "$n" -gt 100 ] || fail "only $n samples turned into a guest's: the recording is too small"

for f in host guest; do
	"$PROF" report -i "$TMP/$f.data" -F json >"$TMP/$f.json" 2>"$TMP/$f.err" || fail "prof report of $f.data: $(cat "$TMP/$f.err")"
	"$PROF" report -i "$TMP/$f.data" >"$TMP/$f.txt" 2>>"$TMP/$f.err" || fail "prof report of $f.data: $(cat "$TMP/$f.err")"
done
read -r hs hg < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["samples"], d.get("guest", 0))' "$TMP/host.json")
read -r gs gg < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["samples"], d.get("guest", 0))' "$TMP/guest.json")
ps=$("$PERF" script -i "$TMP/guest.data" -F period 2>/dev/null | grep -c . || true)
note "recording: $hs samples ($hg of a guest); rewritten: $n turned a guest's; prof report $gs samples, $gg left out as a guest's; perf script $ps"
[ "$hg" -eq 0 ] || fail "the real recording has $hg guest samples"
[ "$gs" -eq "$ps" ] || fail "prof report reads $gs samples, perf script $ps"
[ "$gg" -eq "$n" ] && [ $((gs + gg)) -eq "$hs" ] || fail "prof report left out $gg as a guest's, $n were turned (of $hs)"
grep -q "^# guest: $n samples of virtual machines' guests left out" "$TMP/guest.txt" ||
	fail "prof report's header does not count the guest's samples: $(grep '^#' "$TMP/guest.txt")"
grep -q "hot_function" "$TMP/guest.txt" || fail "the host's samples lost their names: $(head -20 "$TMP/guest.txt")"
pass "a guest's samples left out as perf does: prof report $gs, perf script $ps, $gg counted in the header"
