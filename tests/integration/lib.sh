# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the integration tests: they drive the real kernel and the real perf.
# Each test exits 0 (pass), 1 (fail) or 77 (skip: no root, no perf, no feature).
set -u

: "${PROF:?PROF must name the prof binary}"
: "${PROF_HOT:?PROF_HOT must name the prof-hot test program}"
PERF=${PERF:-perf}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/prof-it.XXXXXX")
cleanup_hooks=()
cleanup() {
	local h
	for h in "${cleanup_hooks[@]}"; do eval "$h" || true; done
	rm -rf "$TMP"
}
trap cleanup EXIT

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
pass() { echo "ok: $*"; }
note() { echo "# $*"; }

require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (system-wide perf events)"
}
require_perf() {
	command -v "$PERF" >/dev/null 2>&1 || skip "needs perf (Debian package linux-perf)"
	"$PERF" --version >/dev/null 2>&1 || skip "perf does not run here"
}

# True in a chroot: entering our own mount namespace (as perf enters a task's) puts a
# process at the namespace's root, which is not this shell's.  Needs root.
in_chroot() {
	local ns
	ns=$(nsenter --mount=/proc/self/ns/mnt -- stat -c %d:%i / 2>/dev/null) &&
		[ -n "$ns" ] && [ "$ns" != "$(stat -c %d:%i /)" ]
}

# Run perf report/script; fail if it exits non-zero or says anything on stderr.  A test
# comparing prof and perf on the same file sets perf_lost_ok=1: records the kernel
# lost on a loaded host (prof's file holds them as LOST, perf warns "lost N chunks")
# are then noted, not failed; nothing else perf says may be.
perf_clean() {
	local out=$1; shift
	"$PERF" "$@" >"$out" 2>"$TMP/perf.err" || fail "perf $* exited $?: $(head -c 2000 "$TMP/perf.err")"
	if [ -s "$TMP/perf.err" ] && [ "${perf_lost_ok:-0}" = 1 ] &&
		! grep -vqE '^(Warning:|Processed [0-9]+ events and lost [0-9]+ chunks!|Check IO/CPU overload!|)$' "$TMP/perf.err"; then
		note "perf $1: $(grep -oE 'lost [0-9]+ chunks' "$TMP/perf.err") (the kernel's, on a loaded host; the same file for both)"
		return 0
	fi
	if [ -s "$TMP/perf.err" ]; then
		# perf reads a task's files in its mount namespace (setns); coming back puts
		# perf at that namespace's root, outside a chroot, where its chdir back to
		# its cwd fails: WARN_ON_ONCE in nsinfo__mountns_exit.  What it read after
		# that was the host's files, not the chroot's: no reference.
		if grep -q '^assertion failed at util/namespaces.c:' "$TMP/perf.err" && in_chroot; then
			skip "in a chroot perf $1 entered a task's mount namespace and came back outside the chroot (util/namespaces.c's warning): it is no reference here"
		fi
		fail "perf $* wrote to stderr: $(head -c 2000 "$TMP/perf.err")"
	fi
}

# The first line of `perf report --stdio --no-children` whose symbol is user space.
top_user_line() {
	grep -E '^ +[0-9.]+%' "$1" | grep -F '[.]' | head -n 1
}

# Percentage of the first report line matching a pattern (0 when absent).
pct_of() {
	local v
	v=$(grep -E '^ +[0-9.]+%' "$1" | grep -E "$2" | head -n 1 | awk '{print $1}' | tr -d '%')
	echo "${v:-0}"
}

# pct A B: 100 A / B, one decimal.  near A B T: |A - B| <= T (true or false).
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", 100 * a / b }'; }
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

# named_share FILE PROG [json|perf|top]: the samples in program PROG (its object's
# base name) of a prof report -F json (json, the default), a perf report --stdio -F
# sample,dso,sym -t '|' (perf), or prof top --stdio's last screen (top): "N NAMED
# TOP1 TOP2", the two most sampled names in name order (Rust's legacy hash dropped).
named_share() {
	python3 - "$1" "$2" "${3:-json}" <<'PY'
import json, re, sys
path, prog, kind = sys.argv[1:4]
rows = []                       # (samples, object, symbol)
if kind == "json":
    rows = [(r["samples"], r["dso"].rsplit("/", 1)[-1], r["sym"]) for r in json.load(open(path))["rows"]]
elif kind == "perf":
    for line in open(path):
        f = line.rstrip("\n").split("|")
        if len(f) >= 3 and f[0].strip().isdigit():
            rows.append((int(f[0]), f[1].strip(), f[2].strip()[4:]))
else:
    for line in open(path).read().split("prof top:")[-1].splitlines():
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(\S+)\s+\[.\]\s+(.*)$", line)
        if m:
            rows.append((int(m.group(1)), m.group(2), m.group(3).strip()))
n = 0
named = {}
for c, obj, sym in rows:
    if obj != prog:
        continue
    n += c
    sym = re.sub(r"::h[0-9a-f]{16}$", "", sym)
    if not (sym.startswith("[unknown]") or sym.startswith("0x")):
        named[sym] = named.get(sym, 0) + c
print(n, sum(named.values()), " ".join(sorted(sorted(named, key=named.get, reverse=True)[:2])))
PY
}

# bidof FILE: an ELF file's GNU build id, in hex.
bidof() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }

