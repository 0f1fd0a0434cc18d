# SPDX-License-Identifier: GPL-2.0-or-later
"""Just enough of the perf.data format (file mode) to measure a recording.

Reads the header, the attrs and the data section of a file written by prof or
perf record, and tells: bytes per record type, samples, lost samples, the bytes
of records perf synthesized (non-sample records dated 0), and each sample's task
name under perf's thread model (COMM names a task, FORK passes the parent's name
to the child), except that an EXIT does not forget the name: a task is still
sampled while it exits, and perf's `:PID` for those samples is a reader quirk,
not a missing record.  See tools/perf/Documentation/perf.data-file-format.txt.
"""

import struct

MAGIC = b"PERFILE2"

# sample_type bits
S_IP, S_TID, S_TIME, S_ADDR, S_READ = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4
S_ID, S_CPU, S_STREAM_ID, S_IDENTIFIER = 1 << 6, 1 << 7, 1 << 9, 1 << 16
SAMPLE_ID_ALL = 1 << 18  # bit in the attr's flags word

T_MMAP, T_LOST, T_COMM, T_EXIT, T_FORK, T_SAMPLE = 1, 2, 3, 4, 7, 9
T_MMAP2, T_LOST_SAMPLES, T_CGROUP = 10, 13, 19
USER_TYPE_START = 64  # records made by the tool, without a sample id trailer

NAMES = {1: "MMAP", 2: "LOST", 3: "COMM", 4: "EXIT", 5: "THROTTLE", 6: "UNTHROTTLE",
         7: "FORK", 9: "SAMPLE", 10: "MMAP2", 13: "LOST_SAMPLES", 16: "NAMESPACES",
         17: "KSYMBOL", 18: "BPF_EVENT", 19: "CGROUP", 68: "FINISHED_ROUND",
         69: "ID_INDEX", 73: "THREAD_MAP", 74: "CPU_MAP", 79: "TIME_CONV",
         82: "FINISHED_INIT"}

# the metadata that describes tasks: what a profiler synthesizes
TASK_TYPES = {T_MMAP, T_COMM, T_EXIT, T_FORK, T_MMAP2, T_CGROUP, 16}


class BadFile(Exception):
    pass


class Attr:
    def __init__(self, sample_type, flags):
        self.sample_type = sample_type
        self.id_all = bool(flags & SAMPLE_ID_ALL)
        # where TIME sits in the trailer of a non-sample record, counted from its end
        after = sum(1 for b in (S_ID, S_STREAM_ID, S_CPU, S_IDENTIFIER) if sample_type & b)
        self.trailer_time = 8 * (after + 1) if sample_type & S_TIME else None


