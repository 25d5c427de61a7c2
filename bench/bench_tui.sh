#!/bin/sh
# The wizard's responsiveness, measured through tmux like a person sees it:
#
#  1. startup: from the command starting to its first screen being drawn,
#     jobprep --demo (sandbox already made) vs dialog --inputbox;
#  2. key-to-echo: from a key sent to it showing on the screen, typing in a
#     text field while a large clone runs in the background (jobprep's own
#     clone of a 96 MiB repository from a git daemon on loopback) vs typing
#     in dialog while `git clone` of the same repository runs beside it;
#  3. key-to-echo while a stage runs: the Data step's copy of a folder of
#     20,000 files (BENCH_TUI_STAGE_FILES) onto shared storage, in the
#     background (in a helper process of its own), while a second source's
#     path is typed; against typing with nothing running.
#
# Times are medians (and 90th percentiles) over many tries; the polling of
# capture-pane adds about a millisecond to every figure, on both sides.
# Prints the ratio jobprep / dialog. Needs tmux, dialog, python3, git.
set -u
for t in tmux python3 git; do
	command -v $t >/dev/null 2>&1 || { echo "bench_tui: $t is missing" >&2; exit 77; }
done
PEER=dialog
command -v dialog >/dev/null 2>&1 || PEER=none
: "${JOBPREP:=$(pwd)/jobprep}"
: "${TOP_SRCDIR:=$(pwd)}"
. "$TOP_SRCDIR/tests/lib/gitserv.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/jobprep-bench-tui.XXXXXX") || exit 1
SOCK=jp-bench-tui-$$
trap 'for s in /tmp/tmux-$(id -u)/$SOCK-*; do [ -S "$s" ] && tmux -S "$s" kill-server 2>/dev/null; done; jp_gitd_stop "$T/gitd"; rm -rf "$T"' EXIT
mkdir -p "$T/home" "$T/work"
MIB=${BENCH_TUI_MIB:-96}
RUNS=${BENCH_TUI_RUNS:-15}
KEYS=${BENCH_TUI_KEYS:-40}

echo "bench_tui: making a ${MIB} MiB repository..."
jp_git_big_repo "$T/srv/big.git" "$MIB" || exit 1
jp_gitd_start "$T/gitd" "$T/srv" || exit 1
URL=git://127.0.0.1:$JP_GITD_PORT/big.git

# The demo sandbox, made once so startup measures the wizard, not git init.
(cd "$T/work" && HOME=$T/home "$JOBPREP" init --demo -o "$T/warm.json" >/dev/null 2>&1)

STAGE_FILES=${BENCH_TUI_STAGE_FILES:-20000}
"${TOP_BUILDDIR:-$TOP_SRCDIR}/bench/mktree" "$T/stage-src" "$STAGE_FILES" 500 50 >/dev/null || exit 1

export T SOCK JOBPREP URL RUNS KEYS PEER
python3 - <<'PY'
import os, subprocess, time, statistics, sys

T, BASE = os.environ["T"], os.environ["SOCK"]
SOCK = BASE + "-0"
N = [0]
J, URL, PEER = os.environ["JOBPREP"], os.environ["URL"], os.environ["PEER"]
RUNS, KEYS = int(os.environ["RUNS"]), int(os.environ["KEYS"])
ENV = "env HOME=%s/home TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC" % T

def tmux(*a, check=True):
    return subprocess.run(["tmux", "-L", SOCK] + list(a), capture_output=True,
                          text=True, check=check).stdout

def screen():
    return tmux("capture-pane", "-p", check=False)

def wait_for(pred, timeout=60.0, what=""):
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        s = screen()
        if pred(s):
            return time.perf_counter(), s
    raise SystemExit("bench_tui: timed out waiting for %s; screen:\n%s" % (what, screen()))

def session(cmd):
    """A pane with a shell that waits for Enter, then runs cmd, on a tmux
    server of its own (a server being killed can take a new session with
    it)."""
    global SOCK
    tmux("kill-server", check=False)
    for _ in range(100):        # let the old one finish (jobprep saves a draft)
        if subprocess.run(["tmux", "-L", SOCK, "has-session"], capture_output=True).returncode:
            break
        time.sleep(0.02)
    time.sleep(0.1)
    N[0] += 1
    SOCK = "%s-%d" % (BASE, N[0])
    subprocess.run(["rm", "-rf", T + "/home/.local"])   # no draft to resume
    tmux("-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30",
         "sh -c 'cd %s/work && read go && exec %s'" % (T, cmd.replace("'", "'\\''")))
    tmux("set-option", "-g", "window-size", "manual", check=False)
    time.sleep(0.3)

def startup(cmd, marker):
    times = []
    for _ in range(RUNS):
        session(cmd)
        t0 = time.perf_counter()
        tmux("send-keys", "Enter")
        t1, _ = wait_for(lambda s: marker in s)
        times.append((t1 - t0) * 1000)
    tmux("kill-server", check=False)
    return times

def echo_delays(field_line, start_text, count):
    """Type `count` keys one at a time; each is timed until it shows."""
    times = []
    text = start_text
    for i in range(count):
        ch = "abcdefghijklmnopqrstuvwxyz"[i % 26]
        text += ch
        t0 = time.perf_counter()
        tmux("send-keys", "-l", ch)
        t1, _ = wait_for(lambda s: any(field_line in l and text in l for l in s.split("\n")), 10)
        times.append((t1 - t0) * 1000)
    return times