# debuginfod_serve DIR PROG...: a real debuginfod (Debian's) serving the debug files in
# DIR on a free loopback port, with its own database, stopped when the test ends;
# returns once it serves each $TMP/PROG's.  Its URL in $DEBUGINFOD_URL, its log in
# $TMP/srv.log; `requests` counts the build-id requests it had.
debuginfod_serve() {
	local dir=$1 port p i
	shift
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	debuginfod -F -p "$port" -d "$TMP/db.sqlite" -t 0 -g 0 -vv "$dir" >"$TMP/srv.log" 2>&1 &
	srv_pid=$!
	cleanup_hooks+=("kill $srv_pid; wait $srv_pid 2>/dev/null")
	DEBUGINFOD_URL=http://127.0.0.1:$port
	for p in "$@"; do
		for i in $(seq 100); do
			curl -sf -o /dev/null "$DEBUGINFOD_URL/buildid/$(bidof "$TMP/$p")/debuginfo" && break
			kill -0 $srv_pid 2>/dev/null || fail "debuginfod exited: $(tail -5 "$TMP/srv.log")"
			sleep 0.1
		done
		[ "$i" -lt 100 ] || fail "debuginfod does not serve $p's debug file: $(tail -5 "$TMP/srv.log")"
	done
}
requests() { grep -c 'GET /buildid/' "$TMP/srv.log"; }

# http_dir DIR: a plain HTTP server of DIR on a free loopback port, stopped when the
# test ends; its port in $http_port, its log (a line a request) in $TMP/http-PORT.log.
http_dir() {
	local pid
	http_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	python3 -m http.server -b 127.0.0.1 -d "$1" "$http_port" >"$TMP/http-$http_port.log" 2>&1 &
	pid=$!
	cleanup_hooks+=("kill $pid; wait $pid 2>/dev/null")
	for _ in $(seq 50); do
		python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' \
			"http://127.0.0.1:$http_port/" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "the HTTP server of $1 did not start: $(cat "$TMP/http-$http_port.log")"
}

# A throwaway user, removed (with every process it has) when the test ends.
make_user() {
	local name=$1
	command -v useradd >/dev/null || skip "needs useradd"
	id "$name" >/dev/null 2>&1 && { pkill -KILL -u "$name" 2>/dev/null; userdel "$name" 2>/dev/null; }
	useradd -M -d / -s /bin/bash "$name" || fail "useradd $name"
	cleanup_hooks+=("pkill -KILL -u $name; sleep 0.2; userdel $name")
}

# The cgroup2 mount (also at hybrid locations like /sys/fs/cgroup/unified).
cgroup2_root() {
	awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo
}

# A throwaway cgroup2 directory tree under the root, removed at the end (its
# processes killed first, deepest directories first).
make_cgroup_tree() {
	local root=$1
	mkdir -p "$root" || fail "mkdir $root"
	cleanup_hooks+=("for d in \$(find '$root' -depth -type d); do for p in \$(cat \$d/cgroup.procs 2>/dev/null); do kill -KILL \$p; done; done; sleep 0.3; find '$root' -depth -type d -exec rmdir {} \\; 2>/dev/null")
}

# A copy of the test program that any user can run.
public_copy() {
	local src=$1 dst=$TMP/pub/$(basename "$1")
	mkdir -p "$TMP/pub"
	chmod 755 "$TMP" "$TMP/pub"
	cp "$src" "$dst" && chmod 755 "$dst" || fail "copy $src"
	echo "$dst"
}

# Samples in a perf script -F comm,pid listing whose comm perf could not name.
unknown_comms() {
	grep -cE '^ *:[0-9]+ ' "$1" || true
}

# tracefs, where prof finds the set*uid() tracepoints --uid needs.  Its mount options
# are changed for a test and restored at the end.
# "mount point<TAB>super options" of the first tracefs (the fields after " - ").
tracefs_mount() {
	awk '{ for (i = 7; i < NF; i++) if ($i == "-") break; if ($(i + 1) == "tracefs") { print $5 "\t" $(i + 3); exit } }' /proc/self/mountinfo
}
tracefs_dir() {
	tracefs_mount | cut -f1
}
tracefs_remount() {
	local mode=$1 gid=$2 dir opts
	dir=$(tracefs_dir)
	[ -n "$dir" ] || skip "tracefs is not mounted"
	if [ -z "${tracefs_saved:-}" ]; then
		# the options found first are the ones restored, once
		tracefs_saved=1
		opts=$(tracefs_mount | cut -f2 | tr , '\n')
		cleanup_hooks+=("mount -o remount,gid=$(echo "$opts" | sed -n 's/^gid=//p' | grep . || echo 0),mode=$(echo "$opts" | sed -n 's/^mode=//p' | grep . || echo 700) '$dir'")
	fi
	mount -o "remount,gid=$gid,mode=$mode" "$dir" || skip "cannot remount tracefs"
}
# Members of a group may read tracefs (what prof's refusal of --uid tells admins to do).
tracefs_readable_by_group() {
	tracefs_remount 0750 "$(getent group "$1" | cut -d: -f3)"
}
# Only root may read tracefs (the kernel's default).
tracefs_root_only() {
	tracefs_remount 0700 0
}

# This folder (perf_folded.py, for python3 -c "from perf_folded import load" with
# PYTHONPATH=$LIB_DIR).
LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# perf script's stacks of FILE, folded (perf_folded.py), into OUT; more arguments go
# to perf script (e.g. --no-inline).
perf_folded() {
	local in=$1 out=$2; shift 2
	perf_clean "$TMP/script.txt" script "$@" -i "$in" -F comm,ip,sym
	python3 "$LIB_DIR/perf_folded.py" "$TMP/script.txt" >"$out" || fail "folding perf script's stacks"
}
# prof report's stacks of FILE, folded, one frame per address (--no-inline), into
# OUT; "[unknown] (obj)" is "[unknown]", as perf script names such a frame.
prof_folded() {
	"$PROF" report -i "$1" -F folded -g --no-inline >"$TMP/pf.raw" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
	sed -E 's/\[unknown\]_\([^;]*\)/[unknown]/g' "$TMP/pf.raw" >"$2"
}
