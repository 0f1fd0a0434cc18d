#!/usr/bin/env bash
# A Java program of known profile, recorded by a tenant (--uid) with -g and with
# --call-graph dwarf, and JFR on the same run.  Shares.java: sixty(), thirty() and
# ten() spin 6, 3 and 1 ms of the thread's own CPU time in turns, from the JVM's
# start (interpreted first, C2-compiled later).  For each mode:
#   - each method's share of the main thread's samples that name one of the three
#     (the innermost of them: its own time and its callees') within 3 points of its
#     truth, in prof report and in perf script of the same file; within 5 points of
#     JFR's (jdk.ExecutionSample at 1 ms, `jfr print`, the same rule) on the same run;
#   - 0 wrong names.  The decoys: helper() is called from sixty() and thirty(), each
#     on a line of its own; Left.work and Right.work are one name in two classes;
#     ten() is deoptimized (an uncommon trap, -XX:+PrintCompilation shows it made not
#     entrant) and compiled again halfway.  Wrong: a method the program does not
#     have, a frame under a caller it does not have (helper under ten, Left.work under
#     thirty, anything above helper or work), a call site's line other than the call's,
#     a line outside the method;
#   - the VM's own threads (JIT compilers, VM thread, GC) rooted at their role
#     ("[jvm: JIT compiler (C2)]"), by the names HotSpot gives them, never with a
#     Java frame;
#   - another tenant's JVM (Neighbour) running beside it: none of its names in the
#     first tenant's file, its perf script, prof report or the object of the names.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

JDK17=/usr/lib/jvm/java-17-openjdk-amd64
[ -x "$JDK17/bin/javac" ] && [ -x "$JDK17/bin/jfr" ] || skip "needs openjdk-17-jdk-headless (scripts/dev's test packages)"
USER_=profjsh
OTHER=profjsho
make_user "$USER_"
make_user "$OTHER"
mkdir -p "$TMP/pub/classes" "$TMP/pub/jfr"
chmod 755 "$TMP" "$TMP/pub"
chown "$USER_" "$TMP/pub/jfr"
SRC=$(dirname "$0")/Shares.java
cp "$SRC" "$TMP/Shares.java" || fail "copy Shares.java"
"$JDK17/bin/javac" -d "$TMP/pub/classes" "$TMP/Shares.java" "$(dirname "$0")/Neighbour.java" || fail "javac failed"
# JFR's profile settings, Java samples every 1 ms (the default 10 ms gives too few)
sed -E 's|(<setting name="period" control="method-sampling-java-interval">)[^<]*<|\11 ms<|' \
	"$JDK17/lib/jfr/profile.jfc" >"$TMP/pub/fast.jfc"
grep -q 'method-sampling-java-interval">1 ms<' "$TMP/pub/fast.jfc" || fail "JFR's profile.jfc has no Java sampling period to set"
chmod -R a+rX "$TMP/pub"
SECS=8
perf_lost_ok=1  # dwarf at 1 kHz loses records on a loaded host: prof and perf read the same file

