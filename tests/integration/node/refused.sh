#!/usr/bin/env bash
# What src/node must refuse, with one line naming the object and why, never a frame:
# copies of the machine's node whose V8 metadata was spoiled (patch_meta.py: V8 never
# reads it, so each copy still runs): a frame slot moved off its word, an item prof
# needs renamed away, a tag flipped, every v8dbg_ symbol hidden (a node built without
# postmortem metadata).  prof-node-probe describe must exit 2 with that one line;
# a process with no node at all: 77.
. "$(dirname "$0")/../lib.sh"
: "${PROF_NODE_PROBE:?PROF_NODE_PROBE must name the prof-node-probe test program}"
require_root
command -v node >/dev/null || skip "needs node"
command -v readelf >/dev/null || skip "needs readelf (binutils)"
HERE=$(cd "$(dirname "$0")" && pwd)
pids=()
cleanup_hooks+=('for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait')

# Where the machine's node keeps V8's metadata: the executable (node 20's official
# builds), or libnode.so (Debian 12's nodejs 18: /usr/bin/node is a small program);
# that object is the one copied and spoiled, node run with the copy.
NODE=$(command -v node)
META=$NODE
if ! readelf -W --dyn-syms "$NODE" | grep -q ' v8dbg_'; then
	META=$(ldd "$NODE" | awk '$1 ~ /^libnode\.so/ { print $3; exit }')
	[ -n "$META" ] && readelf -W --dyn-syms "$META" | grep -q ' v8dbg_' ||
		skip "$NODE and its libraries hold no V8 metadata to spoil"
fi
OBJ=$(basename "$META")
OBJ_RE=$(printf '%s' "$OBJ" | sed 's/[.]/\\./g')

# refused PATCH PATTERN: a copy of node spoiled by patch_meta.py PATCH, refused in one
# line matching /OBJECT: PATTERN (OBJECT: the copy's file name)
refused() {
	local patch=$1 pattern="/$OBJ_RE: $2" pid rc dir
	dir=$(mktemp -d "$TMP/node.XXXX")
	cp "$META" "$dir/$OBJ" || fail "copy $META"
	python3 "$HERE/patch_meta.py" "$dir/$OBJ" $patch || fail "patch_meta.py $patch"
	if [ "$META" = "$NODE" ]; then
		"$dir/node" -e 'console.log("ready"); setInterval(() => {}, 1000)' >"$TMP/out" 2>&1 &
	else
		LD_LIBRARY_PATH=$dir "$NODE" -e 'console.log("ready"); setInterval(() => {}, 1000)' >"$TMP/out" 2>&1 &
	fi
	pid=$!
	pids+=("$pid")
	for _ in $(seq 100); do grep -q ready "$TMP/out" && break; sleep 0.1; done
	grep -q ready "$TMP/out" || fail "node spoiled by $patch did not start: $(cat "$TMP/out")"
	"$PROF_NODE_PROBE" describe "$pid" >"$TMP/describe" 2>"$TMP/err"
	rc=$?
	kill "$pid"; wait "$pid" 2>/dev/null
	rm -rf "$dir"
	[ "$rc" -eq 2 ] || fail "$patch: exit $rc, not 2 (refused): $(cat "$TMP/describe" "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$patch: not one line: $(cat "$TMP/err")"
	grep -qE "$pattern" "$TMP/err" || fail "$patch: the line does not say why ($pattern): $(cat "$TMP/err")"
	note "$(cat "$TMP/err")"
}

refused "value off_fp_function -12" \
	'a V8 prof cannot check: its v8dbg_off_fp_function is -12: a frame slot is an aligned word below'
refused "rename class_SharedFunctionInfo__name_or_scope_info__Object" \
	'a V8 prof cannot check: its V8 metadata has no v8dbg_class_SharedFunctionInfo__name_or_scope_info__Object'
refused "value HeapObjectTag 3" 'a V8 prof cannot check: its v8dbg_HeapObjectTag is 3'
refused "same type_Script__SCRIPT_TYPE type_JSFunction__JS_FUNCTION_TYPE" \
	'a V8 prof cannot check: its v8dbg_type_Script__SCRIPT_TYPE is [0-9]+: two kinds of object share'
refused "hide" "a node without V8's postmortem metadata"
"$PROF_NODE_PROBE" describe $$ >/dev/null 2>&1
[ $? -eq 77 ] || fail "a process with no node was not told apart"
pass "spoiled metadata refused in one line naming the item; a node without metadata and a process without node told apart"
