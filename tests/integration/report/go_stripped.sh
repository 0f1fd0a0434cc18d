#!/usr/bin/env bash
# A Go program stripped of its symbol table (-ldflags="-s -w"), and a copy stripped
# of its section headers too, each also built position-independent (-buildmode=pie,
# with -g only), is named by its own .gopclntab: >= 95 % of its
# samples named, the same names as the unstripped build's, with -g and with
# --call-graph dwarf; perf report of prof's file names them too (the symbol table
# prof record keeps as the program's debug file in ~/.debug); -F pprof has the
# lines of go_hot.go; -g stacks show main.mix inlined into main.betaWork (the
# table's inline tree); a table whose header or function count is corrupted names
# nothing ([unknown]), never a wrong name.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v go >/dev/null || skip "needs go (Debian package golang-go, in scripts/dev's test packages)"
command -v gcc >/dev/null || skip "needs gcc (go's external linking)"

src=$(cd "$(dirname "$0")/../../programs" && pwd)/go_hot.go
export GOCACHE=$TMP/gocache GOPATH=$TMP/gopath GOFLAGS=-mod=mod GO111MODULE=off
export HOME=$TMP/home
mkdir -p "$HOME"
bid=$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')
go build -o "$TMP/go-full" "$src" || fail "go build (unstripped)"
# Go's own linker writes a GNU build id only when asked (-B): perf finds debug files by it
go build -ldflags="-s -w -B 0x$bid" -o "$TMP/go-stripped" "$src" || fail "go build -s -w"
# external linking puts the build id in a PT_NOTE: it survives losing the section headers
go build -ldflags="-s -w -linkmode=external" -o "$TMP/go-ext" "$src" || fail "go build -linkmode=external"
# position-independent: the table is in .data.rel.ro.gopclntab, a RELRO segment
bid2=$(head -c 20 /dev/urandom | od -An -tx1 | tr -d ' \n')
go build -buildmode=pie -ldflags="-s -w -B 0x$bid2" -o "$TMP/go-pie" "$src" || fail "go build -buildmode=pie"
python3 - "$TMP" <<'PY' || fail "making the variants"
import struct, sys
tmp = sys.argv[1]
for src, dst in (("go-ext", "go-noshdr"), ("go-pie", "go-pienoshdr")):
    b = bytearray(open(f"{tmp}/{src}", "rb").read())
    b[0x28:0x30] = bytes(8)         # e_shoff
    b[0x3c:0x40] = bytes(4)         # e_shnum, e_shstrndx
    open(f"{tmp}/{dst}", "wb").write(b)
# the table's header at .gopclntab: magic, then nfunc (a pointer-sized word at 8)
s = bytearray(open(f"{tmp}/go-stripped", "rb").read())
shoff, = struct.unpack_from("<Q", s, 0x28)
shnum, shstrndx = struct.unpack_from("<HH", s, 0x3c)
sh = lambda i: struct.unpack_from("<IIQQQQIIQQ", s, shoff + 64 * i)
stroff = sh(shstrndx)[4]
for i in range(shnum):
    h = sh(i)
    name = s[stroff + h[0]:s.index(b"\0", stroff + h[0])]
    if name == b".gopclntab":
        at = h[4]
for v, (off, x) in {"magic": (0, 0x04), "count": (8, 0x02), "count2": (9, 0x01)}.items():
    c = bytearray(s)
    c[at + off] ^= x
    open(f"{tmp}/bad-{v}.bytes", "wb").write(c)
PY
readelf -SW "$TMP/go-stripped" | grep -q '\.symtab' && fail "go build -s -w left a .symtab"
readelf -SW "$TMP/go-noshdr" 2>&1 | grep -q 'no sections' || fail "the copy still has section headers"
chmod +x "$TMP"/go-*

share() { named_share "$1" "$2"; }
for v in full stripped noshdr pie pienoshdr; do
	for cg in fp dwarf; do
		[ "$cg" = dwarf ] && [ "${v#pie}" != "$v" ] && continue
		"$PROF" record -q --call-graph "$cg" -o "$TMP/$v-$cg.data" -- "$TMP/go-$v" 2 2>"$TMP/err" >/dev/null ||
			fail "prof record go-$v ($cg): $(cat "$TMP/err")"
		"$PROF" report -i "$TMP/$v-$cg.data" --sort dso,sym -F json >"$TMP/$v-$cg.json" 2>"$TMP/err" ||
			fail "prof report go-$v: $(cat "$TMP/err")"
		read -r n named top <<<"$(share "$TMP/$v-$cg.json" "go-$v")"
		note "go-$v ($cg): $named of $n samples named ($(pct "$named" "$n") %): ${top}"
		[ "$n" -ge 200 ] || fail "go-$v ($cg): only $n samples"
		[ $((named * 100)) -ge $((n * 95)) ] || fail "go-$v ($cg): $named of $n named, < 95 %"
		echo "$top" >"$TMP/top-$v-$cg"
		[ "$v" = full ] || cmp -s "$TMP/top-full-$cg" "$TMP/top-$v-$cg" ||
			fail "go-$v ($cg) names its hot functions '$top', the unstripped build '$(cat "$TMP/top-full-$cg")'"
	done
