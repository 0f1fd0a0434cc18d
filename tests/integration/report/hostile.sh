#!/usr/bin/env bash
# prof report on hostile files: cut at 8, 64 and 256 bytes and at 75%, a record whose
# size is 0 or too large, an unknown record type, and 40 randomly corrupted copies.
# Never a crash or a hang; a bad file is a non-zero exit and a message with the offset.
. "$(dirname "$0")/../lib.sh"
require_root

F=$TMP/good.data
"$PROF" record -q -a -g -o "$F" -d 1 || fail "record"
"$PROF" report -i "$F" >/dev/null 2>"$TMP/err" || fail "the good file: $(cat "$TMP/err")"
size=$(stat -c %s "$F")

run() {     # run prof report on $1; print its exit status; fail on a crash or hang
	timeout 20 "$PROF" report -i "$1" -g >/dev/null 2>"$TMP/err"
	local rc=$?
	[ "$rc" -eq 124 ] && fail "prof report hung on $2"
	[ "$rc" -ge 128 ] && fail "prof report crashed (signal $((rc - 128))) on $2: $(cat "$TMP/err")"
	echo "$rc"
}

for cut in 8 64 256 $((size * 3 / 4)); do
	head -c "$cut" "$F" >"$TMP/cut.data"
	rc=$(run "$TMP/cut.data" "a file cut at $cut bytes")
	[ "$rc" -eq 1 ] || fail "cut at $cut: exit $rc, want 1"
	grep -qE "offset|bytes|truncated" "$TMP/err" || fail "cut at $cut: message: $(cat "$TMP/err")"
	pass "cut at $cut: $(cat "$TMP/err")"
done

# The first record of the data section, then the same with its size zeroed or huge.
data_off=$(python3 -c "import struct,sys; h=open(sys.argv[1],'rb').read(104); print(struct.unpack_from('<Q',h,40)[0])" "$F")
for patch in "0:size 0" "65535:size past the end" "4:size below the header"; do
	val=${patch%%:*}
	cp "$F" "$TMP/bad.data"
	python3 - "$TMP/bad.data" "$data_off" "$val" <<'PY'
import struct, sys
path, off, val = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
b = bytearray(open(path, 'rb').read())
struct.pack_into('<H', b, off + 6, val)
open(path, 'wb').write(b)
PY
	rc=$(run "$TMP/bad.data" "a record with ${patch#*:}")
	[ "$rc" -eq 1 ] || fail "${patch#*:}: exit $rc"
	# a size that is wrong but plausible is only caught where the stream stops making
	# sense: the message names that offset
	grep -qE "at offset [0-9]+" "$TMP/err" || fail "${patch#*:}: no offset in: $(cat "$TMP/err")"
	pass "${patch#*:}: $(cat "$TMP/err")"
done

# An unknown record type is skipped by its size and counted.
cp "$F" "$TMP/unknown.data"
python3 - "$TMP/unknown.data" "$data_off" <<'PY'
import struct, sys
path, off = sys.argv[1], int(sys.argv[2])
b = bytearray(open(path, 'rb').read())
struct.pack_into('<I', b, off, 50)        # a type no kernel defines (between 22 and 63)
open(path, 'wb').write(b)
PY
rc=$(run "$TMP/unknown.data" "an unknown record type")
[ "$rc" -eq 0 ] || fail "unknown type: exit $rc: $(cat "$TMP/err")"
grep -q "skipped 1 records" "$TMP/err" || fail "unknown type not counted: $(cat "$TMP/err")"
pass "unknown record type skipped and counted"

# Random corruption: never a crash or a hang.
for i in $(seq 40); do
	python3 - "$F" "$TMP/rand.data" "$i" <<'PY'
import random, sys
src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
b = bytearray(open(src, 'rb').read())
r = random.Random(seed)
for _ in range(r.randint(1, 16)):
    pos = r.randrange(len(b))
    b[pos] = r.randrange(256)
open(dst, 'wb').write(b)
PY
	run "$TMP/rand.data" "random corruption $i" >/dev/null
done
pass "40 randomly corrupted copies: no crash, no hang"
