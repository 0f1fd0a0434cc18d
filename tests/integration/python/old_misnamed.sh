#!/usr/bin/env bash
# CPython 3.8-3.10 export no Py_Version: prof takes the version from the
# library's name and checks it against the build.  pyenv's 3.9.18 libpython,
# copied under the name of 3.10 (its DWARF has co_lnotab, not 3.10's
# co_linetable) and of 3.8 (its DWARF passes f in rsi, not 3.8's rdi), and loaded
# by python3.9 through a symlink of the name it needs: no Python frames, and the
# summary says which check failed.  3.9.18 not installed: SKIP.
. "$(dirname "$0")/pyenv.sh"
cat >"$TMP/pub/spin.py" <<'PY'
import sys, time
def spin():
    end = time.time() + float(sys.argv[1])
    while time.time() < end: pass
spin()
PY
pyenv_mount 3.9.18 || skip "pyenv's 3.9.18 is not installed under $PYENV_VERSIONS"
for as in 3.10 3.8; do
	case $as in
	3.10) want="its DWARF's PyCodeObject.co_linetable is -1 where CPython 3.10" ;;
	3.8) want="CPython 3.8 \(by its name\): its DWARF does not say the eval function gets f in rdi" ;;
	esac
	lib=$TMP/pub/as-$as
	mkdir -p "$lib" && chmod 755 "$lib"
	cp "$PYENV_VERSIONS/3.9.18/lib/libpython3.9.so.1.0" "$lib/libpython$as.so.1.0"
	ln -sf "libpython$as.so.1.0" "$lib/libpython3.9.so.1.0"
	export LD_LIBRARY_PATH=$lib
	F=$TMP/as-$as.data
	pyv_record "$F" "$TMP/pub/spin.py" 1
	grep -qE "^prof: Python: no Python frames for 1 interpreter\(s\): $lib/libpython$as\.so\.1\.0: .*$want" \
		"$TMP/summary" || fail "3.9 named $as: not refused as expected: $(grep -i python "$TMP/summary")"
	pyv_folded "$F" "$TMP/as-$as.folded"
	grep -q 'spin\.py' "$TMP/as-$as.folded" && fail "3.9 named $as: Python frames shown"
	note "3.9 named $as: $(sed -nE 's/^prof: Python: no Python frames for 1 interpreter\(s\): //p' "$TMP/summary")"
done
pass "3.9's libpython named 3.10 or 3.8: refused by its own DWARF, no Python frames"
