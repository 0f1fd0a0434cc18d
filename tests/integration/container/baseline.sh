#!/usr/bin/env bash
# A MEASUREMENT, NOT A CHECK OF PROF: issue 17's figures, printed as note lines.  It
# passes whatever share of the containers' samples prof names (before issue 17 almost
# none: [unknown], or the host decoy's functions); the assertions on prof are in
# container/objects, replaced and rootless.  It fails only when the
# measurement itself is broken: a container with too few samples in either tool's
# file, prof and perf disagreeing on how many samples a container had, perf (the
# reference) not naming a container that outlives its recording, or prof's dwarf
# recording keeping perf's, made beside it, from unwinding that container.
#
# The measurement is bench/containers (cases names and dwarf): containers made by
# ../container.sh in a Kubernetes-like pod, recorded at once by `prof record --cgroup
# POD -g` and `perf record -a -g -G POD` (and `-a --call-graph dwarf` by both), a
# container that outlives the recording and one that starts and exits during it,
# each with its objects at paths absent on the host (/app) or where the host has
# decoys; each file read by its own tool, while the containers run and after.
. "$(dirname "$0")/../lib.sh"
require_root
require_perf
command -v python3 >/dev/null || skip "needs python3"
[ -x /usr/bin/time ] || skip "needs /usr/bin/time (package time)"
bench=$(cd "$(dirname "$0")/../../.." && pwd)/bench/containers
[ -x "$bench" ] || fail "no $bench"

res=$TMP/results
TMPDIR=$TMP "$bench" --cases names,dwarf --results "$res" >"$TMP/out" 2>&1
rc=$?
while IFS= read -r line; do note "$line"; done <"$TMP/out"
[ "$rc" -eq 77 ] && skip "bench/containers skipped: $(tail -n 1 "$TMP/out")"
[ "$rc" -eq 0 ] || fail "bench/containers exited $rc"

python3 - "$res" <<'PY' || fail "the measurement is broken (see above)"
import collections, sys
names = collections.defaultdict(dict)
stacks = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "names":
        names[tuple(f[1:4])][f[4]] = [int(x) for x in f[5:]]
    elif f[0] == "stacks":
        stacks[tuple(f[1:4])][f[4]] = [int(x) for x in f[5:]]
bad = []
for table, own, ref in ((names, "prof-report", "perf-report"), (stacks, "prof-report", "perf-script")):
    if len(table) < (14 if table is names else 6):
        bad.append(f"only {len(table)} rows of {'names' if table is names else 'stacks'}")
    for key, readers in sorted(table.items()):
        if own not in readers or ref not in readers:
            bad.append(f"{key}: a reader is missing: {sorted(readers)}")
            continue
        p, q = readers[own][0], readers[ref][0]
        if min(p, q) < 200:
            bad.append(f"{key}: {p} samples in prof's file, {q} in perf's")
        elif not 0.75 <= p / q <= 1.33:
            bad.append(f"{key}: prof's file has {p} samples, perf's {q}")
# perf names a container that outlives the recording while it runs: the reference.
for key, readers in names.items():
    if key[0] == "outlives" and key[2] == "running":
        n, right = readers["perf-report"][:2]
        if right < 0.95 * n:
            bad.append(f"{key}: perf report names {right} of {n}")
# perf's own dwarf file, recorded beside `prof record --call-graph dwarf`: perf 6.1
# reaches a running container's objects through /proc/PID/root, and prof must not
# stand in its way. It did: prof's unwinder mapped the container's objects in prof's
# own process, the kernel named those mappings by the objects' paths inside the
# container, perf took them for host files of prof's process and then kept and read
# the host's files (build id "none" for /app, the host's for the decoy path). prof now
# reads objects for unwinding without mapping them.
for key, readers in stacks.items():
    if key[0] == "outlives" and key[2] == "running":
        n, good = readers["perf-script"][:2]
        if good < 0.9 * n:
            bad.append(f"{key}: perf script has only {good} of {n} stacks of perf's own file "
                       "complete (beside prof's dwarf recording)")
for b in bad:
    print("broken:", b)
sys.exit(1 if bad else 0)
PY
pass "measured (prof's figures are checked by container/objects, replaced, rootless)"
