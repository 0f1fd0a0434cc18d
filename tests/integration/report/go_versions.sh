#!/usr/bin/env bash
# Stripped Go of every pclntab layout, on builds fetched by the test, not the Go on
# this machine: esbuild's release binaries from npm (stripped, statically linked,
# built by its maintainers with Go 1.15 ... 1.26: esbuild-linux-64 up to 0.15,
# @esbuild/linux-x64 from 0.15.18), one or more per layout (Go 1.2-1.15, 1.16-1.17,
# 1.18-1.19, 1.20+) and npm's newest.  Each bundles and minifies a generated JS tree
# (4 MB, 200 modules) as a test user, in a loop, under prof record --uid -g (the
# newest also --call-graph dwarf).  Per version: >= 95 % of esbuild's samples named,
# >= 20 % in esbuild's own packages, and never a wrong name: every address of
# esbuild in prof's pprof export, and from Go 1.16 the inlined frames prof shows
# there, are checked against tests/integration/gopclntab.py, a reader of the same
# table written from Go's debug/gosym and runtime (and Go's line table must put
# each inlined pc in its function's own file).  perf report of prof's
# file names them too, checked the same way (perf script): esbuild's release
# binaries carry no GNU build id (Go's internal linker writes one only with -B),
# without which perf finds no debug file, so perf reads a copy given one (objcopy).
# The packages are cached by npm (~/.npm): offline after the first run.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v npm >/dev/null || skip "needs npm (Debian package npm): the Go builds come from npm's registry"
command -v objcopy >/dev/null || skip "needs objcopy (binutils)"

# version package: the Go layout each was checked to be built with
versions="0.8.0:esbuild-linux-64 0.11.0:esbuild-linux-64 0.14.0:esbuild-linux-64
0.15.18:@esbuild/linux-x64 0.19.0:@esbuild/linux-x64 0.23.0:@esbuild/linux-x64
0.25.0:@esbuild/linux-x64 0.28.2:@esbuild/linux-x64"
latest=$(timeout 60 npm view @esbuild/linux-x64 version 2>/dev/null) &&
	! grep -q "^$latest:" <<<"$(tr ' ' '\n' <<<"$versions")" && versions="$versions $latest:@esbuild/linux-x64"
mkdir -p "$TMP/npm" "$TMP/pub"
chmod 755 "$TMP" "$TMP/pub"
for vp in $versions; do
	v=${vp%%:*} pkg=${vp#*:}
	if ! (cd "$TMP/npm" && timeout 120 npm pack -q --prefer-offline "$pkg@$v" >"$TMP/npm.out" 2>"$TMP/npm.err"); then
		timeout 30 npm ping >/dev/null 2>&1 ||
			skip "npm's registry is unreachable and $pkg@$v is not in npm's cache: $(tail -1 "$TMP/npm.err")"
		fail "npm pack $pkg@$v: $(tail -3 "$TMP/npm.err")"
	fi
	mkdir -p "$TMP/npm/$v"
	tar -xzf "$TMP/npm/$(tail -1 "$TMP/npm.out")" -C "$TMP/npm/$v" || fail "unpacking $pkg@$v"
	cp "$TMP/npm/$v/package/bin/esbuild" "$TMP/pub/esb-$v" && chmod 755 "$TMP/pub/esb-$v" || fail "no bin/esbuild in $pkg@$v"
done

# the workload: 200 modules importing each other, 4 MB of JS
python3 "$(dirname "$0")/../../programs/js_tree.py" "$TMP/pub/js" || fail "generating the JS tree"
U=proftgo
make_user "$U"
mkdir -p "$TMP/pub/out" && chown "$U" "$TMP/pub/out"
chmod -R a+rX "$TMP/pub"
export HOME=$TMP/home
mkdir -p "$HOME"
G=$LIB_DIR/gopclntab.py
# workload BIN: bundle and minify the tree, for about 2.5 s
workload() {
	echo "end=\$((\$(date +%s%N) / 1000000 + 2500)); while [ \$((\$(date +%s%N) / 1000000)) -lt \$end ]; do $1 --bundle --minify --log-level=error $TMP/pub/js/entry.js --outfile=$TMP/pub/out/out.js || exit 1; done"
}
# record NAME BIN CALLGRAPH: prof record --uid of the workload, reported as json and pprof
record() {
	"$PROF" record -q --uid "$U" --call-graph "$3" -o "$TMP/$1.data" -- sh -c "$(workload "$2")" 2>"$TMP/err" >/dev/null ||
		fail "prof record $1 ($3): $(cat "$TMP/err")"
	"$PROF" report -i "$TMP/$1.data" -F pprof -o "$TMP/$1.pb.gz" 2>"$TMP/err" || fail "prof report -F pprof $1: $(cat "$TMP/err")"
}
# check NAME OBJ WHAT LAYOUT: the named share and every name of OBJ in NAME's pprof;
# from Go 1.16 the inline trees' frames too
check() {
	local n named internal checked wrong inl top
	read -r n named internal checked wrong inl top <<<"$(python3 "$G" pprof "$TMP/pub/$2" "$TMP/$1.pb.gz" "$2" 2>"$TMP/wrong")" ||
		fail "$3: prof names wrongly: $(cat "$TMP/wrong")"
	note "$3: $named of $n samples named ($(pct "$named" "$n") %), $internal in esbuild's packages; $checked addresses checked, $inl with inlined frames: $top"
	[ "$n" -ge 300 ] || fail "$3: only $n samples of esbuild"
	[ $((named * 100)) -ge $((n * 95)) ] || fail "$3: $named of $n named, < 95 %"
	[ $((internal * 100)) -ge $((named * 20)) ] || fail "$3: $internal of $named samples in github.com/evanw/esbuild/internal/"
	[ "$wrong" -eq 0 ] || fail "$3: $wrong wrong names: $(cat "$TMP/wrong")"
	case $4 in 1.16-1.17 | 1.18-1.19 | 1.20+) [ "$inl" -gt 0 ] || fail "$3: no inlined frames (Go $4 tables have inline trees)" ;; esac
}

