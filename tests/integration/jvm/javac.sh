#!/usr/bin/env bash
# A real workload: Debian's OpenJDK 17 javac compiling a generated tree of 300 classes
# (generics, lambdas, streams, one class's constants read by the next), run by a
# tenant and recorded by uid with --call-graph dwarf; another tenant's JVM beside it.
#   - the share of the JVM's samples with Java frames and with every Java frame named,
#     the [java: unverified] ones by why (the summary's line), noted: figures;
#   - every named Java frame a real method: its class in the JDK's modules image with
#     that method (javap -p), checked for every class that is there (not the JVM's
#     generated classes: lambdas, method handles' forms);
#   - perf report of prof's file names javac's own methods (com.sun.tools.javac.*);
#   - the VM's own threads (JIT compilers, GC, VM thread) rooted at their role;
#   - the other tenant's JVM in none of the file.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf

JDK17=/usr/lib/jvm/java-17-openjdk-amd64
[ -x "$JDK17/bin/javac" ] && [ -x "$JDK17/bin/javap" ] || skip "needs openjdk-17-jdk-headless (scripts/dev's test packages)"
USER_=profjvc
OTHER=profjvco
make_user "$USER_"
make_user "$OTHER"
mkdir -p "$TMP/pub/src" "$TMP/pub/out" "$TMP/pub/classes"
chmod 755 "$TMP" "$TMP/pub"
chown "$USER_" "$TMP/pub/out"
python3 - "$TMP/pub/src" 300 <<'PY' || fail "generating the tree"
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    pkg, j = f"gen.p{i % 12}", (i + 1) % n
    d = os.path.join(root, *pkg.split("."))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"C{i}.java"), "w") as f:
        f.write(f"package {pkg};\nimport java.util.*;\nimport java.util.function.*;\nimport java.util.stream.*;\n"
                f"public class C{i}<T extends Comparable<T>> implements Comparator<T> {{\n"
                f"    private final Map<String, List<T>> byName = new HashMap<>();\n"
                f"    public int compare(T a, T b) {{ return a.compareTo(b); }}\n")
        for m in range(8):
            f.write(f"    public <R> List<R> m{m}(List<T> in, Function<? super T, ? extends R> fn) {{\n"
                    f"        List<R> out = new ArrayList<>();\n"
                    f"        for (T t : in) {{ if (t.hashCode() % {m + 2} == 0) out.add(fn.apply(t)); }}\n"
                    f"        Map<Boolean, List<T>> parts = in.stream().filter(Objects::nonNull).collect(Collectors.partitioningBy(x -> x.hashCode() > {m}));\n"
                    f"        String s = \"m{m}\" + parts.size() + out.size() + gen.p{j % 12}.C{j}.K{(m + 1) % 8};\n"
                    f"        byName.computeIfAbsent(s, k -> new ArrayList<>()).addAll(in);\n"
                    f"        switch (s.length() % 3) {{ case 0: return out; case 1: return new LinkedList<>(out); default: return Collections.unmodifiableList(out); }}\n"
                    f"    }}\n"
                    f"    public static final int K{m} = {i * 8 + m};\n")
        f.write("}\n")
PY
(cd "$TMP/pub" && find src -name '*.java' | sort >files.txt)
"$JDK17/bin/javac" -d "$TMP/pub/classes" "$(dirname "$0")/Neighbour.java" || fail "javac Neighbour"
chmod -R a+rX "$TMP/pub"

F=$TMP/javac.data
runuser -u "$OTHER" -- "$JDK17/bin/java" -cp "$TMP/pub/classes" Neighbour 300 >/dev/null 2>&1 &
other=$!
cleanup_hooks+=("kill $other 2>/dev/null")
sleep 1
load=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s.%N)
(cd "$TMP/pub" && "$PROF" record --uid "$USER_" --call-graph dwarf -F 499 -o "$F" -- \
	"$JDK17/bin/javac" -d out @files.txt >"$TMP/javac.out" 2>"$TMP/summary") ||
	fail "prof record javac: $(tail -5 "$TMP/summary"; tail -5 "$TMP/javac.out")"
secs=$(echo "$(date +%s.%N) - $start" | bc)
kill "$other" 2>/dev/null
n=$(find "$TMP/pub/out" -name '*.class' | wc -l)
[ "$n" -eq 300 ] || fail "javac wrote $n classes, not 300: $(tail -5 "$TMP/javac.out")"
line=$(sed -n 's/^prof: Java: //p' "$TMP/summary")
[ -n "$line" ] || fail "no Java line in the summary: $(cat "$TMP/summary")"
note "javac of 300 classes, ${secs%.*} s, load average before $load: Java: $line"
read -r samples with verified < <(echo "$line" | sed -nE 's/^([0-9]+) samples of 1 JVM\(s\), ([0-9]+) with Java frames, ([0-9]+) of them all named.*/\1 \2 \3/p')
[ -n "${samples:-}" ] || fail "the Java line does not parse: $line"