done
[ "$(cat "$TMP/top-full-fp")" = "main.alphaWork main.betaWork" ] || fail "the unstripped build's: $(cat "$TMP/top-full-fp")"

# pprof: Go's own fields (Function.filename, Line.line) from the table, as go tool pprof reads them
"$PROF" report -i "$TMP/stripped-fp.data" -g -F pprof -o "$TMP/stripped.pb.gz" 2>"$TMP/err" || fail "prof report -F pprof: $(cat "$TMP/err")"
go tool pprof -top -lines "$TMP/stripped.pb.gz" >"$TMP/pprof.top" 2>"$TMP/err" || fail "go tool pprof: $(cat "$TMP/err")"
# the loop bodies' lines of go_hot.go: alphaWork's 14-17, betaWork's 28-31
grep -Eq 'main\.alphaWork .*/go_hot\.go:1[4-7]$' "$TMP/pprof.top" &&
	grep -Eq 'main\.betaWork .*/go_hot\.go:(2[89]|3[01])$' "$TMP/pprof.top" ||
	fail "pprof has no go_hot.go lines: $(head -20 "$TMP/pprof.top")"

# inlined frames from the table's inline tree (Go 1.18-1.19): mix, inlined into
# betaWork, a frame of its own in -g stacks (folded: "main.mix_(inlined)"), as the
# unstripped build shows it too
for v in full stripped noshdr pie pienoshdr; do
	"$PROF" report -i "$TMP/$v-fp.data" -g -F folded >"$TMP/$v.folded" 2>"$TMP/err" || fail "prof report -F folded: $(cat "$TMP/err")"
	grep -q ';main\.betaWork;main\.mix_(inlined) [0-9]*$' "$TMP/$v.folded" ||
		fail "go-$v: no main.mix (inlined) under main.betaWork: $(grep betaWork "$TMP/$v.folded" | head -5)"
done

# perf report of prof's file: the debug file prof record kept names them
for v in stripped noshdr pie; do
	perf_clean "$TMP/$v.perf" report -i "$TMP/$v-fp.data" --stdio --no-children --sort dso,sym -g none -F sample,dso,sym -t '|'
	python3 - "$TMP/$v.perf" "go-$v" <<'PY' || fail "perf report of prof's file (go-$v)"
import sys
n = named = 0
syms = {}
for line in open(sys.argv[1]):
    f = line.rstrip("\n").split("|")
    if len(f) >= 3 and f[0].strip().isdigit() and f[1].strip() == sys.argv[2]:
        c, s = int(f[0]), f[2].strip()[4:]
        n += c
        if not s.startswith("0x") and s != "[unknown]":
            named += c
            syms[s] = syms.get(s, 0) + c
print(f"# perf report: {named} of {n} named: {sorted(syms, key=syms.get, reverse=True)[:2]}")
assert n >= 200 and named * 100 >= n * 95, f"{named} of {n} named"
assert set(sorted(syms, key=syms.get, reverse=True)[:2]) == {"main.alphaWork", "main.betaWork"}, syms
PY
done
for b in "$bid" "$bid2"; do
	ls "$HOME"/.debug/.build-id/"${b:0:2}"/"${b:2}"/debug >/dev/null || fail "no debug file kept for build id $b"
done

# a corrupted table names nothing of the program, never a wrong name.  Go's runtime
# refuses to start with a bad table, so the program recorded is the good one, and
# the file at its path is then overwritten by the corrupted bytes (same build id)
rm -rf "$HOME/.debug"
for v in magic count count2; do
	cp "$TMP/go-stripped" "$TMP/go-bad"
	"$PROF" record -q -g -o "$TMP/bad-$v.data" -- "$TMP/go-bad" 1 2>"$TMP/err" >/dev/null ||
		fail "prof record go-bad ($v): $(cat "$TMP/err")"
	rm -rf "$HOME/.debug"
	cat "$TMP/bad-$v.bytes" >"$TMP/go-bad"
	"$PROF" report -i "$TMP/bad-$v.data" --sort dso,sym -F json >"$TMP/bad-$v.json" 2>"$TMP/err" ||
		fail "prof report go-bad ($v): $(cat "$TMP/err")"
	read -r n named top <<<"$(share "$TMP/bad-$v.json" go-bad)"
	note "go-bad ($v): $named of $n samples named ${top}"
	[ "$n" -ge 100 ] && [ "$named" -eq 0 ] || fail "go-bad ($v): $named of $n samples named ($top)"
done
# the control: the same recording with the good bytes back at the path is named
cat "$TMP/go-stripped" >"$TMP/go-bad"
"$PROF" report -i "$TMP/bad-count2.data" --sort dso,sym -F json >"$TMP/good.json" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
read -r n named top <<<"$(share "$TMP/good.json" go-bad)"
[ $((named * 100)) -ge $((n * 95)) ] || fail "the good table restored names $named of $n samples"
pass "stripped Go named by its .gopclntab: by prof (fp, dwarf, without section headers) and perf report of prof's file; a corrupted table names nothing"