layouts=
for vp in $versions; do
	v=${vp%%:*}
	read -r magic layout gover nfunc symtab <<<"$(python3 "$G" info "$TMP/pub/esb-$v")" || fail "esbuild $v: no Go table"
	[ "$symtab" = 0 ] || fail "esbuild $v has a .symtab: not a stripped build"
	note "esbuild $v: $gover, table $magic ($layout), $nfunc functions"
	layouts="$layouts|$layout"
	record "$v" "$TMP/pub/esb-$v" fp
	check "$v" "esb-$v" "esbuild $v ($gover, -g)" "$layout"

	# perf report of prof's file, the same build with a GNU build id
	python3 -c 'import os, struct, sys; open(sys.argv[1], "wb").write(struct.pack("<III", 4, 20, 3) + b"GNU\0" + os.urandom(20))' "$TMP/note"
	objcopy --add-section .note.gnu.build-id="$TMP/note" "$TMP/pub/esb-$v" "$TMP/pub/esbid-$v" 2>/dev/null &&
		chmod 755 "$TMP/pub/esbid-$v" || fail "objcopy esbuild $v"
	record "bid-$v" "$TMP/pub/esbid-$v" fp
	perf_lost_ok=1 perf_clean "$TMP/perf.script" script -i "$TMP/bid-$v.data" -G -F ip,sym,dso
	read -r n named wrong <<<"$(python3 "$G" perf "$TMP/pub/esbid-$v" "$TMP/perf.script" "esbid-$v" 2>"$TMP/wrong")" ||
		fail "esbuild $v: perf script of prof's file names wrongly: $(cat "$TMP/wrong")"
	note "esbuild $v: perf script of prof's file names $named of $n samples ($(pct "$named" "$n") %)"
	[ "$n" -ge 300 ] && [ $((named * 100)) -ge $((n * 95)) ] || fail "esbuild $v: perf names $named of $n"
	perf_lost_ok=1 perf_clean "$TMP/perf.txt" report -i "$TMP/bid-$v.data" --stdio --no-children --sort dso,sym -g none -F sample,dso,sym -t '|'
	read -r n named top <<<"$(named_share "$TMP/perf.txt" "esbid-$v" perf)"
	[ $((named * 100)) -ge $((n * 95)) ] || fail "esbuild $v: perf report names $named of $n"
done
for l in "1.2-1.15" "1.16-1.17" "1.18-1.19" "1.20+"; do
	grep -qF "|$l" <<<"$layouts" || fail "no build of the $l layout among those fetched"
done

# DWARF call graphs: the newest (Go's binaries have no .eh_frame: the leaf is named
# by the table, its callers as far as the stack copies reach)
v=${versions##* } v=${v%%:*}
record "dwarf-$v" "$TMP/pub/esb-$v" dwarf
check "dwarf-$v" "esb-$v" "esbuild $v (--call-graph dwarf)" "$(python3 "$G" info "$TMP/pub/esb-$v" | cut -d' ' -f2)"

# the checker can fail: the oldest build's names against the newest's table
first=${versions%% *} first=${first%%:*}
python3 "$G" pprof "$TMP/pub/esb-$v" "$TMP/$first.pb.gz" "esb-$first" >/dev/null 2>&1 &&
	fail "gopclntab.py found no wrong name in esbuild $first's profile read with $v's table"
pass "esbuild's release builds of Go 1.15 to $(python3 "$G" info "$TMP/pub/esb-$v" | cut -d' ' -f3) named by their own tables, every name checked, by prof and perf"
