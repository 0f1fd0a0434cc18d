#!/usr/bin/env bash
# Issue 17, Security: a hostile ELF in a container.  A program in a container (made as
# runtimes make them, ../container.sh) maps three hostile files executable: an ELF
# cut after its header, one with 65535 program headers, one whose note segment
# points 1 TiB past its end.  `prof record --cgroup` refuses each (the summary counts
# them as malformed), never crashes, copies none into the cache and writes no build
# id for them; prof report and perf report read the file; the program's own samples
# are still named.  (The headers' checks themselves: tests/unit/perfdata/test_build_id.c.)
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
require_perf
command -v python3 >/dev/null || skip "needs python3"
command -v readelf >/dev/null || skip "needs readelf (binutils)"
container_root "$TMP/root"
R=$TMP/root
export HOME=$TMP/home
mkdir -p "$HOME" "$R/app/bad"

cat >"$TMP/mapper.c" <<'EOF'
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) void mapper_spin(void) { for (int i = 0; i < 1000000; i++) sink += i; }
int main(int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 1;
	}
	time_t end = time(NULL) + atoi(argv[1]);
	while (time(NULL) < end)
		mapper_spin();
	return 0;
}
EOF
gcc -O2 -g -fno-omit-frame-pointer -o "$R/app/mapper" "$TMP/mapper.c" || fail "build the mapper"
head -c 200 "$R/app/ctr-hot" >"$R/app/bad/trunc.so"
cp "$R/app/ctr-hot" "$R/app/bad/phnum.so"
cp "$R/app/ctr-hot" "$R/app/bad/note.so"
python3 - "$R/app/bad/phnum.so" <<'PY' || fail "make the hostile files"
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(56)
    f.write(struct.pack("<H", 0xffff))                  # e_phnum
PY
ctr_note_past_end "$R/app/bad/note.so" || fail "make the hostile files"
chmod -R a+rX "$R/app"

container_run "$R" docker -- /app/mapper 30 /app/bad/trunc.so /app/bad/phnum.so /app/bad/note.so
grep -q /app/bad/note.so "/proc/$CTR_PID/maps" || fail "the mapper did not map the files: $(cat "$CTR_ERR")"
F=$TMP/h.data
"$PROF" record --cgroup "$CTR_CGROUP" -g -e cpu-clock -F 1000 -o "$F" -d 2 2>"$TMP/rec.err" ||
	fail "prof record exited $?: $(cat "$TMP/rec.err")"
note "$(grep -E '^prof:' "$TMP/rec.err" | tr '\n' ' ')"
grep -qE "^prof: [0-9]+ of [0-9]+ mapped objects without a build id in the file: (.*, )?3 malformed ELF \(refused\)" \
	"$TMP/rec.err" || fail "the summary does not count the 3 hostile files: $(cat "$TMP/rec.err")"
for f in trunc phnum note; do
	while IFS= read -r -d '' e; do
		cmp -s "$e" "$R/app/bad/$f.so" && fail "$f.so is in the cache: $e"
	done < <(find "$HOME/.debug" -type f -print0 2>/dev/null)
done
"$PERF" buildid-list -i "$F" >"$TMP/bids" 2>/dev/null || fail "perf buildid-list"
grep -q /app/bad/ "$TMP/bids" && fail "a build id for a hostile file: $(grep /app/bad/ "$TMP/bids")"
"$PROF" report -i "$F" --sort sym >"$TMP/rep" 2>"$TMP/rep.err" || fail "prof report: $(cat "$TMP/rep.err")"
grep -q mapper_spin "$TMP/rep" || fail "the mapper's own function is not named: $(head -20 "$TMP/rep")"
"$PERF" report -i "$F" --stdio --sort sym >"$TMP/prep" 2>/dev/null || fail "perf report of prof's file"
grep -q mapper_spin "$TMP/prep" || fail "perf report does not name the mapper: $(head -20 "$TMP/prep")"
pass "3 hostile ELF files mapped in a container: refused and counted, none kept or given a build id; both reports name the program"
