#!/usr/bin/env bash
# Python frames in prof report -F json: with -g, each stack's frames of prof's
# Python object say "python": true, and a function's frame has its qualname, file
# and def line (or line) as members of their own, as pprof's fields have them; the
# 60/30/10 program's sixty(), thirty() and ten() are found with their def lines
# 2, 5, 8 and their shares within 5 points; the markers have no function; rows
# (no -g) are as before, with no "stacks".
. "$(dirname "$0")/lib.sh"
# the 60/30/10 program: sixty, thirty and ten at def lines 2, 5 and 8
cp "$(dirname "$0")/shares.py" "$TMP/pub/json.py"
chmod 644 "$TMP/pub/json.py"
F=$TMP/json.data
py_record "$F" "$TMP/pub/json.py" 3
"$PROF" report -i "$F" -F json -g --comm python3.11 >"$TMP/g.json" 2>"$TMP/err" ||
	fail "prof report -F json -g: $(cat "$TMP/err")"
"$PROF" report -i "$F" -F json --comm python3.11 >"$TMP/rows.json" 2>"$TMP/err" ||
	fail "prof report -F json: $(cat "$TMP/err")"
python3 - "$TMP/g.json" "$TMP/rows.json" "$TMP/pub/json.py" <<'PY' || fail "the JSON's Python frames are not as built"
import json, sys
g, rows, path = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
err = []
want_def = {"sixty": 2, "thirty": 5, "ten": 8}
n = {k: 0 for k in want_def}
total = markers = 0
for s in g["stacks"]:
    inner = None
    for f in s["frames"]:
        ours = f["dso"] == "/prof/python-frames"
        if ours != bool(f.get("python")):
            err.append(f"frame {f} of {f['dso']}: python {f.get('python')}")
        if not ours:
            continue
        if f["sym"].startswith("[python: "):
            markers += 1
            if "function" in f or "file" in f:
                err.append(f"a marker with a function: {f}")
            continue
        if "function" not in f or "file" not in f or ("def_line" in f) == ("line" in f):
            err.append(f"a Python function without its fields: {f}")
            continue
        line = f"def {f['def_line']}" if "def_line" in f else str(f["line"])
        if f["sym"] != f"{f['function']} ({f['file']}:{line})":
            err.append(f"fields {f} do not make its sym")
        if f["function"] in want_def and inner is None:
            inner = f
    if inner is None:
        continue
    # its def line, or a line of its body (read at the sample instant: python/chain.h)
    d = want_def[inner["function"]]
    if inner["file"] != path or (inner.get("def_line") != d and inner.get("line") not in (d + 1, d + 2)):
        err.append(f"{inner['function']}: file {inner['file']}, def line {inner.get('def_line')}, "
                   f"line {inner.get('line')}")
    n[inner["function"]] += s["samples"]
    total += s["samples"]
shares = {k: 100 * v / max(total, 1) for k, v in n.items()}
print(f"# JSON stacks: {total} samples in them, " + ", ".join(f"{k} {v:.1f}%" for k, v in shares.items()) +
      f"; {markers} marker frames")
if total < 2000 or any(abs(shares[k] - w) > 5 for k, w in {"sixty": 60, "thirty": 30, "ten": 10}.items()):
    err.append("shares off")
if sum(s["samples"] for s in g["stacks"]) != g["samples"]:
    err.append(f"stacks hold {sum(s['samples'] for s in g['stacks'])} samples of {g['samples']}")
if "stacks" in rows or rows["samples"] != g["samples"] or not rows["rows"]:
    err.append("rows without -g changed")
for e in err[:10]:
    print("#", e)
sys.exit(1 if err else 0)
PY
# Reported with another HOME (no copy of prof's Python object in its ~/.debug): the
# frames are [unknown] and prof report says why: not found, where it looked, what to do.
mkdir -p "$TMP/otherhome"
HOME=$TMP/otherhome "$PROF" report -i "$F" -F folded >"$TMP/other.folded" 2>"$TMP/other.err" ||
	fail "prof report with another HOME: $(cat "$TMP/other.err")"
grep -q 'python-frames: not found (no copy of build id [0-9a-f]* in the build-id cache, '"$TMP"'/otherhome/.debug' "$TMP/other.err" ||
	fail "another HOME: prof report does not say the Python object's copy is not found: $(cat "$TMP/other.err")"
if grep -q 'sixty' "$TMP/other.folded"; then fail "another HOME: sixty named without its object's copy"; fi
pass "prof report -F json -g gives sixty, thirty and ten their function, file and line"
