#!/usr/bin/env bash
# Issue 17, item 2, on the host: a binary replaced or deleted while it runs (a
# deployment renaming a new build over it) is named by the build that ran, never by
# the file now at its path and never [unknown]: prof record keeps the mapped file in
# the build-id cache (the same mechanism as a container's objects).  Three programs
# run from $TMP/bin/ctr-hot (container_app.c and container_lib.c in one file,
# functions ctr_*), recorded with `prof record --cgroup CG -g`:
#   during   replaced by a new build (functions new_*) 1 s into the recording;
#            the new build is started then too, and is named by its own new_*
#   before   replaced before the recording started (only /proc/PID/map_files has it)
#   deleted  its file removed 1 s into the recording
# prof report and perf report of prof's file name >= 99 % of each one's samples by
# its own functions.  Before issue 17: the old builds' samples were [unknown].
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v python3 >/dev/null || skip "needs python3"
command -v gcc >/dev/null || skip "needs gcc"
src=$(cd "$(dirname "$0")/../../programs" && pwd)
share=$(cd "$(dirname "$0")/../../.." && pwd)/bench/benchlib/ctrshare.py
export HOME=$TMP/home
mkdir -p "$HOME" "$TMP/bin" "$TMP/del"
CG=prof-it-replaced
make_cgroup_tree "$(cgroup2_root)/$CG"
# PROG ARGS... in the test's cgroup (the new build is started during the recording).
in_cg() { exec bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$(cgroup2_root)/$CG" "$@"; }
# Each its own build id (a variant string of its own); the new build's functions
# are new_*.
nv=0
build() {
	echo "const char ctr_variant[] = \"$((++nv))\";" >"$TMP/variant.c"
	gcc -O2 -g -fno-omit-frame-pointer "${@:2}" -o "$1" "$src/container_app.c" "$src/container_lib.c" \
		"$TMP/variant.c" || fail "build $1"
}
build_old() { build "$1"; }
build_new() { build "$1" -Dctr_app_spin=new_app_spin -Dctr_lib_spin=new_lib_spin -Dctr_app_run=new_app_run -Dctr_lib_step=new_lib_step; }
P=$TMP/bin/ctr-hot
build_old "$P"
build_new "$TMP/bin/new"
build_old "$TMP/bin/ctr-hot-before"
build_new "$TMP/bin/new-before"
build_old "$TMP/del/ctr-hot"
bid() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
command -v readelf >/dev/null || skip "needs readelf (binutils)"
# the three old builds, each kept in the cache at its path
olds=("$P/$(bid "$P")" "$TMP/bin/ctr-hot-before/$(bid "$TMP/bin/ctr-hot-before")" "$TMP/del/ctr-hot/$(bid "$TMP/del/ctr-hot")")

in_cg "$TMP/bin/ctr-hot-before" 0 &
before=$!
cleanup_hooks+=("kill $before 2>/dev/null")
sleep 0.2
mv "$TMP/bin/new-before" "$TMP/bin/ctr-hot-before" || fail "replace before"
in_cg "$P" 0 &
during=$!
cleanup_hooks+=("kill $during 2>/dev/null")
in_cg "$TMP/del/ctr-hot" 0 &
deleted=$!
cleanup_hooks+=("kill $deleted 2>/dev/null")
sleep 0.2
F=$TMP/r.data
"$PROF" record --cgroup "$CG" -g -e cpu-clock -F 1000 -o "$F" -d 3 2>"$TMP/rec.err" &
rec=$!
sleep 1
mv "$TMP/bin/new" "$P" || fail "replace during"
in_cg "$P" 1.5 &
new=$!
rm "$TMP/del/ctr-hot" || fail "delete"
wait "$rec" || fail "prof record exited $?: $(cat "$TMP/rec.err")"
wait "$new"
note "$(grep -F 'prof: objects' "$TMP/rec.err")"
# every object with samples is kept: the three old builds, and libc or the vdso too
# when samples fell there (a loaded host's scheduling)
kept=$(sed -nE "s|^prof: objects with samples: ([0-9]+) kept in $HOME/.debug .*|\1|p" "$TMP/rec.err")
for o in "${olds[@]}"; do
	[ "${kept:-0}" -ge 3 ] && [ -e "$HOME/.debug$o/elf" ] ||
		fail "old build $o not kept (the summary says ${kept:-none}): $(cat "$TMP/rec.err"; echo "kept:";
			find "$HOME/.debug" \( -name elf -o -name vdso \) -printf '%h %f\n' | sed "s|^$HOME/.debug||")"
done

check() {
	local when=$1 reader p n right wrong dec unknown label
	"$PROF" report -i "$F" -F json --sort pid,dso,sym >"$TMP/r.json" 2>"$TMP/rep.err" || fail "prof report: $(cat "$TMP/rep.err")"
	perf_clean "$TMP/r.perf" report -i "$F" --stdio --no-children -F sample,pid,dso,sym -g none -t '|'
	for reader in "prof-json $TMP/r.json" "perf-report $TMP/r.perf"; do
		while read -r p n right wrong dec unknown; do
			case $p in
			"$before") label=before ;; "$during") label=during ;; "$deleted") label=deleted ;; "$new") label=new ;;
			esac
			[ "$n" -ge 100 ] || fail "$when ${reader%% *}: $label ($p) has $n samples"
			note "$when ${reader%% *}: $label: $n samples, $right named ctr_* (the old build's, or outside it), $wrong another name in it (new_*), $unknown unknown"
			if [ "$label" = new ]; then
				continue        # its own check below: it starts as bash
			fi
			[ "$wrong" -eq 0 ] || fail "$when ${reader%% *}: $label: $wrong of $n named by another build"
			[ $((right * 100)) -ge $((n * 99)) ] || fail "$when ${reader%% *}: $label: $right of $n named"
		done < <(python3 "$share" names $reader "$before" "$during" "$deleted" "$new")
	done
	# the new build, at the path: its samples in ctr-hot are its own new_* (or main)
	python3 - "$TMP/r.json" "$new" <<'PY' || fail "$when: the new build's samples in its file are not all new_*"
import json, sys
n = bad = 0
for row in json.load(open(sys.argv[1]))["rows"]:
    if str(row.get("pid")) == sys.argv[2] and row.get("dso", "").endswith("/ctr-hot"):
        n += row["samples"]
        if not (row["sym"].startswith("new_") or row["sym"] == "main"):
            bad += row["samples"]
            print(row["sym"], row["samples"])
print(f"# the new build: {n - bad} of {n} samples in its file named new_*")
sys.exit(1 if bad or n < 100 else 0)
PY
	pass "$when: each build named by its own functions (prof report, perf report of prof's file), replaced before or during the recording, or deleted"
}
check running
kill "$before" "$during" "$deleted"
wait 2>/dev/null
check after
