# A shop's order loop, the README's example workload: checkout() does 6 units of
# work, render() 3, log() 1, so they take about 60, 30 and 10 % of its CPU time.
#   python3 shop.py SECONDS
import sys, time

def work(units):
    x = 0
    for i in range(units * 20000):
        x += i * i
    return x

def price():
    return work(6)

def checkout():
    return price()

def render():
    return work(3)

def log():
    return work(1)

end = time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 5)
while time.monotonic() < end:
    checkout()
    render()
    log()
