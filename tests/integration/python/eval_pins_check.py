# SPDX-License-Identifier: GPL-2.0-or-later
# Run inside gdb attached to a CPython 3.13.0 process (python/eval_pins): at each
# pc of PCS (offsets in libpython, one a line) the process reaches, compare what
# the table of src/python/code_pins_313.inc says (rbp is the frame, r15 - k the
# running instruction) with the thread state's own current frame and its instr_ptr.
# Between a label and its TARGET's store of instr_ptr the frame's instr_ptr is still
# the previous instruction's: there it must become r15 - k within a few steps.
# Prints one line: "checked N frame-bad F instr-bad I unpinned U".
import os, re, gdb

src = open(os.environ["PINS_INC"]).read()
eval_at = int(re.search(r"#define EVAL_PINS_EVAL (0x[0-9a-f]+)", src).group(1), 16)
segs = [(int(a, 16), int(b, 16), int(k)) for a, b, k in re.findall(r"\{ (0x[0-9a-f]+), (0x[0-9a-f]+), (-?\d+) \}", src)]

def table(off):
    return next((k for a, b, k in segs if a <= off - eval_at < b), None)

def val(expr):
    return int(gdb.parse_and_eval(expr)) & (2**64 - 1)

base = next(int(l.split()[0], 16) for l in gdb.execute("info proc mappings", to_string=True).splitlines()
            if "libpython3.13" in l)
cur = "((PyThreadState*)_Py_tss_tstate)->current_frame"
bps = {base + int(x, 16): None for x in open(os.environ["PCS"]).read().split()}
for pc in bps:
    bps[pc] = gdb.Breakpoint("*%#x" % pc, internal=True)
checked = frame_bad = instr_bad = unpinned = 0
while bps:
    try:
        gdb.execute("continue", to_string=True)
        pc = val("$pc")
    except gdb.error:
        break                   # the process ended
    if pc not in bps:
        continue
    bps.pop(pc).delete()
    k = table(pc - base)
    if k is None:
        unpinned += 1
        continue
    checked += 1
    if val("$rbp") != val("(long)" + cur):
        frame_bad += 1
        print(f"# {pc - base:#x}: rbp {val('$rbp'):#x}, the current frame {val('(long)' + cur):#x}")
        continue
    if k < 0:
        continue
    want = val("$r15") - k
    for _ in range(16):
        if val(f"(long){cur}->instr_ptr") == want:
            break
        gdb.execute("stepi", to_string=True)
    else:
        instr_bad += 1
        print(f"# {pc - base:#x}: r15 - {k} = {want:#x}, instr_ptr {val(f'(long){cur}->instr_ptr'):#x}")
print(f"checked {checked} frame-bad {frame_bad} instr-bad {instr_bad} unpinned {unpinned}")
gdb.execute("kill")
