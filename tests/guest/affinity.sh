#!/bin/bash
# Affinity changes against tasks in migrate_disable() sections, checked
# against mdload's own log of every section (when it began and ended, on
# which CPU) and tracefs' record of every sched_setaffinity() call:
#   - every sched_affinity_wait names a task that was in a section on that
#     CPU, one that ended during the call;
#   - every call whose target was in a section on a CPU outside the new
#     mask from before the call until the kernel looked at it has its
#     sched_affinity_wait;
#   - no call returned while its target was so pinned;
#   - once a call returned, the task never ran outside its new mask after
#     the section it was in had ended (the promise of "sched: Fix
#     migrate_disable() vs set_cpus_allowed_ptr()").
# Three threads run 400 sections each while a storm of sched_setaffinity()
# calls, from one process, moves them around the four CPUs.
. "$(dirname "$0")/../lib.sh"
tap_plan 7

mdload_load || exit 1
work=$(mktemp -d)

# Clocks: mdload's start_ns and end, the events' wait_ns and tracefs' mono
# are all CLOCK_MONOTONIC.  Every check below follows from the order of
# things (a call is entered, the kernel finds its target pinned, the target
# leaves its section, the call returns), never from how long a step takes:
# a vCPU that the host stops for milliseconds (TCG on two cores) delays a
# step, never reorders it.  tracefs prints microseconds; res is that.
res_ns=1000

trace_begin md_affinity_storm sched_affinity_wait sched_switch sched_waking sched_wakeup \
	syscalls/sys_enter_sched_setaffinity syscalls/sys_exit_sched_setaffinity
# The storm starts the threads itself, once its interpreter is up: in a
# fresh guest, python's start-up over 9p once outlasted all their sections
# and the storm made no call (make check on a new machine).  Then one call
# after another, a millisecond or two apart, each logged (target and mask)
# in the order made, until the threads are done.  It prints their pids.
pids=($(python3 - "$work" "$mdsection" <<'EOF_STORM'
import os, random, subprocess, sys, time
work, mdsection = sys.argv[1], sys.argv[2]
masks = [{0}, {1}, {2}, {3}, {0, 1}, {2, 3}, {1, 2}, {0, 3}, {0, 1, 2}, {1, 2, 3}]
threads = [subprocess.Popen([mdsection, "-j", "-n", "400", "-s", "2ms", "-S", "2ms"],
                            stdout=open(f"{work}/sections.{t}", "w")) for t in (1, 2, 3)]
with open(work + "/calls", "w") as log:
    while running := [t.pid for t in threads if t.poll() is None]:
        pid, mask = random.choice(running), random.choice(masks)
        try:
            os.sched_setaffinity(pid, mask)
        except ProcessLookupError:
            continue
        print(os.getpid(), pid, ",".join(map(str, sorted(mask))), file=log)
        time.sleep(random.uniform(0.001, 0.002))
print(*(t.pid for t in threads))
EOF_STORM
))
trace_end "$work/trace"

python3 - "$work" "$res_ns" "${pids[@]}" >"$work/verdict" <<'EOF'
import glob, json, re, sys

work, res, targets = sys.argv[1], int(sys.argv[2]), set(map(int, sys.argv[3:]))

def cpus(mask):
    out = set()
    for part in mask.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out

sections = {}	# pid -> [(start, end, cpu)]
for path in glob.glob(work + "/sections.*"):
    for line in open(path):
        s = json.loads(line)
        sections.setdefault(s["pid"], []).append(
            (s["start_ns"], s["start_ns"] + s["elapsed_ns"], s["cpu_enter"]))
calls = []	# in the order made: {target, mask}, then enter, exit, ...
for line in open(work + "/calls"):
    caller, target, mask = line.split()
    calls.append({"caller": int(caller), "target": int(target), "mask": cpus(mask)})
storm = calls[0]["caller"] if calls else -1
logged = len(calls)

record = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (.*)$")
waits, entered, exited, blocked, lines = [], [], [], [], []
oncpu, wakings = {}, {}	# target -> [(ts, on a CPU, which)], [[sched_waking, sched_wakeup]]
stopper_done = {}	# cpu -> [each switch out of migration/cpu]
for line in open(work + "/trace"):
    m = record.match(line)
    if not m:
        continue
    pid, cpu, ts, rest = int(m.group(2)), int(m.group(3)), round(float(m.group(4)) * 1e9), m.group(5)
    lines.append((ts, pid, cpu, line.rstrip()))
    if rest.startswith("sys_sched_setaffinity(") and pid == storm:
        entered.append(ts)
    elif rest.startswith("sys_sched_setaffinity ->") and pid == storm:
        exited.append((ts, int(rest.rsplit("->", 1)[1], 16)))
    elif rest.startswith("sched_affinity_wait: "):
        f = dict(kv.split("=", 1) for kv in rest.split()[1:] if "=" in kv)
        waits.append({"target": int(f["pid"]), "cpu": int(f["cpu"]), "at": ts,
                      "wait": int(f["wait_ns"])})
    elif rest.startswith("sched_switch: "):
        prev = re.search(r"prev_pid=(\d+) prev_prio=\d+ prev_state=(\S+)", rest)
        if f"prev_comm=migration/{cpu} " in rest:
            stopper_done.setdefault(cpu, []).append(ts)
        if int(prev.group(1)) == storm and prev.group(2) == "D":
            blocked.append(ts)
        if int(prev.group(1)) in targets:
            oncpu.setdefault(int(prev.group(1)), []).append((ts, False, cpu))
        nxt = int(re.search(r"next_pid=(\d+)", rest).group(1))
        if nxt in targets:
            oncpu.setdefault(nxt, []).append((ts, True, cpu))
    elif rest.startswith(("sched_waking: ", "sched_wakeup: ")):
        pid = int(re.search(r" pid=(\d+)", rest).group(1))
        if pid not in targets:
            continue
        if rest.startswith("sched_waking: "):
            wakings.setdefault(pid, []).append([ts, float("inf")])
        elif wakings.get(pid) and wakings[pid][-1][1] == float("inf"):
            wakings[pid][-1][1] = ts

# The storm logs the calls that succeeded; a call to a thread that was gone
# failed and is not logged, and was the last for that thread.  The caller's
# events come in its program order: a wait is reported in its call.
ok = [(e, x) for e, (x, ret) in zip(entered, exited) if ret == 0]
for call, (enter, exit) in zip(calls, ok):
    call["enter"], call["exit"] = enter, exit
    call["waits"] = [w for w in waits if enter <= w["at"] <= exit]
    # Its last sleep in the call: the wait for the request, or after it.
    call["blocked"] = max((b for b in blocked if enter <= b <= exit), default=None)
calls = [c for c in calls if "exit" in c]

def pinned_across(call, t0, t1):
    """The target's sections on a CPU outside the call's mask, over [t0, t1]."""
    return [s for s in sections.get(call["target"], [])
            if s[0] < t0 and t1 + res < s[1] and s[2] not in call["mask"]]

# 1: the kernel found the target pinned after the call was entered, and the
# call returned after the section ended: each wait names a section of its
# target on that CPU that ended during the call.
unexplained = [w for c in calls for w in c["waits"]
               if w["target"] != c["target"] or not any(
                   cpu == w["cpu"] and c["enter"] < end < c["exit"] + res
                   for start, end, cpu in sections.get(c["target"], []))]
unexplained += [w for w in waits if not any(w in c["waits"] for c in calls)]
# 2: a call that found its target pinned outside the new mask must report
# the wait.  Where the kernel looks depends on the target: for one off its
# CPU, affine_move_task() itself, before the caller sleeps; for one running
# or waking, the stopper it queues on the target's CPU, which may run after
# the caller went to sleep, and after the section ended (a vCPU takes its
# IPI tens of microseconds late under TCG): the task then leaves without a
# wait.  That stopper work is done by the end of the first run of the
# stopper thread that ends after the caller slept: the kernel has looked by
# then.
def on_cpu(pid, t0, t1):
    """The target's states over [t0, t1]: True on its CPU, False off it."""
    events = oncpu.get(pid, [])
    states = {next((on for ts, on, _ in reversed(events) if ts <= t0), False)}
    return states | {on for ts, on, _ in events if t0 < ts <= t1}

def looked(call, cpu):
    """By when the kernel had looked whether the target was pinned on cpu."""
    pid, t0, t1 = call["target"], call["enter"], call["blocked"]
    if on_cpu(pid, t0, t1) == {False} and not any(
            ws <= t1 and t0 <= we for ws, we in wakings.get(pid, [])):
        return t1
    return next((ts for ts in stopper_done.get(cpu, []) if ts > t1), float("inf"))

