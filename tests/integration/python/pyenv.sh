# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the tests of other CPython builds (versions.sh, lines.sh): pyenv's
# builds (/root/.pyenv/versions/X.Y.Z, each libpython3.X.so with its DWARF), run by
# the test user through a bind mount of the version's directory under $TMP (root's
# home is not theirs to enter), recorded with --call-graph dwarf by uid.
. "$(dirname "${BASH_SOURCE[0]}")/nodebug.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_root
PYENV_VERSIONS=${PYENV_ROOT:-/root/.pyenv}/versions
PYUSER=prof_pyv_$$
make_user "$PYUSER"
mkdir -p "$TMP/pub" && chmod 755 "$TMP" "$TMP/pub"

# pyenv_mount VERSION: the version's interpreter reachable by the user, as $PY
# ($PYCOMM its comm); false when that version is not installed.
pyenv_mount() {
	local v=$1 m=${1%.*} dir=$TMP/py-$1
	[ -x "$PYENV_VERSIONS/$v/bin/python$m" ] || return 1
	mkdir -p "$dir" && chmod 755 "$dir"
	mount --bind "$PYENV_VERSIONS/$v" "$dir" || fail "bind mount of $PYENV_VERSIONS/$v"
	cleanup_hooks+=("umount -l '$dir'")
	PY=$dir/bin/python$m
	PYCOMM=python$m
	# its libpython by the mount's path (its RUNPATH is under /root)
	export LD_LIBRARY_PATH=$dir/lib
}

# pyv_record OUT PROGRAM [ARGS...]: the user's run of PROGRAM under $PY, recorded;
# the summary in $TMP/summary.
pyv_record() {
	local out=$1 prog=$2; shift 2
	"$PROF" record --uid "$PYUSER" --call-graph dwarf -F 4000 -v -o "$out" -- "$PY" "$prog" "$@" \
		2>"$TMP/summary" >/dev/null ||
		fail "prof record: $(tail -5 "$TMP/summary")"
	grep -E '^prof: Python' "$TMP/summary" | sed 's/^/# /'
}

# pyv_folded FILE OUT: prof report's stacks of $PY's process, folded, "(file:N)"
# and "[python: ...]" frames as named again (folded writes spaces as _).
pyv_folded() {
	"$PROF" report -i "$1" -F folded -g --comm "$PYCOMM" >"$TMP/folded.raw" 2>"$TMP/err" ||
		fail "prof report: $(cat "$TMP/err")"
	sed -E -e 's/_\(/ (/g' -e 's/:def_([0-9]+)\)/:def \1)/g' \
		-e 's/\[python:_callers_not_proven\]/[python: callers not proven]/g' \
		-e 's/\[python:_unverified\]/[python: unverified]/g' "$TMP/folded.raw" >"$2"
}
