#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Per thread of a prof --off-cpu file, from `perf script -F tid,time,period,event
--show-task-events`: its on-CPU time (cpu-clock's periods), offcpu-runq and
offcpu-blocked, against its life in the file: from its FORK to its EXIT, or to the
last of its off-CPU samples when later (they are stamped at the switch-in that ends
them, and an exit path can still be preempted or sleep after the EXIT record).

    conservation.py SCRIPT_OUTPUT MIN_LIFE_NS

One line per thread with a FORK and an EXIT in the file and a life of MIN_LIFE_NS or
more: "tid life sum on runq blocked", sorted by sum / life."""
import re
import sys

fork, exit_, last, sums = {}, {}, {}, {}
task = re.compile(r'^\s*(\d+)\s+([\d.]+):\s+PERF_RECORD_(FORK|EXIT)\((\d+):(\d+)\)')
sample = re.compile(r'^\s*(\d+)\s+([\d.]+):\s+(\d+)\s+([\w-]+):')
for line in open(sys.argv[1], errors='replace'):
    m = task.match(line)
    if m:
        (fork if m.group(3) == 'FORK' else exit_)[int(m.group(5))] = float(m.group(2))
        continue
    m = sample.match(line)
    if m:
        tid, t, period, ev = int(m.group(1)), float(m.group(2)), int(m.group(3)), m.group(4)
        sums.setdefault(tid, {}).setdefault(ev, 0)
        sums[tid][ev] += period
        if ev.startswith('offcpu-'):
            last[tid] = max(last.get(tid, 0.0), t)
rows = []
for tid, born in fork.items():
    if tid not in exit_ or tid not in sums:
        continue
    life = (max(exit_[tid], last.get(tid, 0.0)) - born) * 1e9
    v = sums[tid]
    on, runq, blocked = v.get('cpu-clock', 0), v.get('offcpu-runq', 0), v.get('offcpu-blocked', 0)
    if life >= float(sys.argv[2]):
        rows.append((tid, life, on + runq + blocked, on, runq, blocked))
for r in sorted(rows, key=lambda r: r[2] / r[1]):
    print("%d %.0f %d %d %d %d" % r)
