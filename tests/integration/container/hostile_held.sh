#!/usr/bin/env bash
# Issue 21, Security: the held root (src/synth/places.c).  Once a container's task is
# gone, prof opens its object under an O_PATH of the container's root, held from the
# first task it met there.  A hostile container (or a build that replaces its
# files) changes the tree between the task's exit and prof's look: prof must never
# open anything outside that root, nor anything but the mapped inode, and must leave
# the object without a build id (counted) rather than name it after another file.
#
# To make the window certain, prof is stopped (SIGSTOP) while each victim program
# runs and exits and its file is changed; the kernel keeps the records meanwhile.
# The container's shell (met by prof as it exec'd) lends the root.  Cases:
# - ok: nothing changed: read under the held root (the control: it is used);
# - sym: the file moved out of the root (same inode), a symlink with `..` to it put
#   at its path: refused (followed, it would reach the mapped inode);
# - esc: the file's directory moved out of the root, a symlink to it with `..`: refused;
# - other: the file moved into another tenant's container root (a directory beside
#   this root), an absolute symlink to its host path put at its path: refused (it
#   names the other root only from the host; under the held root it is not there);
# - new: another file (another inode) put at the path: refused;
# - reuse: the file removed and another created that got the same inode number (ext4
#   reuses them at once): refused by its inode's generation, which the MMAP2 carries;
# - elf: the file overwritten in place by a hostile ELF: refused as malformed;
# - rb: read, then another file given its inode number and run as rb2: rb2's
#   mappings get no build id (written as /[unknown]PATH), not rb's;
# - after the container is gone (every task of it): ok and sym again.
# Checks: only the two ok victims' build ids are in the file, none of the other
# victims' nor the replacing program's; no reader names the replacing program's
# functions; the summary counts the refused ones as replaced or malformed, and says
# build ids were read under a held root.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
require_perf
command -v python3 >/dev/null || skip "needs python3"
command -v readelf >/dev/null || skip "needs readelf (binutils)"
[ -x /bin/busybox ] || skip "needs busybox-static (/bin/busybox)"
container_root "$TMP/root"
R=$TMP/root
OUT=$TMP/outside
export HOME=$TMP/home
mkdir -p "$HOME" "$OUT" "$R/app/v" "$R/app/d" "$R/bin" || fail "mkdir"
cp /bin/busybox "$R/bin/busybox" && ln -sf busybox "$R/bin/sh" || fail "busybox into $R"

cat >"$TMP/victim.c" <<'EOF'
#include <stdlib.h>
#include <time.h>
static volatile unsigned long sink;
#ifdef EVIL
#define SPIN evil_spin
#else
#define SPIN victim_spin
#endif
__attribute__((noinline)) void SPIN(void) { for (int i = 0; i < 100000; i++) sink += i; }
int main(int argc, char **argv)
{
	struct timespec t0, t;
	double secs = argc > 1 ? atof(argv[1]) : 0.05;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		SPIN();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
EOF
# Each victim its own build id (each its own object, read once), the replacing
# program another.
declare -A BID
n=0
for v in ok sym esc other new reuse elf rb gone_ok gone_sym; do
	n=$((n + 1))
	BID[$v]=$(printf 'a1b2c3d4%032x' "$n")
	dst=$R/app/v/$v
	[ "$v" = esc ] && dst=$R/app/d/esc
	gcc -O2 -fno-omit-frame-pointer -Wl,--build-id=0x"${BID[$v]}" -o "$dst" "$TMP/victim.c" || fail "build $v"
done
EVIL_BID=e0e0e0e0000000000000000000000000000000ee
gcc -O2 -DEVIL -fno-omit-frame-pointer -Wl,--build-id=0x$EVIL_BID -o "$TMP/evil" "$TMP/victim.c" || fail "build evil"
[ "$(ctr_build_id "$R/app/v/ok")" = "${BID[ok]}" ] || fail "the linker did not take the build id: $(ctr_build_id "$R/app/v/ok")"
# The hostile ELF: as hostile.sh's note.so, a note segment 1 TiB past the end.
cp "$R/app/v/elf" "$TMP/bad.elf"
ctr_note_past_end "$TMP/bad.elf" || fail "make the hostile ELF"
mkfifo "$R/app/go" "$R/app/t" "$R/app/ack" || fail "mkfifo"
cat >"$R/app/run.sh" <<'EOF'
while read name < /app/t; do
	case $name in esc) /app/d/esc 0.05 ;; *) /app/v/$name 0.05 ;; esac
	echo done > /app/ack
done
EOF
chmod -R a+rX "$R"

