#!/usr/bin/env bash
# Issue 17, items 1 to 3: a container's objects, reached through its task, kept in the
# invoking user's build-id cache, and found there by build id by prof report and by
# perf report on prof's file.  A pod (containerd's naming) of containers made as
# runtimes make them (../container.sh: own mount, pid and uts namespaces, pivot_root):
# one running /app/ctr-hot (a path that exists only inside its root), one running the
# decoy path (where the host has a DIFFERENT program, functions decoy_*), both for
# the whole recording, and one at the decoy path started during the recording that
# exits before its end.  Recorded with `prof record --cgroup POD -g`, then with
# `--call-graph dwarf` (programs without frame pointers).  Checks, while the long
# containers run and again after every container exited:
# - >= 99 % of each container's samples named by its own functions, none by the host
#   decoy's (prof report; perf report of prof's file);
# - with dwarf, >= 95 % of each container's stacks reach main and _start;
# - each sampled object of the containers is in $HOME/.debug/.build-id/xx/rest/elf
#   once, byte for byte the container's file, 0600, the host decoy's never, and the
#   summary line says how many were kept.
# The same with -g on overlay roots (lower dir: the root, as Docker mounts image
# layers): the objects' device is the overlay's.
# Before issue 17 prof named 0 % (the host's file was read: [unknown], or decoy_*).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../container.sh"
require_root
require_perf
command -v python3 >/dev/null || skip "needs python3"
command -v readelf >/dev/null || skip "needs readelf (binutils)"
[ ! -e /app ] || skip "the host has /app: the test needs that path to exist only in the container"
share=$(cd "$(dirname "$0")/../../.." && pwd)/bench/benchlib/ctrshare.py

container_root "$TMP/root"
R=$TMP/root
D=$CTR_DECOY_DIR
[ -n "$(ctr_build_id "$R/app/ctr-hot")" ] || skip "gcc writes no build ids here"
ev=(-e cpu-clock -F 1000)
OVL=

# One scenario: SFX ("" or -nofp), then the prof record options.
run() {
	local sfx=$1 name=$2
	shift 2
	export HOME=$TMP/home-$name
	mkdir -p "$HOME"
	container_run --quiet ${OVL:+--overlay} "$R" pod -- /app/ctr-hot pause
	POD=$CTR_POD_CGROUP POD_UID=$CTR_POD_UID
	container_run --quiet ${OVL:+--overlay} "$R" "pod:$POD_UID" -- "/app/ctr-hot$sfx" 0
	app=$CTR_PID
	container_run --quiet ${OVL:+--overlay} "$R" "pod:$POD_UID" -- "$D/ctr-hot$sfx" 0
	decoy=$CTR_PID
	F=$TMP/$name.data
	"$PROF" record --cgroup "$POD" "$@" "${ev[@]}" -o "$F" -d 4 2>"$TMP/$name.err" &
	local rec=$!
	sleep 1
	container_run --quiet ${OVL:+--overlay} "$R" "pod:$POD_UID" -- "$D/ctr-hot$sfx" 1.5
	short=$CTR_PID
	local short_n=$CTR_N
	wait "$rec" || fail "$name: prof record exited $?: $(cat "$TMP/$name.err")"
	container_wait "$short_n" >/dev/null
	note "$name: $(grep -F 'prof: objects' "$TMP/$name.err")"
	grep -qE "^prof: objects with samples: [0-9]+ kept in $HOME/.debug" "$TMP/$name.err" ||
		fail "$name: no summary of the kept objects: $(cat "$TMP/$name.err")"
	check_cache "$name" "$sfx"
}

