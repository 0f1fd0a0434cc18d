#!/usr/bin/env bash
# prof report on a 2 GB sparse file: refused from its header alone when the magic is
# wrong, and from its first record when the header is valid but the data garbage,
# either way without reading the file into memory (peak RSS well under 100 MB).
# The file costs no disk: it is a hole.  RSS is a resource bound, not a timing.
. "$(dirname "$0")/../lib.sh"
[ -x /usr/bin/time ] || skip "needs /usr/bin/time (Debian package time)"
LIMIT_KB=$((100 * 1024))

run() {     # run prof report on $1; sets rc and rss (kB); fails on a crash or hang
	timeout 60 /usr/bin/time -f %M -o "$TMP/rss" "$PROF" report -i "$1" >/dev/null 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 124 ] && fail "prof report hung on $2"
	[ "$rc" -ge 128 ] && fail "prof report crashed (signal $((rc - 128))) on $2: $(cat "$TMP/err")"
	rss=$(tail -n 1 "$TMP/rss")
	grep -v '^Command' "$TMP/err" >"$TMP/msg" || true
}

F=$TMP/big.data
truncate -s 2G "$F" || skip "cannot make a 2 GB sparse file in $TMP"
run "$F" "a 2 GB file without the magic"
[ "$rc" -eq 1 ] || fail "bad magic: exit $rc, want 1: $(cat "$TMP/msg")"
grep -q "not a perf.data file (no PERFILE2 magic)" "$TMP/msg" || fail "bad magic: message: $(cat "$TMP/msg")"
[ "$rss" -lt "$LIMIT_KB" ] || fail "bad magic: peak RSS ${rss} kB for a 2 GB file"
pass "2 GB, bad magic: exit 1, '$(cat "$TMP/msg")', peak RSS ${rss} kB"

# A valid header and one valid event, then 2 GB of zeros as the data section.
python3 - "$F" <<'PY'
import struct, sys
size = 2 << 30
attr = bytearray(128)                      # perf_event_attr (VER8 size)
struct.pack_into('<IIQQQ', attr, 0, 1, 128, 0, 4000, 0x107)   # software, cpu-clock, IP|TID|TIME|PERIOD
ids_off, attrs_off = 104, 104 + 8
data_off = attrs_off + 128 + 16
hdr = struct.pack('<QQQ', 0x32454c4946524550, 104, 128 + 16)
hdr += struct.pack('<QQ', attrs_off, 128 + 16)                # attrs
hdr += struct.pack('<QQ', data_off, size - data_off)          # data: the rest of the file
hdr += struct.pack('<QQ', 0, 0) + bytes(32)                   # event_types, no features
with open(sys.argv[1], 'r+b') as f:
    f.write(hdr)
    f.write(struct.pack('<Q', 42))                            # the event's one id
    f.write(bytes(attr) + struct.pack('<QQ', ids_off, 8))
PY
[ "$(stat -c %s "$F")" -eq $((2 << 30)) ] || fail "the test file is not 2 GB"
run "$F" "a 2 GB file with a valid header and zeros for data"
[ "$rc" -eq 1 ] || fail "garbage data: exit $rc, want 1: $(cat "$TMP/msg")"
grep -qE "bad record at offset [0-9]+" "$TMP/msg" || fail "garbage data: message: $(cat "$TMP/msg")"
[ "$rss" -lt "$LIMIT_KB" ] || fail "garbage data: peak RSS ${rss} kB for a 2 GB file"
pass "2 GB, valid header, garbage data: exit 1, '$(cat "$TMP/msg")', peak RSS ${rss} kB"

# A FIFO as the input is refused, not waited on.
mkfifo "$TMP/fifo"
run "$TMP/fifo" "a FIFO"
[ "$rc" -eq 1 ] || fail "FIFO: exit $rc, want 1: $(cat "$TMP/msg")"
grep -q "not a regular file" "$TMP/msg" || fail "FIFO: message: $(cat "$TMP/msg")"
pass "a FIFO as input: '$(cat "$TMP/msg")'"