# The container's shell waits, then execs the loop: prof meets it (its exec's MMAP2)
# while it lives, and holds its root.
container_run --quiet "$R" docker -- /bin/sh -c 'read x < /app/go; exec /bin/sh /app/run.sh'
F=$TMP/held.data
"$PROF" record -v -g --container "$CTR_ID" -e cpu-clock -F 1000 -o "$F" -d 120 2>"$TMP/rec.err" &
prof=$!
cleanup_hooks=("kill -CONT $prof 2>/dev/null; kill -INT $prof 2>/dev/null" "${cleanup_hooks[@]}")
sleep 1.5
echo go >"$R/app/go"
sleep 1

# Run victim NAME in the container with prof stopped, then change the tree (the rest
# of the arguments, a command), then let prof go on.
victim() {
	local name=$1
	shift
	kill -STOP "$prof"
	echo "$name" >"$R/app/t"
	read -r _ <"$R/app/ack"
	"$@" || fail "$name: the change failed"
	kill -CONT "$prof"
	sleep 0.5
}

# Another file with the inode number $2 at path $1 (ext4 gives a freed inode number
# to the next file made in that group): the build id of evil.  1, or 0 if none came.
reuse_inode() {
	local path=$1 ino=$2 i f
	rm "$path"
	for ((i = 0; i < 64; i++)); do
		f=$(dirname "$path")/.new$i
		cp "$TMP/evil" "$f"
		if [ "$(stat -c %i "$f")" = "$ino" ]; then
			mv "$f" "$path"
			return 0
		fi
	done
	cp "$TMP/evil" "$path"
	note "reuse: no file got inode $ino again in 64 tries: only another inode was tried"
	return 0
}

rel=..
for ((i = 0; i < 20; i++)); do rel=$rel/..; done
victim ok true
victim sym sh -c "mv '$R/app/v/sym' '$OUT/sym' && ln -s '$rel$OUT/sym' '$R/app/v/sym'"
victim esc sh -c "mv '$R/app/d' '$OUT/d' && ln -s '$rel$OUT/d' '$R/app/d'"
OTHER=$TMP/other-root
mkdir -p "$OTHER/app/v" || fail "mkdir $OTHER"
victim other sh -c "mv '$R/app/v/other' '$OTHER/app/v/other' && ln -s '$OTHER/app/v/other' '$R/app/v/other'"
victim new sh -c "cp '$TMP/evil' '$R/app/v/.new' && mv '$R/app/v/.new' '$R/app/v/new'"
reuse_ino=$(stat -c %i "$R/app/v/reuse")
victim reuse reuse_inode "$R/app/v/reuse" "$reuse_ino"
reused=$([ "$(stat -c %i "$R/app/v/reuse")" = "$reuse_ino" ] && echo 1 || echo 0)
victim elf sh -c "cat '$TMP/bad.elf' >'$R/app/v/elf'"
# rb: read, then another file given its inode number (a rebuild), run again under
# another name (a hard link: comm rb2): the second run must not get rb's build id.
rb_ino=$(stat -c %i "$R/app/v/rb")
echo rb >"$R/app/t"
read -r _ <"$R/app/ack"
sleep 0.5
reuse_inode "$R/app/v/rb" "$rb_ino"
rebuilt=$([ "$(stat -c %i "$R/app/v/rb")" = "$rb_ino" ] && echo 1 || echo 0)
ln "$R/app/v/rb" "$R/app/v/rb2" || fail "ln rb2"
victim rb2 true
# Every task of the container gone, then the last two.
kill -STOP "$prof"
echo gone_ok >"$R/app/t"
read -r _ <"$R/app/ack"
echo gone_sym >"$R/app/t"
read -r _ <"$R/app/ack"
container_stop
ctr_gone "$CTR_PID" 2>/dev/null
mv "$R/app/v/gone_sym" "$OUT/gone_sym" && ln -s "$rel$OUT/gone_sym" "$R/app/v/gone_sym" || fail "gone_sym"
kill -CONT "$prof"
sleep 1
kill -INT "$prof"
wait "$prof" || fail "prof record exited $?: $(cat "$TMP/rec.err")"
note "$(grep -E '^prof: .*(objects|root held)' "$TMP/rec.err" | tr '\n' ' ')"

"$PERF" buildid-list -i "$F" >"$TMP/bids" 2>/dev/null || fail "perf buildid-list"
for v in ok gone_ok; do
	grep -q "^${BID[$v]} " "$TMP/bids" ||
		fail "$v: not read under the held root (the control): $(grep -E "/app/(v|d)/" "$TMP/bids")"
