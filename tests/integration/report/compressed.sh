#!/usr/bin/env bash
# perf record -z files (PERF_RECORD_COMPRESSED, zstd): prof report's totals (samples,
# period) equal perf's on the same file, and its symbols agree with perf report's
# within 0.5 points.  A file cut short, one whose compressed data is corrupt, and a
# decompression bomb (a few kB that expand to a GiB) fail cleanly: exit 1 and a
# message with the offset, never a crash, a hang, unbounded memory or "0 samples".
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
"$PERF" record -h 2>&1 | grep -q -- '--compression-level' || skip "this perf cannot write compressed files"
[ -x /usr/bin/time ] || skip "needs /usr/bin/time (Debian package time)"

F=$TMP/z.data
"$PERF" record -q -z -g -e cpu-clock -F 2000 -o "$F" -- "$PROF_HOT" 2 >/dev/null 2>&1 || fail "perf record -z"
"$PERF" report -i "$F" --header-only 2>/dev/null | grep -q '^# compressed : Zstd' || fail "perf wrote no compressed file"
ncomp=$("$PERF" report -i "$F" --stats 2>/dev/null | awk '/COMPRESSED events:/ { print $3 }')
[ "${ncomp:-0}" -ge 2 ] || fail "the file has ${ncomp:-0} compressed records, want several"
note "$F: $(stat -c %s "$F") bytes, $ncomp compressed records"

# Totals: prof's samples and period against perf script's samples and perf report's event count.
"$PROF" report -i "$F" --sort sym -F json >"$TMP/prof.json" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
perf_clean "$TMP/perf.txt" report -i "$F" --stdio --no-children --sort sym -g none
"$PERF" script -i "$F" -F period 2>/dev/null | grep -c . >"$TMP/perf.samples"
python3 - "$TMP/prof.json" "$TMP/perf.txt" "$(cat "$TMP/perf.samples")" <<'PY' || fail "prof and perf disagree on the compressed file"
import json, re, sys
prof = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
perf_samples = int(sys.argv[3])
perf_period = int(re.search(r"^# Event count \(approx\.\): (\d+)", text, re.M).group(1))
print(f"samples: prof {prof['samples']}, perf {perf_samples}; period: prof {prof['period']}, perf {perf_period}")
if prof["samples"] == 0 or prof["samples"] != perf_samples or prof["period"] != perf_period:
    sys.exit("totals differ")
perf = {}
for line in text.splitlines():
    m = re.match(r"\s+([0-9.]+)%\s+\[(.)\]\s+(.*\S)\s*$", line)
    if m:
        key = ("k" if m.group(2) == "k" else ".", m.group(3))
        perf[key] = perf.get(key, 0.0) + float(m.group(1))
rows = [r for r in prof["rows"] if r["overhead"] >= 1 and not r["sym"].startswith("[unknown]")]
bad = 0
for r in rows:
    p = perf.get(("k" if r["kernel"] else ".", r["sym"]))
    ok = p is not None and abs(p - r["overhead"]) <= 0.5
    bad += not ok
    print(f"{'ok ' if ok else 'BAD'} {r['sym']:30s} prof {r['overhead']:6.2f}%  perf {p if p is not None else float('nan'):6.2f}%")
top = prof["rows"][0]
if top["sym"] != "hot_function" or top["kernel"]:
    sys.exit(f"the top row is {top['sym']}, not hot_function")
sys.exit(1 if bad or len(rows) < 2 else 0)
PY
pass "compressed file: totals equal perf's, symbols within 0.5 points, top hot_function"

run() {     # prof report on $1 ($2 says what): sets rc, rss (kB), msg; fails on a crash or hang
	timeout 60 /usr/bin/time -f %M -o "$TMP/rss" "$PROF" report -i "$1" -g >/dev/null 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 124 ] && fail "prof report hung on $2"
	[ "$rc" -ge 128 ] && fail "prof report crashed (signal $((rc - 128))) on $2: $(cat "$TMP/err")"
	rss=$(tail -n 1 "$TMP/rss")
	msg=$(grep -v '^Command' "$TMP/err")
}

# The offsets of the data section and of its compressed records: the first, and the
# last one long enough to cut the data inside it with the feature table moved into
# its place (100 bytes in, then the table; the last record, a final flush, may be short).
python3 - "$F" >"$TMP/layout" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
off, size = struct.unpack_from('<QQ', b, 40)
table = 16 * sum(bin(x).count("1") for x in b[72:104])
comp, p = [], off
while p < off + size:
    t, s = struct.unpack_from('<IxxH', b, p)
    if t == 81:
        comp.append((p, s))
    p += s
long_enough = [q for q, s in comp if s >= 100 + table + 8]
print(off, size, len(comp), comp[0][0] if comp else 0, long_enough[-1] if long_enough else 0)
PY
read -r data_off data_size nr_comp c1 c3 <"$TMP/layout"
[ "$nr_comp" -ge 2 ] || fail "fewer than 2 compressed records: $nr_comp"
[ "$c3" -gt 0 ] || fail "no compressed record long enough to cut inside"

