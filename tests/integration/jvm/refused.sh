#!/usr/bin/env bash
# What src/jvm must refuse, with one line saying why and never a crash: an OpenJ9 JVM
# (its libj9vm29.so), a libjvm.so that is no HotSpot (a copy of zlib under that
# name), and libjvm.so's exporting HotSpot's symbols over tables prof cannot check
# (describing nothing prof needs; a stride past any JVM's).  Each is loaded by
# prof-jvm-host; prof-jvm-probe must exit 2 with one line naming the object and why.
. "$(dirname "$0")/../lib.sh"
: "${PROF_JVM_PROBE:?PROF_JVM_PROBE must name the prof-jvm-probe test program}"
: "${PROF_JVM_HOST:?PROF_JVM_HOST must name the prof-jvm-host test program}"
: "${PROF_JVM_FAKE:?PROF_JVM_FAKE must name the fake libjvm.so}"
require_root

zlib=$(ldconfig -p | awk '/libz\.so\.1 .*x86-64/ { print $NF; exit }')
mkdir -p "$TMP/j9" "$TMP/zlib" "$TMP/fake"
cp "$PROF_JVM_FAKE" "$TMP/j9/libj9vm29.so"
cp "$PROF_JVM_FAKE" "$TMP/fake/libjvm.so"
[ -n "$zlib" ] && cp "$zlib" "$TMP/zlib/libjvm.so"
pids=()
cleanup_hooks+=('for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait')

# refused LIB MODE PATTERN: the probe's exit 2 and its one line matching PATTERN
refused() {
	local lib=$1 mode=$2 pattern=$3 pid rc
	"$PROF_JVM_HOST" "$lib" "$mode" >"$TMP/host.out" 2>&1 &
	pid=$!
	pids+=("$pid")
	for _ in $(seq 50); do grep -q ready "$TMP/host.out" && break; sleep 0.1; done
	grep -q ready "$TMP/host.out" || fail "prof-jvm-host $lib did not start: $(cat "$TMP/host.out")"
	"$PROF_JVM_PROBE" describe "$pid" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	kill "$pid"; wait "$pid" 2>/dev/null
	[ "$rc" -eq 2 ] || fail "$lib ($mode): exit $rc, not 2 (refused): $(cat "$TMP/out" "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$lib ($mode): not one line: $(cat "$TMP/err")"
	grep -qE "$pattern" "$TMP/err" || fail "$lib ($mode): the line does not say why ($pattern): $(cat "$TMP/err")"
	note "$(cat "$TMP/err")"
}

refused "$TMP/j9/libj9vm29.so" as-is 'libj9vm29\.so: an Eclipse OpenJ9 JVM'
[ -n "$zlib" ] && refused "$TMP/zlib/libjvm.so" as-is 'libjvm\.so: a libjvm\.so with no HotSpot self-description'
refused "$TMP/fake/libjvm.so" as-is 'libjvm\.so: a HotSpot prof cannot check: its self-description has no CodeBlob'
refused "$TMP/fake/libjvm.so" stride "libjvm\.so: a HotSpot prof cannot check: its gHotSpotVMStructs table's stride is 4096"
# and a process with no JVM at all: 77, nothing claimed
"$PROF_JVM_PROBE" describe $$ >/dev/null 2>&1
[ $? -eq 77 ] || fail "a process with no JVM was not told apart"
pass "OpenJ9, a libjvm.so that is no HotSpot, and tables prof cannot check refused in one line each"