"$PROF" report -i "$F" -F folded -g --no-inline >"$TMP/pf.raw" 2>"$TMP/err" || fail "prof report: $(cat "$TMP/err")"
sed -E 's/_\(/ (/g; s/\[java:_/[java: /g; s/\[jvm:_/[jvm: /g' "$TMP/pf.raw" >"$TMP/javac.folded"
# the JVM's threads, and every class named by a Java frame
python3 - "$TMP/javac.folded" "$TMP/classes.txt" <<'PY' || fail "the JVM's samples (above)"
import re, sys
JAVA = re.compile(r"^([\w$.]+)\.([\w$<>]+) \([\w$]+\.java(?::\d+)?\)$")
total = java = named = roles = 0
by_role, classes = {}, set()
for line in open(sys.argv[1]):
    stack, _, count = line.rstrip("\n").rpartition(" ")
    frames, n = stack.split(";"), int(count)
    total += n
    if len(frames) > 1 and frames[1].startswith("[jvm: "):
        roles += n
        role = frames[1].replace("_", " ")
        by_role[role] = by_role.get(role, 0) + n
    js = [f for f in frames if JAVA.match(f)]
    if js or any(f.startswith("[java") for f in frames):
        java += n
    if js and not any(f == "[java: unverified]" for f in frames):
        named += n
    for f in js:
        m = JAVA.match(f)
        classes.add((m[1], m[2]))
with open(sys.argv[2], "w") as o:
    for c, m in sorted(classes):
        o.write(f"{c} {m}\n")
pct = lambda a: f"{100 * a / max(total, 1):.1f} %"
print(f"# the JVM's {total} samples: {pct(java)} with Java frames ({100 * named / max(java, 1):.1f} % of them all named), "
      f"{pct(roles)} of the VM's own threads by role (" + ", ".join(f"{k} {v}" for k, v in sorted(by_role.items())) +
      f"); {len(classes)} methods named")
sys.exit(0 if total >= 1000 and java * 100 >= total * 20 and any("JIT compiler" in k for k in by_role) else 1)
PY

# every method named is the JDK's: its class in the modules image, the method in it
"$JDK17/bin/jimage" list "$JDK17/lib/modules" | sed -nE 's|^ +(.*)\.class$|\1|p' | tr / . >"$TMP/image.txt"
awk '{ print $1 }' "$TMP/classes.txt" | sort -u | grep -Fxf "$TMP/image.txt" >"$TMP/real.txt" || fail "no named class is in the JDK's image"
xargs "$JDK17/bin/javap" -p <"$TMP/real.txt" >"$TMP/javap.txt" 2>"$TMP/err" || fail "javap: $(head -3 "$TMP/err")"
python3 - "$TMP/classes.txt" "$TMP/javap.txt" "$TMP/real.txt" <<'PY' || fail "a Java frame named for a method the JDK does not have (above)"
import re, sys
have, cls = {}, None
for line in open(sys.argv[2]):
    # a class's line: "[modifiers] class|interface NAME[<...>] [extends ...] {"
    m = re.match(r"^(?:[a-z]+ )*(?:class|interface|enum|record) ([\w.$]+)", line)
    if m:
        cls = m[1]
        have.setdefault(cls, set())
        continue
    if cls and line.startswith("  "):
        if line.strip() == "static {};":
            have[cls].add("<clinit>")
            continue
        m = re.search(r"([\w$]+)\(", line)
        if m:
            have[cls].add("<init>" if m[1] == cls.rsplit(".", 1)[-1] or cls.endswith("." + m[1]) or cls.endswith("$" + m[1]) else m[1])
real = set(open(sys.argv[3]).read().split())
checked = wrong = 0
for line in open(sys.argv[1]):
    c, meth = line.split()
    if c not in real:
        continue
    checked += 1
    if c in have and meth not in have[c]:
        print(f"# WRONG: {c}.{meth}: javap lists no such method")
        wrong += 1
    if c not in have:
        print(f"# WRONG: {c}: javap gave nothing")
        wrong += 1
print(f"# {checked} named methods of {len(real)} JDK classes checked against javap: {wrong} wrong")
sys.exit(1 if wrong or checked < 100 else 0)
PY

# perf report of prof's file names javac's methods
"$PERF" report -i "$F" --no-children --sort sym --stdio -g none >"$TMP/report.txt" 2>/dev/null || fail "perf report failed"
grep -cE '^ +[0-9.]+% +\[\.\] com\.sun\.tools\.javac\.[A-Za-z.$]+ \(' "$TMP/report.txt" | sed 's/^/# perf report: javac methods named: /'
grep -qE '^ +[0-9.]+% +\[\.\] com\.sun\.tools\.javac\.[A-Za-z.$]+ \(' "$TMP/report.txt" ||
	fail "perf report names no javac method: $(grep -E '^ +[0-9.]+%' "$TMP/report.txt" | head -5)"
# the other tenant's JVM: nowhere
"$PERF" script -i "$F" -F comm,ip,sym >"$TMP/script.txt" 2>/dev/null || fail "perf script"
! grep -q 'Neighbour\|neighbourSpin' "$F" "$TMP/script.txt" "$TMP/javac.folded" || fail "the other tenant's JVM in the file"
pass "javac under prof record --uid: $with of $samples JVM samples with Java frames, $verified all named; every method named the JDK's; perf report names them"