# Cut short: in the middle of its data, then its data size ending inside a compressed
# record.  The middle of the data, not of the file: perf writes every BPF program
# loaded on the host into the features after the data (bpf_prog_info, btf), and on a
# host where other tests load theirs those made the file's second half (29 of 49 kB
# once), so a cut in the middle of the file left the data whole.
head -c $((data_off + data_size / 2)) "$F" >"$TMP/cut.data"
run "$TMP/cut.data" "a compressed file cut in half"
[ "$rc" -eq 1 ] && grep -q "truncated" <<<"$msg" || fail "cut in half: exit $rc: $msg"
pass "cut in half: exit 1: $msg"
cp "$F" "$TMP/short.data"
# The feature table follows the data (perf_header: data offset + size), so it moves
# with the data size: its entries (absolute offsets) are copied to where it now is, or
# the report would read compressed bytes as the features, whatever they happen to be.
python3 - "$TMP/short.data" "$((c3 + 100 - data_off))" <<'PY' || fail "cannot cut $F's data short"
import struct, sys
with open(sys.argv[1], 'r+b') as f:
    hdr = f.read(104)
    data_off, old_size = struct.unpack_from('<QQ', hdr, 40)
    table = 16 * sum(bin(b).count("1") for b in hdr[72:104])
    new_size = int(sys.argv[2])
    if data_off + new_size + table > data_off + old_size:
        sys.exit("the last compressed record is too short to hold the moved feature table")
    f.seek(data_off + old_size)
    feats = f.read(table)
    f.seek(48)
    f.write(struct.pack('<Q', new_size))
    f.seek(data_off + new_size)
    f.write(feats)
PY
run "$TMP/short.data" "a data section ending inside a compressed record"
[ "$rc" -eq 1 ] && grep -q "bad record at offset $c3 (type 81, COMPRESSED): record of [0-9]* bytes runs past the end" <<<"$msg" ||
	fail "data ending inside a compressed record: exit $rc: $msg"
pass "data ending inside a compressed record: exit 1: $msg"

# Corrupt: the first compressed record's zstd frame magic, then random bytes of the data.
cp "$F" "$TMP/magic.data"
printf '\x00' | dd of="$TMP/magic.data" bs=1 seek=$((c1 + 8)) conv=notrunc status=none
run "$TMP/magic.data" "a compressed record that is not zstd"
[ "$rc" -eq 1 ] && grep -q "bad record at offset $c1 (type 81, COMPRESSED): its data cannot be decompressed (zstd: " <<<"$msg" ||
	fail "corrupt frame: exit $rc: $msg"
pass "corrupt zstd frame: exit 1: $msg"
for i in $(seq 20); do
	cp "$F" "$TMP/rand.data"
	python3 - "$TMP/rand.data" "$i" "$data_off" "$data_size" <<'PY'
import random, sys
path, seed, off, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed)
b = bytearray(open(path, 'rb').read())
for _ in range(8):
    b[off + rnd.randrange(size)] = rnd.randrange(256)
open(path, 'wb').write(b)
PY
	run "$TMP/rand.data" "randomly corrupted copy $i"
	[ "$rc" -le 1 ] || fail "corrupted copy $i: exit $rc: $msg"
	[ "$rc" -eq 0 ] || grep -q "offset" <<<"$msg" || fail "corrupted copy $i: exit 1 without an offset: $msg"
done
pass "20 randomly corrupted copies: no crash, no hang, every refusal names its offset"

# A bomb: 1 GiB of records (type 200, zeros) as a zstd stream of ~100 kB in compressed
# records, a FINISHED_ROUND after each (as perf writes them).  With HEADER_COMPRESSED
# (perf's mmap length, 528384) a compressed record may give no more than that; without
# (as in a killed perf record -z), the stream no more than 4096 times its size.
python3 -c '
import struct, sys
rec = struct.pack("<IHH", 200, 0, 65528) + bytes(65520)
for _ in range(16384): sys.stdout.buffer.write(rec)' | zstd -q -3 -c >"$TMP/bomb.zst" 2>/dev/null ||
	skip "needs the zstd command (Debian package zstd)"
for feature in 1 0; do
	python3 - "$F" "$TMP/bomb.zst" "$TMP/bomb.data" "$data_off" "$feature" <<'PY'
import struct, sys
src, zst, out, data_off, feature = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
b = open(src, 'rb').read()
z = open(zst, 'rb').read()
data = b''.join(struct.pack('<IHH', 81, 0, 8 + len(z[i:i + 60000])) + z[i:i + 60000] + struct.pack('<IHH', 68, 0, 8)
                for i in range(0, len(z), 60000))
hdr = bytearray(b[:104])
struct.pack_into('<QQ', hdr, 40, data_off, len(data))
struct.pack_into('<4Q', hdr, 72, (1 << 27) if feature else 0, 0, 0, 0)     # HEADER_COMPRESSED or none
feat_end = data_off + len(data)
table = struct.pack('<QQ', feat_end + 16, 20) + struct.pack('<5I', 0, 1, 3, 10, 528384) if feature else b''
open(out, 'wb').write(bytes(hdr) + b[104:data_off] + data + table)
PY
	size=$(stat -c %s "$TMP/bomb.data")
	run "$TMP/bomb.data" "a decompression bomb"
	if [ "$feature" = 1 ]; then
		want="expands past 528384 bytes, the ring buffer it was written from"
		limit=$((100 * 1024))
	else
		want="the compressed data expands [0-9]* times .*a decompression bomb?"
		# what the report queued before the refusal: at most 4096 times the file, plus 64 MiB
		limit=$(((4096 * size + (64 << 20)) / 1024 + 100 * 1024))
	fi
	[ "$rc" -eq 1 ] && grep -q "bad record at offset $data_off (type 81, COMPRESSED): $want" <<<"$msg" ||
		fail "bomb: exit $rc: $msg"
	[ "$rss" -lt "$limit" ] || fail "bomb: peak RSS ${rss} kB, limit $limit kB"
	pass "a $size-byte bomb of 1 GiB ($([ "$feature" = 1 ] && echo with || echo without) HEADER_COMPRESSED): exit 1, peak RSS ${rss} kB: $msg"
done
