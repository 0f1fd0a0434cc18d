# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by the Python tests: Debian 12's own interpreter (python3 on PATH may be
# another one), run by a throwaway user, recorded with --call-graph dwarf by uid.
. "$(dirname "${BASH_SOURCE[0]}")/nodebug.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
require_root
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "needs Debian's python3.11 (package python3.11)"
PYUSER=prof_py_$$
make_user "$PYUSER"
mkdir -p "$TMP/pub" && chmod 755 "$TMP" "$TMP/pub"

# py_record OUT PROGRAM [ARGS...]: record the user's run of PROGRAM ($TMP/pub), the
# summary in $TMP/summary.
py_record() {
	local out=$1 prog=$2; shift 2
	# the command runs as the --uid user
	"$PROF" record --uid "$PYUSER" --call-graph dwarf -F 4000 -v -o "$out" -- "$PY" "$prog" "$@" \
		2>"$TMP/summary" >/dev/null ||
		fail "prof record: $(tail -5 "$TMP/summary")"
	grep -E '^prof: Python' "$TMP/summary" | sed 's/^/# /'
}

# py_folded FILE OUT: prof report's stacks of FILE's Python process, folded, with
# "f (file:def N)" and "[python: ...]" frames as named again (folded writes spaces
# as _).
py_folded() {
	"$PROF" report -i "$1" -F folded -g --comm python3.11 >"$TMP/folded.raw" 2>"$TMP/err" ||
		fail "prof report: $(cat "$TMP/err")"
	sed -E -e 's/_\(/ (/g' -e 's/:def_([0-9]+)\)/:def \1)/g' \
		-e 's/\[python:_callers_not_proven\]/[python: callers not proven]/g' \
		-e 's/\[python:_unverified\]/[python: unverified]/g' "$TMP/folded.raw" >"$2"
}
