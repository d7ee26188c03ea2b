#!/bin/bash
# Affinity changes against tasks in migrate_disable() sections, checked
# against mdload's own log of every section (when it began and ended, on
# which CPU) and tracefs' record of every sched_setaffinity() call:
#   - every sched_affinity_wait names a task that was in a section on that
#     CPU, one that ended while the caller waited;
#   - every call made in the middle of a section, to a mask without the
#     section's CPU, blocked and has its sched_affinity_wait;
#   - once a call returned, the task never ran outside its new mask after
#     the section it was in had ended (the promise of "sched: Fix
#     migrate_disable() vs set_cpus_allowed_ptr()").
# Three threads run 400 sections each while a storm of sched_setaffinity()
# calls, from one process, moves them around the four CPUs.
. "$(dirname "$0")/../lib.sh"
tap_plan 6

mdload_load || exit 1
work=$(mktemp -d)

# Clocks: mdload's start_ns, the events' wait_ns and tracefs' mono clock
# are all CLOCK_MONOTONIC, read at slightly different points of one step;
# slack covers that and a vCPU the host stops between two reads.
slack_ns=2000000

trace_begin md_affinity_storm sched_affinity_wait sched_switch \
	syscalls/sys_enter_sched_setaffinity syscalls/sys_exit_sched_setaffinity
pids=()
for t in 1 2 3; do
	"$mdsection" -j -n 400 -s 2ms -S 2ms >"$work/sections.$t" &
	pids+=($!)
done
# The storm: one call after another, a millisecond or two apart, each
# logged (target and mask) in the order made, until the threads are done.
python3 - "$work/calls" "${pids[@]}" <<'EOF_STORM'
import os, random, sys, time
masks = [{0}, {1}, {2}, {3}, {0, 1}, {2, 3}, {1, 2}, {0, 3}, {0, 1, 2}, {1, 2, 3}]
targets = [int(p) for p in sys.argv[2:]]
with open(sys.argv[1], "w") as log:
    while targets:
        pid, mask = random.choice(targets), random.choice(masks)
        try:
            os.sched_setaffinity(pid, mask)
        except ProcessLookupError:
            targets.remove(pid)
            continue
        print(os.getpid(), pid, ",".join(map(str, sorted(mask))), file=log)
        time.sleep(random.uniform(0.001, 0.002))
EOF_STORM
wait "${pids[@]}"
trace_end "$work/trace"

python3 - "$work" "$slack_ns" "${pids[@]}" >"$work/verdict" <<'EOF'
import glob, json, re, sys

work, slack, targets = sys.argv[1], int(sys.argv[2]), set(map(int, sys.argv[3:]))

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
calls = []	# in the order made: {target, mask}, then enter, exit, ret
for line in open(work + "/calls"):
    caller, target, mask = line.split()
    calls.append({"caller": int(caller), "target": int(target), "mask": cpus(mask)})
storm = calls[0]["caller"] if calls else -1

record = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+\S+\s+([\d.]+): (.*)$")
waits, switches, entered, exited = [], [], [], []
for line in open(work + "/trace"):
    m = record.match(line)
    if not m:
        continue
    pid, cpu, ts, rest = int(m.group(2)), int(m.group(3)), int(float(m.group(4)) * 1e9), m.group(5)
    if rest.startswith("sys_sched_setaffinity(") and pid == storm:
        entered.append(ts)
    elif rest.startswith("sys_sched_setaffinity ->") and pid == storm:
        exited.append((ts, int(rest.rsplit("->", 1)[1], 16)))
    elif rest.startswith("sched_affinity_wait: "):
        f = dict(kv.split("=", 1) for kv in rest.split()[1:] if "=" in kv)
        waits.append({"caller": pid, "target": int(f["pid"]), "cpu": int(f["cpu"]),
                      "end": ts, "wait": int(f["wait_ns"])})
    elif rest.startswith("sched_switch: "):
        nxt = int(re.search(r"next_pid=(\d+)", rest).group(1))
        if nxt in targets:
            switches.append((ts, nxt, cpu))

# The storm logs the calls that succeeded; a call to a thread that was gone
# failed and is not logged, and was the last for that thread.
ok = [(e, x) for e, (x, ret) in zip(entered, exited) if ret == 0]
for call, (enter, exit) in zip(calls, ok):
    call["enter"], call["exit"] = enter, exit
calls = [c for c in calls if "exit" in c]

def section_at(pid, t):
    for start, end, cpu in sections.get(pid, []):
        if start <= t <= end:
            return start, end, cpu
    return None

# 1: each wait names a section of its task on that CPU that ended in it.
unexplained = [w for w in waits if not any(
    cpu == w["cpu"] and w["end"] - w["wait"] - slack <= end <= w["end"] + slack
    for start, end, cpu in sections.get(w["target"], []))]
# 2: calls in the middle of a section, to a mask without its CPU.
def in_middle(call):
    s = section_at(call["target"], call["enter"])
    return s and s[0] + slack < call["enter"] < s[1] - slack and s[2] not in call["mask"]

must_wait = [call for call in calls if in_middle(call)]
missing = [call for call in must_wait if not any(
    w["target"] == call["target"] and call["enter"] <= w["end"] <= call["exit"] + slack
    for w in waits)]
# 3: after each successful call, until the task's next call, it runs in its
# mask once the section it was in as the call returned has ended.
# The next call to the task changes its mask as it enters.
outside = []
by_target = {}
for call in calls:
    by_target.setdefault(call["target"], []).append(call)
for pid, done in by_target.items():
    for i, call in enumerate(done):
        t, mask = call["exit"], call["mask"]
        until = done[i + 1]["enter"] if i + 1 < len(done) else float("inf")
        s = section_at(pid, t)
        since = max(t, s[1] if s else t) + slack
        outside += [(pid, ts, cpu, sorted(mask)) for ts, p, cpu in switches
                    if p == pid and since <= ts < until and cpu not in mask]

print(f"calls {len(calls)} in_section_to_other_cpus {len(must_wait)} waits {len(waits)} "
      f"switches {len(switches)}")
print(f"unexplained {len(unexplained)} {unexplained[:3]}")
print(f"missing {len(missing)} {missing[:3]}")
print(f"outside {len(outside)} {outside[:3]}")
EOF
tap_diag "$(cat "$work/verdict")"
verdict() { sed -n "s/^$1 \([0-9]*\).*/\1/p" "$work/verdict"; }
tap_check "the storm made calls in the middle of sections, to other CPUs ($(sed -n 's/.*in_section_to_other_cpus \([0-9]*\).*/\1/p' "$work/verdict"))" \
	test "$(sed -n 's/.*in_section_to_other_cpus \([0-9]*\).*/\1/p' "$work/verdict")" -ge 5
tap_check "and some waited for a section, by the kernel's events" \
	test "$(sed -n 's/.* waits \([0-9]*\).*/\1/p' "$work/verdict")" -ge 1
tap_equal "every sched_affinity_wait names a section of its task that ended in it" 0 \
	"$(verdict unexplained)"
tap_equal "every call made inside a section, away from its CPU, has its wait" 0 \
	"$(verdict missing)"
tap_equal "no task ran outside its new mask once its section had ended" 0 \
	"$(verdict outside)"
tap_equal "every section stayed on its CPU" 0 \
	"$(cat "$work"/sections.* | jq -s 'map(select(.cpu_enter != .cpu_exit)) | length')"
rm -rf "$work"
