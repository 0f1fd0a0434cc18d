#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/daemon --only objects: run N distinct tiny programs (copies of one, each with
# a build id of its own, at a path of its own), two at a time, in batches that are
# deleted once run.  Each spins MS milliseconds, long enough to be sampled.
#   daemon-objects.py PROGRAM N MS DIR
import hashlib, os, subprocess, sys

prog, n, ms, work = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
data = bytearray(open(prog, 'rb').read())
# the GNU build-id note: namesz 4, descsz 20, type 3 (NT_GNU_BUILD_ID), "GNU\0"
at = data.find(b'\x04\x00\x00\x00\x14\x00\x00\x00\x03\x00\x00\x00GNU\x00')
if at < 0:
    sys.exit('daemon-objects.py: %s has no 20-byte GNU build id' % prog)
at += 16
BATCH = 500
ran = 0
for first in range(0, n, BATCH):
    d = os.path.join(work, 'b%d' % (first // BATCH))
    os.mkdir(d)
    paths = []
    for i in range(first, min(n, first + BATCH)):
        data[at:at + 20] = hashlib.sha1(b'prof-bench-object-%d' % i).digest()
        p = os.path.join(d, 'p%05d' % i)
        with open(p, 'wb') as f:
            f.write(data)
        os.chmod(p, 0o755)
        paths.append(p)
    for i in range(0, len(paths), 2):
        procs = [subprocess.Popen([p, ms]) for p in paths[i:i + 2]]
        for p in procs:
            if p.wait() != 0:
                sys.exit('daemon-objects.py: %s failed' % p.args[0])
        ran += len(procs)
    for p in paths:
        os.unlink(p)
    os.rmdir(d)
print(ran)
