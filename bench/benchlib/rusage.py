#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""rusage.py OUT ARGV...: run ARGV, write "user_s sys_s wall_s" of it and its
children to OUT at wait4's microsecond resolution (GNU time rounds to 10 ms, too
coarse for a tool that uses 0.05 s of CPU), then a line "maxrss_kb N" (its peak
resident memory), and exit with its status."""

import os
import sys
import time


def main():
    out, argv = sys.argv[1], sys.argv[2:]
    t0 = time.monotonic()
    pid = os.posix_spawnp(argv[0], argv, os.environ)
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    with open(out, "w") as f:
        f.write(f"{ru.ru_utime:.6f} {ru.ru_stime:.6f} {wall:.6f}\n")
        f.write(f"maxrss_kb {ru.ru_maxrss}\n")
    sys.exit(os.waitstatus_to_exitcode(status) & 0xff)


if __name__ == "__main__":
    main()
