import sys, time
def helper(from_a):
    end = time.perf_counter() + 0.001
    if from_a:
        while time.perf_counter() < end: pass   # line 5: from a
    else:
        while time.perf_counter() < end: pass   # line 7: from b
def a():
    helper(True)
def b():
    helper(False)
end = time.perf_counter() + float(sys.argv[1])
while time.perf_counter() < end:
    a()
    b()