# shares WHO FOLDED|JFR KIND: "sixty thirty ten total" and the wrong names (printed),
# exit 1 if any
shares() {
	python3 - "$1" "$2" "$3" "$TMP/Shares.java" <<'PY'
import re, sys
who, path, kind, src = sys.argv[1:5]
lines = open(src).read().split("\n")
# each method's lines (1-based, inclusive): from its declaration to its closing brace
ranges, cls = {}, None
for i, l in enumerate(lines, 1):
    m = re.match(r"\s*(?:public )?class (\w+)", l)
    if m:
        cls = m[1]
    m = re.match(r"\s*(?:public )?static \w+ (\w+)\(", l)
    if m:
        end = i
        if l.count("{") != l.count("}"):
            indent = len(l) - len(l.lstrip())
            end = next(j for j in range(i + 1, len(lines) + 1) if lines[j - 1] == " " * indent + "}")
        ranges[f"{cls}.{m[1]}"] = (i, end)
# the class's static initializer: its static fields' initial values
ranges["Shares.<clinit>"] = (next(i for i, l in enumerate(lines, 1) if "static final ThreadMXBean T" in l),) * 2
def at(text, method):     # the line of TEXT inside METHOD
    a, b = ranges[method]
    return next(j for j in range(a, b + 1) if text in lines[j - 1])
calls = {   # callee: {caller: call line}
    "Shares.helper": {"Shares.sixty": at("helper(s)", "Shares.sixty"), "Shares.thirty": at("helper(s)", "Shares.thirty")},
    "Left.work": {"Shares.sixty": at("Left.work(s)", "Shares.sixty")},
    "Right.work": {"Shares.thirty": at("Right.work(s)", "Shares.thirty")},
    "Shares.sixty": {"Shares.main": at("sixty(6", "Shares.main")},
    "Shares.thirty": {"Shares.main": at("thirty(3", "Shares.main")},
    "Shares.ten": {"Shares.main": at("ten(1", "Shares.main")},
}
leaves = ("Shares.helper", "Left.work", "Right.work")
three = ("Shares.sixty", "Shares.thirty", "Shares.ten")
JAVA = re.compile(r"^([\w$.]+)\.([\w$<>]+) \(([\w$]+\.java)(?::(\d+))?\)$")

stacks = []   # (count, [(name, line)], leaf first...) root first
if kind == "folded":
    for line in open(path):
        stack, _, count = line.rstrip("\n").rpartition(" ")
        frames = stack.split(";")
        if frames[0] != "java":
            if "Neighbour" in stack:
                stacks.append((int(count), [("Neighbour", None, True)]))
            continue
        out = []
        for f in frames[1:]:
            m = JAVA.match(f)
            out.append((f"{m[1]}.{m[2]}", int(m[4]) if m[4] else None, True) if m else (f, None, False))
        stacks.append((int(count), out))
else:   # jfr print: frames innermost first
    for block in open(path).read().split("jdk.ExecutionSample {")[1:]:
        if 'sampledThread = "main"' not in block:
            continue
        out = []
        for f in re.findall(r"^\s{4}(\S.*)$", block, re.M):
            m = re.match(r"([\w$.]+)\.([\w$<>]+)\(.*?\)(?: line: (\d+))?", f)
            out.append((f"{m[1]}.{m[2]}", int(m[3]) if m[3] else None, True) if m else (f, None, False))
        stacks.append((1, out[::-1]))

n = {k: 0 for k in three}
wrong = 0
def bad(msg, c):
    global wrong
    print(f"# WRONG {who}: {msg}")
    wrong += c
for c, frames in stacks:
    for i, (name, line, me) in enumerate(frames):
        if "Neighbour" in name:
            bad(f"another tenant's method {name}", c)
        if me and i > 0 and frames[i - 1][2] and frames[i - 1][0] in leaves:
            bad(f"{name} above {frames[i - 1][0]}, which calls nothing", c)
        if not name.startswith(("Shares.", "Left.", "Right.")):
            continue
        if name not in ranges:
            bad(f"a method the program does not have: {name}", c)
            continue
        if line is not None and not ranges[name][0] <= line <= ranges[name][1]:
            bad(f"{name} at line {line}, outside its lines {ranges[name]}", c)
        caller, cline, java = frames[i - 1] if i > 0 else (None, None, False)
        if not java:        # a native frame, a marker ([java: ...]): no caller shown
            continue
        if name in calls:
            if caller not in calls[name]:
                bad(f"{name} under {caller}", c)
            elif cline is not None and cline != calls[name][caller]:
                bad(f"{name} under {caller} at line {cline}, not its call's {calls[name][caller]}", c)
    mine = [f for f, _, _ in frames if f in three]
    if mine:
        n[mine[-1]] += c
total = sum(n.values())
print(" ".join(f"{100 * n[k] / max(total, 1):.1f}" for k in three), total)
sys.exit(1 if wrong else 0)
PY
}

