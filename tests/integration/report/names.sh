#!/usr/bin/env bash
# Names a tenant chooses (its command names, its cgroup's name, the file's name) can
# hold any bytes: terminal escapes, invalid UTF-8, quotes, markup.  prof report's text
# and folded output must carry no raw control bytes, its JSON must parse and its SVG
# must be well-formed XML, each still naming what it shows.
. "$(dirname "$0")/../lib.sh"
require_root

root=$(cgroup2_root)
[ -n "$root" ] || skip "needs a cgroup2 mount"
make_cgroup_tree "$root/prof-names-test"
cg="$root/prof-names-test/$(printf 'c\x1b[2J<&>\xff')"
mkdir "$cg" || skip "cannot make a cgroup with such a name here"

# Two command names in turn: an OSC retitle with BEL, markup, a bad byte, a quote;
# then a CDATA end, a C1 CSI (U+009B) and DEL.
cat >"$TMP/work.sh" <<'SH'
echo $$ >"$1/cgroup.procs"
printf '\x1b]0;pwn\x07<a&\xff"' >/proc/self/comm
end=$((SECONDS + 1)); while [ $SECONDS -lt $end ]; do :; done
printf ']]>\xc2\x9b[2J\x27\x7f' >/proc/self/comm
end=$((SECONDS + 1)); while [ $SECONDS -lt $end ]; do :; done
SH
F="$TMP/$(printf 'f\x1b[2J<&\xfe.data')"
"$PROF" record -q -g -o "$F" -- bash "$TMP/work.sh" "$cg" || fail "record"

"$PROF" report -i "$F" --sort cgroup,comm,sym >"$TMP/text" || fail "text report"
"$PROF" report -i "$F" -F folded >"$TMP/folded" || fail "folded report"
"$PROF" report -i "$F" --sort cgroup,comm,sym -F json >"$TMP/json" || fail "json report"
"$PROF" report -i "$F" -F svg >"$TMP/svg" || fail "svg report"

python3 - "$TMP" <<'PY' || fail "hostile names broke an output"
import json, re, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
for kind in ("text", "folded"):
    b = open(f"{d}/{kind}", "rb").read()
    bad = re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", b)
    assert not bad, f"{kind}: a raw control byte {bad.group()!r} at {bad.start()}"
    try:
        b.decode("utf-8")
    except UnicodeDecodeError as e:
        raise AssertionError(f"{kind}: invalid UTF-8: {e}")
text = open(f"{d}/text", encoding="utf-8").read()
assert '\\x1b]0;pwn\\x07<a&\\xff"' in text, "text: the first name is not shown escaped"
assert "]]>\\xc2\\x9b[2J'\\x7f" in text, "text: the second name is not shown escaped"
assert "/prof-names-test/c\\x1b[2J<&>\\xff" in text, "text: the cgroup is not shown escaped"

j = json.loads(open(f"{d}/json", "rb").read())   # strict: no raw control characters
comms = {r["comm"] for r in j["rows"]}
assert '\x1b]0;pwn\x07<a&\ufffd"' in comms, comms
assert "]]>\x9b[2J'\x7f" in comms, comms
assert any(r["cgroup"] == "/prof-names-test/c\x1b[2J<&>\ufffd" for r in j["rows"]), [r["cgroup"] for r in j["rows"]]
assert "\ufffd" in j["file"] and "\x1b" in j["file"], j["file"]

svg = ET.parse(f"{d}/svg").getroot()          # well-formed XML 1.0
ns = "{http://www.w3.org/2000/svg}"
titles = [t.text for t in svg.iter(ns + "title")]
# the stack's ';' and ' ' are folded to '_'; characters XML cannot hold are dropped
assert any(t.startswith(']0_pwn<a&\ufffd" (') for t in titles), titles[:5]
assert any(t.startswith("]]>\x9b[2J'\x7f (") for t in titles), titles[:5]
PY
if command -v xmllint >/dev/null; then
	xmllint --noout "$TMP/svg" || fail "xmllint: the SVG is not well-formed"
fi
pass "text and folded have no raw control bytes, JSON parses, SVG is well-formed"