class Recording:
    """Counts over one file; `comm_of(tid)` is filled only with want_comms."""

    def __init__(self, path, want_comms=False):
        self.path = path
        self.bytes_by_type = {}
        self.count_by_type = {}
        self.samples = 0
        self.lost = 0          # samples the kernel dropped (LOST, LOST_SAMPLES)
        self.synth_bytes = 0   # task records dated 0: perf's synthesized ones
        self.sample_comms = {}  # comm -> samples (with want_comms)
        self.unknown_comm = 0  # samples of a task no COMM or FORK named
        self.t_first = self.t_last = 0  # the first and last sample's time (ns)
        with open(path, "rb") as f:
            data = f.read()
        self.file_size = len(data)
        self._parse(data, want_comms)

    def _parse(self, data, want_comms):
        if len(data) < 104 or data[:8] != MAGIC:
            raise BadFile(f"{self.path}: not a perf.data file (magic)")
        size, attr_size, a_off, a_size, d_off, d_size = struct.unpack_from("<6Q", data, 8)
        if attr_size < 16 + 64 or a_off + a_size > len(data) or d_off + d_size > len(data):
            raise BadFile(f"{self.path}: header points outside the file")
        self.data_size = d_size
        attrs, by_id = [], {}
        for off in range(a_off, a_off + a_size - attr_size + 1, attr_size):
            sample_type, = struct.unpack_from("<Q", data, off + 24)
            flags, = struct.unpack_from("<Q", data, off + 40)
            ids_off, ids_size = struct.unpack_from("<2Q", data, off + attr_size - 16)
            a = Attr(sample_type, flags)
            attrs.append(a)
            for i in range(ids_off, ids_off + ids_size, 8):
                by_id[struct.unpack_from("<Q", data, i)[0]] = a
        if not attrs:
            raise BadFile(f"{self.path}: no attrs")
        first = attrs[0]
        events = []  # (time, seq, kind, a, b, c) for the comm model
        pos, end, seq = d_off, d_off + d_size, 0
        while pos + 8 <= end:
            rtype, misc, rsize = struct.unpack_from("<IHH", data, pos)
            if rsize < 8 or pos + rsize > end:
                raise BadFile(f"{self.path}: bad record at offset {pos}")
            self.bytes_by_type[rtype] = self.bytes_by_type.get(rtype, 0) + rsize
            self.count_by_type[rtype] = self.count_by_type.get(rtype, 0) + 1
            body = pos + 8
            if rtype == T_SAMPLE:
                self.samples += 1
                a, p = first, body
                if first.sample_type & S_IDENTIFIER:
                    a = by_id.get(struct.unpack_from("<Q", data, p)[0], first)
                    p += 8
                st = a.sample_type
                if st & S_IP:
                    p += 8
                pid, tid = struct.unpack_from("<II", data, p) if st & S_TID else (0, 0)
                p += 8 if st & S_TID else 0
                t = struct.unpack_from("<Q", data, p)[0] if st & S_TIME else 0
                if t:
                    self.t_first = min(self.t_first or t, t)
                    self.t_last = max(self.t_last, t)
                if want_comms:
                    events.append((t, seq, "S", pid, tid, None))
            elif rtype == T_LOST:
                self.lost += struct.unpack_from("<Q", data, body + 8)[0]
            elif rtype == T_LOST_SAMPLES:
                self.lost += struct.unpack_from("<Q", data, body)[0]
            elif rtype < USER_TYPE_START:
                t = self._trailer_time(data, pos, rsize, first)
                if rtype in TASK_TYPES and t == 0:
                    self.synth_bytes += rsize
                if want_comms and rtype == T_COMM:
                    pid, tid = struct.unpack_from("<II", data, body)
                    name = data[body + 8:pos + rsize].split(b"\0", 1)[0].decode("utf-8", "replace")
                    events.append((t, seq, "C", pid, tid, name))
                elif want_comms and rtype == T_FORK:
                    pid, ppid, tid, ptid = struct.unpack_from("<4I", data, body)
                    events.append((t, seq, "F", ptid, tid, None))
            pos += rsize
            seq += 1
        if want_comms:
            self._comms(events)

    @staticmethod
    def _trailer_time(data, pos, rsize, attr):
        if not attr.id_all or attr.trailer_time is None or rsize < 8 + attr.trailer_time:
            return None
        return struct.unpack_from("<Q", data, pos + rsize - attr.trailer_time)[0]

    def _comms(self, events):
        # perf writes rounds that overlap in time; sort as its reader does
        events.sort(key=lambda e: (e[0], e[1]))
        name = {0: "swapper"}  # the idle task, named by perf's reader too
        for _t, _s, kind, a, b, c in events:
            if kind == "C":
                name[b] = c
            elif kind == "F":
                if a in name:  # a reused tid starts with its new parent's name
                    name[b] = name[a]
            else:
                n = name.get(b, name.get(a))
                if n is None:
                    self.unknown_comm += 1
                    n = f":{b}"
                self.sample_comms[n] = self.sample_comms.get(n, 0) + 1

    @property
    def span(self):
        """seconds from the first sample to the last"""
        return (self.t_last - self.t_first) / 1e9

    @property
    def task_bytes(self):
        """bytes of task metadata (comm, fork, exit, mmap, cgroup) records"""
        return sum(v for k, v in self.bytes_by_type.items() if k in TASK_TYPES)
