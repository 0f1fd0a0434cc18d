#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""How well a report names a container's samples (bench/containers).

  ctrshare.py names prof-json FILE PID...    prof report -F json --sort pid,dso,sym
  ctrshare.py names perf-report FILE PID...  perf report --stdio --no-children
                                             -F sample,pid,dso,sym -g none -t '|'
      one line per PID: "PID samples right wrong decoy unknown"
  ctrshare.py comms prof-json FILE COMM...   the same by comm (--sort comm,dso,sym;
  ctrshare.py comms perf-report FILE COMM... perf: -F sample,comm,dso,sym): many
                                             short processes of one program
  ctrshare.py stacks folded FILE PID         prof report -F folded -g --no-inline --pid PID
  ctrshare.py stacks perf-script FILE PID... perf script -F pid,ip,sym
      one line per PID: "PID samples complete": stacks that reach main and _start

A sample in the container's own objects (ctr-hot*, libctr*.so: the programs of
tests/integration/container.sh) is right when named after one of their functions
(ctr_*, main, the start-up code), wrong when named anything else (decoy_*: the host's file at the
same path was read), unknown when unnamed ([unknown], a raw address).  A sample
elsewhere (libc, the loader, the vDSO, the kernel) is right when named.
"""

import collections
import json
import re
import sys

OWN = re.compile(r"^(ctr-hot|libctr)")
# ... and the start-up code every program has (a process of 30 ms gets samples there)
RIGHT = re.compile(r"^(ctr_|main$|_start$|_init$|_fini$|frame_dummy$|(de)?register_tm_clones$|"
                   r"__do_global_dtors_aux$|.*@plt$)")
RAW = re.compile(r"^(0x)?[0-9a-f]+$")


def classify(dso, sym):
    sym = re.sub(r"^\[[.kgu]\] ", "", sym.strip())
    base = dso.strip().rsplit("/", 1)[-1]
    unknown = not sym or sym.startswith("[unknown]") or RAW.match(sym)
    if unknown:
        return "unknown"
    if OWN.match(base) and not RIGHT.match(sym):
        return "decoy" if sym.startswith("decoy_") else "wrong"
    return "right"


def names(kind, path, pids, field="pid"):
    counts = {p: collections.Counter() for p in pids}
    if kind == "prof-json":
        for row in json.load(open(path))["rows"]:
            p = str(row.get(field))
            if p in counts:
                counts[p][classify(row.get("dso", ""), row.get("sym", ""))] += row["samples"]
    else:
        for line in open(path, errors="replace"):
            f = line.rstrip("\n").split("|")
            if line.startswith("#") or len(f) < 4 or not f[0].strip().isdigit():
                continue
            p = f[1].strip() if field == "comm" else f[1].strip().split(":", 1)[0]
            if p in counts:
                counts[p][classify(f[2], f[3])] += int(f[0])
    for p in pids:
        c = counts[p]
        total = sum(c.values())
        print(p, total, c["right"], c["wrong"] + c["decoy"], c["decoy"], c["unknown"])


def complete(frames):
    return "main" in frames and "_start" in frames


def stacks(kind, path, pids):
    total = collections.Counter()
    good = collections.Counter()
    if kind == "folded":
        for line in open(path, errors="replace"):
            k, _, n = line.rstrip("\n").rpartition(" ")
            if not n.isdigit():
                continue
            total[pids[0]] += int(n)
            if complete(k.split(";")):
                good[pids[0]] += int(n)
    else:
        pid, frames = None, []

        def flush():
            if pid in pids:
                total[pid] += 1
                good[pid] += complete(frames)
        for line in open(path, errors="replace"):
            if not line.strip():
                flush()
                pid, frames = None, []
            elif line[0] != "\t":     # "PID ...": a sample; its frames are tab-indented
                flush()
                pid, frames = line.split()[0], []
            else:
                parts = line.split(None, 2)
                frames.append(re.sub(r"\+0x[0-9a-f]+$", "", parts[1]) if len(parts) > 1 else "")
        flush()
    for p in pids:
        print(p, total[p], good[p])


def main(argv):
    if len(argv) < 5 or argv[1] not in ("names", "comms", "stacks"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1] == "comms":
        names(argv[2], argv[3], argv[4:], "comm")
    else:
        (names if argv[1] == "names" else stacks)(argv[2], argv[3], argv[4:])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
