#!/usr/bin/env bash
# Builds nobody tuned for: CPython builds with no debug info whose build ids appear
# nowhere in prof's source get verified Python frames by their version alone
# (docs/DESIGN.md, "Python frames"), with -g and with --call-graph dwarf:
#  - Debian 12's current python3.11 and the point release before it, taken with
#    apt-get download (cached in ~/.cache/prof/debs) and run out of their extracted
#    tree (PYTHONHOME), the system's untouched;
#  - pyenv's 3.11.7, 3.12.1 and 3.13.0, their executable and libpython copied and
#    stripped of their debug info here (each part skipped, with the reason, where
#    that version is not installed).
# Each build with -g and --call-graph dwarf, and Debian's also by a user whose prof
# has no CAP_BPF (the stack copy alone, by the slots of its eval function's prologue): >= 95 % of the samples with verified Python frames,
# shares.py's shares within 3 points, callers.py's helper() never under the wrong
# caller, and the summary says how the interpreter was read.  The test runs with
# /usr/lib/debug hidden (nodebug.sh).
. "$(dirname "$0")/nodebug.sh"
. "$(dirname "$0")/../lib.sh"
require_root
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
PYENV_VERSIONS=${PYENV_ROOT:-/root/.pyenv}/versions
DEBS=${XDG_CACHE_HOME:-$HOME/.cache}/prof/debs
command -v strip >/dev/null && command -v readelf >/dev/null || skip "needs strip and readelf (binutils)"
cp "$(dirname "$0")/shares.py" "$(dirname "$0")/callers.py" "$TMP/" || fail "copy the programs"
[ -z "$(find /usr/lib/debug -type f 2>/dev/null | head -1)" ] || fail "/usr/lib/debug is not hidden"

tested=0 skipped=()

# build_id FILE: its GNU build id (hex).
build_id() {
	readelf -n "$1" 2>/dev/null | sed -nE 's/^ *Build ID: ([0-9a-f]+)$/\1/p' | head -1
}

# untuned WHAT FILE...: false (and noted) when one of the files' build ids is named in
# prof's source: a build someone tuned for is tested, but not counted among these.
untuned() {
	local what=$1 f id; shift
	for f in "$@"; do
		id=$(build_id "$f")
		[ -n "$id" ] || fail "$what: $f has no build id"
		if grep -rqiF "$id" "$SRC/src" "$SRC/include" "$SRC/scripts"; then
			skipped+=("$what among the builds nobody tuned for (build id $id is in prof's source)")
			return 1
		fi
	done
}

# The stack copy alone (no chains at the sample instant): a user's own recording by a
# copy of prof with the capabilities an operator's has, not CAP_BPF.
PYUSER=prof_pyb_$$
make_user "$PYUSER"
mkdir -p "$TMP/bin" "$TMP/home" && chown "$PYUSER" "$TMP/home" && chmod 755 "$TMP" "$TMP/bin" &&
	chmod 644 "$TMP/shares.py" "$TMP/callers.py" || fail "the user's files"
cp "$PROF" "$TMP/bin/prof" && chmod 755 "$TMP/bin/prof" || fail "copy prof"
command -v setcap >/dev/null && setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep "$TMP/bin/prof" 2>/dev/null ||
	skipped+=("the stack copy alone (no setcap: package libcap2-bin)")

# how MODE MINOR: the summary's "read:" for a build of 3.MINOR without debug info
how() {
	case $1/$2 in
	fp/*) echo "1 by their chain read at the sample instant alone, no pins (-g: no stack copy)" ;;
	*/11) echo "1 by their stack copy, at the slots their eval function's prologue stores" ;;
	*) echo "1 by their chain read at the sample instant alone, no pins (no debug info)" ;;
	esac
}