# Every sampled object of the containers, in the cache by build id, as perf keeps them.
check_cache() {
	local name=$1 sfx=$2 obj bid e
	for obj in "/app/ctr-hot$sfx" "/app/lib/libctr$sfx.so" "$D/ctr-hot$sfx" "$D/libctr$sfx.so"; do
		bid=$(ctr_build_id "$R$obj")
		e=$HOME/.debug/.build-id/${bid:0:2}/${bid:2}/elf
		[ -f "$e" ] || fail "$name: $obj (build id $bid) is not in the cache: $(find "$HOME/.debug" | head -20)"
		cmp -s "$e" "$R$obj" || fail "$name: the cache's $e is not the container's $obj"
		[ "$(stat -c %a "$e")" = 600 ] || fail "$name: $e is mode $(stat -c %a "$e")"
		bid=$(ctr_build_id "$obj")
		[ -z "$bid" ] || [ ! -e "$HOME/.debug/.build-id/${bid:0:2}/${bid:2}" ] || fail "$name: the host decoy $obj is in the cache"
	done
	[ "$(find "$HOME/.debug/.build-id" -mindepth 2 -maxdepth 2 | wc -l)" -ge 4 ] || fail "$name: cache: $(find "$HOME/.debug")"
	pass "$name: the containers' 4 objects in $HOME/.debug by build id, the container's bytes, 0600; no decoy"
}

# Shares of each container's samples named right, by prof report and perf report.
check_names() {
	local name=$1 when=$2 p n right wrong dec unknown label
	"$PROF" report -i "$F" -F json --sort pid,dso,sym >"$TMP/$name.json" 2>"$TMP/$name.rerr" ||
		fail "$name $when: prof report: $(cat "$TMP/$name.rerr")"
	perf_clean "$TMP/$name.perf" report -i "$F" --stdio --no-children -F sample,pid,dso,sym -g none -t '|'
	for reader in "prof-json $TMP/$name.json" "perf-report $TMP/$name.perf"; do
		while read -r p n right wrong dec unknown; do
			label=app; [ "$p" = "$decoy" ] && label=decoy; [ "$p" = "$short" ] && label=short
			[ "$n" -ge 100 ] || fail "$name $when ${reader%% *}: $label container ($p) has $n samples"
			[ "$wrong" -eq 0 ] || fail "$name $when ${reader%% *}: $label: $wrong of $n samples named wrong ($dec the host decoy's)"
			[ $((right * 100)) -ge $((n * 99)) ] ||
				fail "$name $when ${reader%% *}: $label: $right of $n named ($unknown unknown)"
			note "$name $when ${reader%% *}: $label: $right of $n samples named, $unknown unknown, 0 wrong"
		done < <(python3 "$share" names $reader "$app" "$decoy" "$short")
	done
	pass "$name $when: >= 99 % of each container's samples named by prof report and perf report, none by the host's file"
}

# Shares of each container's stacks that reach main and _start (prof report -F folded).
check_stacks() {
	local name=$1 when=$2 p n good
	for p in "$app" "$decoy" "$short"; do
		"$PROF" report -i "$F" -F folded -g --no-inline --pid "$p" >"$TMP/$name.folded" 2>/dev/null ||
			fail "$name $when: prof report -F folded --pid $p"
		read -r _ n good < <(python3 "$share" stacks folded "$TMP/$name.folded" "$p")
		[ "$n" -ge 100 ] && [ $((good * 100)) -ge $((n * 95)) ] ||
			fail "$name $when: $good of $n stacks of $p reach main and _start: $(sort -k2 -n -r "$TMP/$name.folded" | head -3)"
		note "$name $when: $p: $good of $n stacks reach main and _start"
	done
	pass "$name $when: >= 95 % of each container's DWARF stacks reach main and _start"
}

# 1. Frame pointers.
run "" fp -g
check_names fp running
container_cleanup
check_names fp after

# 2. DWARF, programs without frame pointers.
run -nofp dwarf --call-graph dwarf
check_names dwarf running
check_stacks dwarf running
container_cleanup
check_names dwarf after
check_stacks dwarf after

# 3. Overlay roots, frame pointers.
OVL=1
run "" overlay -g
[ "$(stat -c %d "/proc/$app/root/app/ctr-hot")" != "$(stat -c %d "$R/app/ctr-hot")" ] ||
	fail "overlay: the container's file has the lower dir's device"
check_names overlay running
container_cleanup
check_names overlay after