done
for v in sym esc other new reuse elf gone_sym; do
	grep -q "^${BID[$v]} " "$TMP/bids" && fail "$v: read though its path left the root: $(grep "${BID[$v]}" "$TMP/bids")"
done
# rb2 maps the replacing file itself (a hard link to it): where that file did not get
# rb's inode number it is simply another file, and its own build id is the right one.
if [ "$rebuilt" = 1 ]; then
	evil=$(grep "^$EVIL_BID " "$TMP/bids")
else
	evil=$(grep "^$EVIL_BID " "$TMP/bids" | grep -v ' /app/v/rb2$')
fi
[ -z "$evil" ] || fail "another file's build id was given to a victim: $evil"
grep -qE "^prof: [0-9]+ mapped objects, [0-9]+ build ids read, [0-9]+ of them through their task \([1-9][0-9]* under a root held after it was gone\)" \
	"$TMP/rec.err" || fail "no build id read under a held root: $(grep '^prof:' "$TMP/rec.err")"
grep -qE "^prof: [1-9][0-9]* containers or chroots met, their roots held: at most [1-9][0-9]* at once$" "$TMP/rec.err" ||
	fail "-v does not say the container's root was held: $(grep '^prof:' "$TMP/rec.err")"
line=$(grep -E '^prof: [0-9]+ of [0-9]+ mapped objects without a build id' "$TMP/rec.err")
replaced=$(echo "$line" | grep -oE '[0-9]+ replaced at their path' | cut -d' ' -f1)
malformed=$(echo "$line" | grep -oE '[0-9]+ malformed ELF' | cut -d' ' -f1)
[ "${replaced:-0}" -ge 6 ] || fail "the summary counts ${replaced:-0} replaced, not 6 (sym, esc, other, new, reuse, gone_sym): $line"
[ "${malformed:-0}" -ge 1 ] || fail "the summary counts no malformed ELF (elf): $line"
"$PROF" report -i "$F" --sort comm,sym >"$TMP/rep" 2>"$TMP/rep.err" || fail "prof report: $(cat "$TMP/rep.err")"
"$PERF" report -i "$F" --stdio --no-children -g none --sort comm,sym >"$TMP/prep" 2>/dev/null || fail "perf report of prof's file"
# Where the replacing file did not get rb's inode number, rb2 runs that file under
# its own inode and build id: its own functions are the right names for rb2 alone.
named_evil=$(grep -h evil_spin "$TMP/rep" "$TMP/prep")
[ "$rebuilt" = 1 ] || named_evil=$(echo "$named_evil" | grep -vE "(^|[[:space:]])rb2[[:space:]]")
[ -z "$named_evil" ] || fail "a reader names the replacing program: $(echo "$named_evil" | head -3)"
# rb's own mapping carries its build id (the header's table has none for it: which
# file its path and inode name is ambiguous by the end)
"$PERF" script -i "$F" --show-mmap-events 2>/dev/null | grep -F " /app/v/rb" | grep -qF "<${BID[rb]}>" ||
	fail "rb: its first mapping has not its build id: $("$PERF" script -i "$F" --show-mmap-events 2>/dev/null | grep -F /app/v/rb | head -3)"
if [ "$rebuilt" = 1 ]; then
	grep -q "^prof: [0-9]* mapped objects had their inode number given to another file" "$TMP/rec.err" ||
		fail "rb: the summary does not say its inode number was given to another file: $(grep '^prof:' "$TMP/rec.err")"
	grep -E '(^|[[:space:]])rb2[[:space:]].*victim_spin' "$TMP/rep" "$TMP/prep" &&
		fail "rb2 (another file at rb's inode number) named after rb's functions"
	grep -qF "/[unknown]/app/v/rb2" <("$PERF" script -i "$F" --show-mmap-events 2>/dev/null) ||
		fail "rb2's mapping is not written as /[unknown]PATH: $("$PERF" script -i "$F" --show-mmap-events 2>/dev/null | grep rb2 | head -3)"
fi
grep -qE 'ok +.*victim_spin|victim_spin' "$TMP/rep" || fail "prof report does not name the ok victims: $(head -20 "$TMP/rep")"
note "reuse: the replacing file got the victim's inode number: $([ "$reused" = 1 ] && echo yes || echo no); rb: $([ "$rebuilt" = 1 ] && echo yes || echo no)"
pass "held root: the control read under it (while the container lives and after); a symlink swap and a directory escaping with .., a symlink into another tenant's root, another inode, a reused inode number and a hostile ELF: refused and counted, no other file's build id or names; a rebuilt file at a read one's inode number not named after it"