# run_build WHAT MINOR COMM PY MODES [ENV...]: the two programs under PY, in each mode
# (fp: -g; dwarf; stack: dwarf by the user, without CAP_BPF).
run_build() {
	local what=$1 minor=$2 comm=$3 py=$4 modes=$5 mode flag run; shift 5
	for mode in $modes; do
		[ "$mode" = fp ] && flag=(-g) || flag=(--call-graph dwarf)
		run=(env "$@" "$PROF")
		[ "$mode" = stack ] && run=(runuser -u "$PYUSER" -- env HOME="$TMP/home" "$@" "$TMP/bin/prof")
		for prog in shares callers; do
			rm -f "$TMP/home/$prog.data"
			"${run[@]}" record "${flag[@]}" -F 2000 -o "$TMP/home/$prog.data" -- "$py" "$TMP/$prog.py" 4 \
				>/dev/null 2>"$TMP/$prog.sum" || fail "$what, $mode: prof record: $(tail -3 "$TMP/$prog.sum")"
			HOME=$([ "$mode" = stack ] && echo "$TMP/home" || echo "$HOME") \
				"$PROF" report -i "$TMP/home/$prog.data" -F folded -g --comm "$comm" 2>"$TMP/err" |
				sed -E -e 's/_\(/ (/g' -e 's/:def_([0-9]+)\)/:def \1)/g' \
					-e 's/\[python:_callers_not_proven\]/[python: callers not proven]/g' \
					-e 's/\[python:_unverified\]/[python: unverified]/g' >"$TMP/$prog.folded" ||
				fail "$what, $mode: prof report: $(cat "$TMP/err")"
		done
		python3 "$(dirname "$0")/builds_check.py" "$what, $mode" "$TMP/shares.sum" "$TMP/shares.folded" \
			"$TMP/callers.sum" "$TMP/callers.folded" "$(how "$mode" "$minor")" "$mode" || fail "$what, $mode: see above"
	done
	tested=$((tested + 1))
}

# Debian 12's python3.11: the two newest versions the archive offers
mkdir -p "$DEBS"
for v in $(apt-cache madison python3.11-minimal 2>/dev/null | awk '{print $3}' | sort -Vru | head -2); do
	dir=$TMP/deb-$v
	for p in python3.11-minimal libpython3.11-minimal libpython3.11-stdlib; do
		[ -e "$DEBS/${p}_${v//:/%3a}_amd64.deb" ] || (cd "$DEBS" && apt-get download -q "$p=$v" >/dev/null 2>&1) ||
			{ skipped+=("Debian's python3.11 $v (apt-get download $p=$v failed)"); continue 2; }
		dpkg-deb -x "$DEBS/${p}_${v//:/%3a}_amd64.deb" "$dir" || fail "dpkg-deb -x of $p $v"
	done
	untuned "Debian's python3.11 $v" "$dir/usr/bin/python3.11" || continue
	note "Debian's python3.11 $v: build id $(build_id "$dir/usr/bin/python3.11")"
	modes="fp dwarf"
	getcap "$TMP/bin/prof" 2>/dev/null | grep -q cap_perfmon && modes+=" stack"
	run_build "Debian's python3.11 $v" 11 python3.11 "$dir/usr/bin/python3.11" "$modes" PYTHONHOME="$dir/usr"
done

# pyenv's builds, stripped here
for v in 3.11.7 3.12.1 3.13.0; do
	m=${v%.*} home=$PYENV_VERSIONS/$v dir=$TMP/pyenv-$v
	if [ ! -x "$home/bin/python$m" ] || [ ! -e "$home/lib/libpython$m.so.1.0" ]; then
		skipped+=("pyenv $v (not installed under $PYENV_VERSIONS)")
		continue
	fi
	mkdir -p "$dir/bin" "$dir/lib"
	strip --strip-debug -o "$dir/bin/python$m" "$home/bin/python$m" &&
		strip --strip-debug -o "$dir/lib/libpython$m.so.1.0" "$home/lib/libpython$m.so.1.0" || fail "strip pyenv $v"
	! readelf -S "$dir/lib/libpython$m.so.1.0" | grep -q '\.debug_info' || fail "pyenv $v: still has .debug_info"
	counted=$tested
	untuned "pyenv $v, stripped" "$dir/lib/libpython$m.so.1.0" "$dir/bin/python$m" || counted=-1
	note "pyenv $v, stripped: build id $(build_id "$dir/lib/libpython$m.so.1.0")"
	run_build "pyenv $v, stripped" "${m#3.}" "python$m" "$dir/bin/python$m" "fp dwarf" PYTHONHOME="$home" \
		LD_LIBRARY_PATH="$dir/lib"
	[ "$counted" -ge 0 ] || tested=$((tested - 1))
done

for s in "${skipped[@]}"; do note "not tested: $s"; done
[ "$tested" -gt 0 ] || skip "no build to test: ${skipped[*]}"
[ "$tested" -ge 4 ] || note "only $tested builds tested (4 wanted where they can be had)"
pass "$tested builds nobody tuned for, with -g and --call-graph dwarf: verified frames, shares, callers"