def report(name, j, p):
    def q(v, f):
        v = sorted(v)
        return v[min(len(v) - 1, int(len(v) * f))]
    line = "%-34s jobprep median %6.1f ms  p90 %6.1f ms" % (name, statistics.median(j), q(j, 0.9))
    if p:
        line += "   %s median %6.1f ms  p90 %6.1f ms   ratio %.2f" % (
            PEER, statistics.median(p), q(p, 0.9), statistics.median(j) / statistics.median(p))
    print(line)

# 1. startup to the first drawn screen
js = startup("%s %s --demo" % (ENV, J), "1/6  Job")
# the runs above leave drafts only when quit; they were killed, so none
ps = startup("%s dialog --inputbox 'Job name' 8 40 demo" % ENV, "Job name") if PEER == "dialog" else []
report("startup to first screen", js, ps)

# 2. key-to-echo while a large clone runs
session("%s %s --demo" % (ENV, J))
tmux("send-keys", "Enter")
wait_for(lambda s: "1/6  Job" in s)
tmux("send-keys", "C-u")
tmux("send-keys", "-l", "bench")                # new paths: nothing there yet
tmux("send-keys", "Enter")
wait_for(lambda s: "2/6  Code" in s, what="code")
tmux("send-keys", "Tab", "Tab", "C-u")
tmux("send-keys", "-l", URL)
tmux("send-keys", "Enter")
wait_for(lambda s: "3/6  Data" in s, what="data")
wait_for(lambda s: "receiving" in s or "resolving" in s or "checking out" in s, 60, "progress")
tmux("send-keys", "Tab", "Tab", "End")          # the first source's Name field
wait_for(lambda s: any("Name" in l and "demo-data" in l for l in s.split("\n")))
je = echo_delays("Name", "demo-data", KEYS)
still = "clone" in screen() and "cloned into" not in screen()
print("bench_tui: jobprep's clone was %s when the last key echoed" %
      ("still running" if still else "already finished"))
tmux("send-keys", "C-c")
time.sleep(0.3)
tmux("send-keys", "y")
time.sleep(1)

pe = []
if PEER == "dialog":
    with open(T + "/peer.sh", "w") as f:
        f.write("git clone -q %s %s/peer-clone 2>/dev/null &\n" % (URL, T))
        f.write("%s dialog --inputbox Name 8 60 demo-data\n" % ENV)
        f.write("wait\n")
    session("sh %s/peer.sh" % T)
    tmux("send-keys", "Enter")
    wait_for(lambda s: "demo-data" in s, what="dialog")
    time.sleep(0.5)
    # dialog starts with the cursor after the text (and takes tmux's End
    # for Esc, which would cancel it)
    pe = echo_delays("demo-data", "demo-data", KEYS)
    running = subprocess.run(["pgrep", "-f", "git clone -q " + URL], capture_output=True).returncode == 0
    print("bench_tui: the peer's git clone was %s when the last key echoed" %
          ("still running" if running else "already finished"))
    tmux("kill-server", check=False)
report("key-to-echo during a clone", je, pe)

# 3. key-to-echo while a stage runs, and with nothing running
def quit_wizard():
    """Ctrl-C, and yes to the question when there is one."""
    tmux("send-keys", "C-c", check=False)
    time.sleep(0.3)
    tmux("send-keys", "y", check=False)
    time.sleep(1)

def data_step():
    session("%s %s --demo" % (ENV, J))
    tmux("send-keys", "Enter")
    wait_for(lambda s: "1/6  Job" in s)
    tmux("send-keys", "C-u")
    tmux("send-keys", "-l", "benchstage%d" % N[0])
    tmux("send-keys", "Enter")
    wait_for(lambda s: "2/6  Code" in s, what="code")
    tmux("send-keys", "Enter")
    wait_for(lambda s: "3/6  Data" in s, what="data")

def type_a_new_source(n_before):
    tmux("send-keys", "BTab")
    wait_for(lambda s: "add a data source (a)" in s, what="the list")
    tmux("send-keys", "a")
    wait_for(lambda s: "Data sources  (%d)" % (n_before + 1) in s, what="a new source")
    tmux("send-keys", "-l", "/zqx")             # a text found nowhere else
    wait_for(lambda s: "/zqx" in s, what="the typed path")
    return echo_delays("", "/zqx", KEYS)

data_step()
idle = type_a_new_source(2)
quit_wizard()

data_step()
tmux("send-keys", "a")
wait_for(lambda s: "Data sources  (3)" in s, what="a source")
tmux("send-keys", "-l", T + "/stage-src")
tmux("send-keys", "Enter")
wait_for(lambda s: "[ Copy ]" in s, what="the copy's offer")
tmux("send-keys", "Enter")
wait_for(lambda s: "staging" in s or "copying" in s, 60, "the copy running")
busy = type_a_new_source(3)
s = screen()
print("bench_tui: the stage was %s when the last key echoed" %
      ("still running" if ("staging" in s or "copying" in s) else "already finished"))
quit_wizard()
tmux("kill-server", check=False)
report("key-to-echo during a stage", busy, [])
report("key-to-echo, nothing running", idle, [])
print("key-to-echo during a stage / nothing running: %.2f" %
      (statistics.median(busy) / statistics.median(idle)))
PY