# The section (at most one) the target was in, outside the new mask, from
# before the call until after the caller slept; and by when the kernel had
# looked at it.
slept = []
for c in calls:
    pinned = c["blocked"] and pinned_across(c, c["enter"], c["blocked"])
    if pinned:
        c["section"], c["looked"] = pinned[0], looked(c, pinned[0][2])
        slept.append(c)
must_wait = [c for c in slept if c["looked"] + res < c["section"][1]]
by_stopper = [c for c in must_wait if c["looked"] > c["blocked"]]
missing = [c for c in must_wait if not c["waits"]]
# 3: no call returns while its target is pinned outside the new mask.
early = [c for c in calls if pinned_across(c, c["enter"], c["exit"])]
# 4: after each call, until the task's next call, it runs in its new mask
# once out of the section it was in as the call returned (the next call
# changes the mask after it is entered).
outside = []
by_target = {}
for call in calls:
    by_target.setdefault(call["target"], []).append(call)
for pid, done in by_target.items():
    for i, call in enumerate(done):
        until = done[i + 1]["enter"] if i + 1 < len(done) else float("inf")
        since = max([call["exit"]] + [e for s, e, cpu in sections.get(pid, []) if s < call["exit"] < e])
        outside += [(pid, ts, cpu, sorted(call["mask"])) for ts, on, cpu in oncpu.get(pid, [])
                    if on and since + res < ts < until and cpu not in call["mask"]]

switches = sum(on for events in oncpu.values() for _, on, _ in events)
print(f"calls {len(calls)} switches {switches} (logged {logged}, traced {len(entered)})")
print(f"must_wait {len(must_wait)} (slept while pinned {len(slept)}; the stopper looked for {len(by_stopper)})")
print(f"waits {len(waits)}")
print(f"unexplained {len(unexplained)} {unexplained[:3]}")
print(f"missing {len(missing)} {[(c['target'], c['enter'], c['blocked'], c['exit']) for c in missing[:3]]}")
print(f"early {len(early)} {[(c['target'], c['enter'], c['exit']) for c in early[:3]]}")
print(f"outside {len(outside)} {outside[:3]}")

# What happened around the first missing wait: the target's sections, and
# the events of the target, the storm and the section's CPU, in
# microseconds from the call's entry.
for c in missing[:1]:
    cpus_seen = set()
    for start, end, cpu in sections[c["target"]]:
        if start < c["exit"] and end > c["enter"]:
            print(f"  section of {c['target']} on cpu{cpu}: {(start - c['enter']) / 1e3:+.1f} to "
                  f"{(end - c['enter']) / 1e3:+.1f} us; mask {sorted(c['mask'])}")
            cpus_seen.add(cpu)
    for ts, pid, cpu, text in lines:
        if c["enter"] - 500000 <= ts <= c["exit"] + 500000 and (
                pid in (storm, c["target"]) or cpu in cpus_seen or f"={c['target']} " in text):
            print(f"  {(ts - c['enter']) / 1e3:+9.1f} {text.strip()}")
EOF
tap_diag "$(cat "$work/verdict")"
verdict() { sed -n "s/^$1 \([0-9]*\).*/\1/p" "$work/verdict"; }
tap_check "the storm made calls whose target was pinned away from the new mask until the kernel looked ($(verdict must_wait))" \
	test "$(verdict must_wait)" -ge 5
tap_check "and some waited for a section, by the kernel's events" \
	test "$(verdict waits)" -ge 1
tap_equal "every sched_affinity_wait names a section of its task that ended during its call" 0 \
	"$(verdict unexplained)"
tap_equal "every call whose target was pinned away from the new mask until the kernel looked has its wait" 0 \
	"$(verdict missing)"
tap_equal "no call returned while its target was pinned away from the new mask" 0 \
	"$(verdict early)"
tap_equal "no task ran outside its new mask once its section had ended" 0 \
	"$(verdict outside)"
tap_equal "every section stayed on its CPU" 0 \
	"$(cat "$work"/sections.* | jq -s 'map(select(.cpu_enter != .cpu_exit)) | length')"
rm -rf "$work"
