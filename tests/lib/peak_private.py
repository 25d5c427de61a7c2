"""peak_private.py CMD...: run CMD (its output dropped, its errors kept) and
print "SECONDS KIB": how long it ran, and the most private memory (RssAnon:
shared library pages left out) that it and every process it started held
at once, summed, looked at every 10 ms. Exits with CMD's status when that
is not 0. For the tests (stage_big_tree.sh) and the benchmarks (bench/lib.sh
bench_private): jobprep stages in a child process, rsync -a runs three."""
import os
import subprocess
import sys
import time


def tree(pid):
    pids = [pid]
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, t)) as f:
                for c in f.read().split():
                    pids += tree(int(c))
    except OSError:
        pass
    return pids


def anon(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


t0 = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
peak = 0
while p.poll() is None:
    peak = max(peak, sum(anon(q) for q in tree(p.pid)))
    time.sleep(0.01)
if p.returncode:
    sys.exit(p.returncode)
print("%.2f %d" % (time.monotonic() - t0, peak))