# run MODE TAG: one recorded run with JFR, another tenant's JVM beside it; the shares
# and the wrong names of prof report, perf script and JFR
run() {
	local mode=$1 tag=$2 F=$TMP/$2.data
	runuser -u "$OTHER" -- "$JDK17/bin/java" -cp "$TMP/pub/classes" Neighbour $((SECS + 6)) >/dev/null 2>&1 &
	local other=$! op
	sleep 1
	op=$(pgrep -u "$OTHER" -x java | head -n 1)
	[ -n "$op" ] || fail "$tag: the other tenant's JVM is not running"
	# shellcheck disable=SC2086
	"$PROF" record --uid "$USER_" $mode -F 1000 -o "$F" -- \
		"$JDK17/bin/java" -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,Shares::helper \
		-XX:CompileCommand=dontinline,Left::work -XX:CompileCommand=dontinline,Right::work \
		-XX:+PrintCompilation -XX:StartFlightRecording=filename="$TMP/pub/jfr/$tag.jfr,settings=$TMP/pub/fast.jfc" \
		-cp "$TMP/pub/classes" Shares "$SECS" >"$TMP/$tag.out" 2>"$TMP/summary" ||
		fail "$tag: prof record: $(tail -5 "$TMP/summary")"
	wait "$other" || true
	grep -E '^prof: Java' "$TMP/summary" | sed "s/^/# $tag: /"
	# the decoy did decoy: ten's C2 code (its own or its loop's, on-stack replacement:
	# "%" before the tier) made not entrant, then ten compiled again (by C1 first, then
	# C2 if the host leaves its compiler the time).  Said, not failed, when it did not:
	# on a loaded host C2 may not have compiled ten before the trap's time (5/8 of the
	# run, main()'s clock), and runs were seen where its code, compiled, was not made
	# not entrant (cause not found); the names are checked all the same.
	local decoy
	decoy=$(awk -v before=$((SECS * 1000 * 5 / 8)) '!/Shares::ten / { next } { tier = ($3 == "%") ? $4 : $3 }
		tier == 4 && $1 < before { c2 = 1 }
		$NF == "entrant" && tier == 4 && !t { t = $1; next } t && $1 >= t && !/not entrant/ { ok = 1 }
		END { print ok ? "ok" : c2 ? "missed" : "no-c2" }' "$TMP/$tag.out")
	case $decoy in
	ok) note "$tag: ten() deoptimized and compiled again during the recording" ;;
	no-c2) note "$tag: C2 had not compiled ten() before its trap on this loaded host: no deoptimization to decoy" ;;
	*) note "$tag: ten()'s C2 code was not deoptimized in this run (decoy not triggered): $(grep -F 'Shares::ten' "$TMP/$tag.out" | tail -3 | tr -s ' ' | tr '\n' ';')" ;;
	esac

	prof_folded "$F" "$TMP/pf.txt"
	sed -E 's/_\(/ (/g; s/\[java:_/[java: /g' "$TMP/pf.txt" >"$TMP/$tag.prof"
	perf_folded "$F" "$TMP/$tag.perf"
	"$JDK17/bin/jfr" print --events jdk.ExecutionSample --stack-depth 64 "$TMP/pub/jfr/$tag.jfr" >"$TMP/$tag.jfr.txt" ||
		fail "$tag: jfr print"
	local p q j
	p=$(shares "prof report $tag" "$TMP/$tag.prof" folded) || fail "$tag: prof report named wrong frames: $p"
	q=$(shares "perf script $tag" "$TMP/$tag.perf" folded) || fail "$tag: perf script named wrong frames: $q"
	j=$(shares "JFR $tag" "$TMP/$tag.jfr.txt" jfr) || fail "$tag: JFR's stacks: $j"
	note "$tag: sixty thirty ten (%) and samples: prof report $p; perf script $q; JFR $j (truth 60 30 10)"
	python3 - "$tag" "$p" "$q" "$j" <<'PY' || fail "$tag: shares off (above)"
import sys
tag, p, q, j = sys.argv[1], *[list(map(float, a.split())) for a in sys.argv[2:]]
ok = True
for who, s in (("prof report", p), ("perf script", q)):
    if s[3] < 1000:
        print(f"# {tag} {who}: only {s[3]:.0f} samples name sixty, thirty or ten"); ok = False
    for k, t in enumerate((60, 30, 10)):
        if abs(s[k] - t) > 3:
            print(f"# {tag} {who}: {('sixty', 'thirty', 'ten')[k]} {s[k]} %, truth {t}"); ok = False
        if abs(s[k] - j[k]) > 5:
            print(f"# {tag} {who}: {('sixty', 'thirty', 'ten')[k]} {s[k]} %, JFR {j[k]}"); ok = False
