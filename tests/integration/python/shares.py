import sys, time
def sixty():
    end = time.process_time() + 0.006
    while time.process_time() < end: pass
def thirty():
    end = time.process_time() + 0.003
    while time.process_time() < end: pass
def ten():
    end = time.process_time() + 0.001
    while time.process_time() < end: pass
end = time.process_time() + float(sys.argv[1])
while time.process_time() < end:
    sixty(); thirty(); ten()