if j[3] < 200:
    print(f"# {tag}: JFR has only {j[3]:.0f} samples"); ok = False
sys.exit(0 if ok else 1)
PY
	# of the main thread's samples, how many name a method of the program (the rest: JFR's
	# start and sampler, the clock's native code with -g, the first samples of each compile)
	local all named
	all=$(awk '$0 ~ /^java;/ { n += $NF } END { print n + 0 }' "$TMP/$tag.prof")
	named=$(awk '$0 ~ /^java;/ && /Shares\./ { n += $NF } END { print n + 0 }' "$TMP/$tag.prof")
	note "$tag: $named of $all main-thread samples ($(pct "$named" "$all") %) name a method of Shares"
	[ "$((named * 100))" -ge "$((all * 70))" ] || fail "$tag: only $named of $all main-thread samples name a method of Shares"

	# the VM's own threads: their samples with user frames and no Java frame rooted at
	# their role, never one with a Java frame
	python3 - "$TMP/$tag.prof" "$tag" <<'PY' || fail "$tag: the VM's threads' roles wrong (above)"
import re, sys
want = {"C1 CompilerThre": "[jvm: JIT compiler (C1)]", "C2 CompilerThre": "[jvm: JIT compiler (C2)]",
        "VM Thread": "[jvm: VM thread]"}
roles, bad = {}, 0
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames = [f.replace("_", " ") if i < 2 else f for i, f in enumerate(stack.split(";"))]
    for i, f in enumerate(frames):
        if not f.startswith("[jvm:"):
            continue
        roles[f] = roles.get(f, 0) + int(count)
        java = [g for g in frames if re.search(r"\.java(:\d+)?\)$", g) or g.startswith("[java")]
        if i != 1 or java or (frames[0] in want and want[frames[0]] != f):
            print(f"# WRONG: {stack[:300]}")
            bad += 1
print(f"# {sys.argv[2]}: the VM's own threads' samples by role: " + ", ".join(f"{k} {v}" for k, v in sorted(roles.items())))
sys.exit(1 if bad or not any(k.startswith("[jvm: JIT compiler") for k in roles) else 0)
PY

	# the other tenant: nowhere in the file, its readers or the names' object
	"$PROF" report -i "$F" >"$TMP/$tag.text" 2>&1 || fail "$tag: prof report: $(tail -3 "$TMP/$tag.text")"
	"$PERF" script -i "$F" -F comm,pid,ip,sym >"$TMP/$tag.script" 2>/dev/null || fail "$tag: perf script"
	! grep -l 'Neighbour\|neighbourSpin' "$F" "$TMP/$tag.text" "$TMP/$tag.script" || fail "$tag: another tenant's method in the file"
	local bid obj
	bid=$("$PERF" buildid-list -i "$F" 2>/dev/null | awk '$2 == "/prof/java-frames" { print $1; exit }')
	[ -n "$bid" ] || fail "$tag: no /prof/java-frames in the file's build ids"
	obj=$HOME/.debug/.build-id/${bid:0:2}/${bid:2}/elf
	[ -e "$obj" ] || fail "$tag: the names' object $obj is not in the build-id cache"
	strings "$obj" | grep -q 'Shares\.sixty' || fail "$tag: the names' object has no Shares.sixty"
	! strings "$obj" | grep -q 'Neighbour' || fail "$tag: another tenant's method in the names' object"
	# (a sample's first line: "COMM PID", its frames indented below)
	grep -v '^[[:space:]]' "$TMP/$tag.script" | awk '{ print $NF }' | grep -qx "$op" && fail "$tag: the other tenant's JVM's samples in the file"
	note "$tag: the other tenant's JVM (Neighbour) is in none of it"
}

run "--call-graph dwarf" dwarf
run -g g
pass "Java shares within 3 points of 60/30/10 with dwarf and -g, within 5 of JFR's on the same run; 0 wrong names; the other tenant's JVM absent"
