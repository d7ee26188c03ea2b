# SPDX-License-Identifier: GPL-2.0
"""What the md-* investigation scripts share: recording trace events with
tracefs or trace-cmd, and reading recordings back as events.

A recording is either a trace-cmd file (trace.dat, read with
"trace-cmd report") or text in the tracefs format: the "trace" file of a
tracefs instance, or what "trace-cmd report" prints.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys

TRACEFS = "/sys/kernel/tracing"
TRACE_CMD_MAGIC = b"\x17\x08\x44tracing"

# Exit statuses of every md-* script.
EXIT_USAGE = 2       # bad arguments
EXIT_PRIVILEGE = 3   # not root
EXIT_NO_EVENTS = 4   # the kernel lacks the trace events (the mdstat series)
EXIT_INPUT = 5       # the recording cannot be read
EXIT_ACTION = 6      # the action under study (offline, affinity change) failed

EXIT_DOC = ("exit status: 0 done, 2 bad arguments, 3 not root, 4 the kernel "
            "lacks the trace events, 5 the recording cannot be read, 6 the "
            "action under study failed")

# "comm-pid [cpu] flags timestamp: event: fields", the flags optional.
LINE = re.compile(r"^\s*(?P<comm>.+?)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?"
                  r"\[(?P<cpu>\d+)\]\s+(?:\S+\s+)?(?P<ts>\d+\.\d+):\s+"
                  r"(?P<event>\w+):\s?(?P<body>.*)$")
FIELD = re.compile(r"(\w+)=(\S*)")
CPUHP = re.compile(r"cpu:\s*(?P<cpu>\d+)\s+(?:target|state):\s*(?P<state>-?\d+)\s+"
                   r"step:\s*(?P<step>\d+)(?:\s+\((?P<fun>[^)]*)\))?(?:\s+ret:\s*(?P<ret>-?\d+))?")


class Event:
    """One trace event: who logged it, where, when, and its fields."""

    __slots__ = ("comm", "pid", "cpu", "ts", "name", "fields", "body")

    def __init__(self, comm, pid, cpu, ts, name, body):
        self.comm, self.pid, self.cpu, self.ts = comm, pid, cpu, ts
        self.name, self.body = name, body
        if name.startswith("cpuhp_"):
            m = CPUHP.search(body)
            self.fields = {k: v for k, v in m.groupdict().items() if v is not None} if m else {}
        else:
            self.fields = dict(FIELD.findall(body))

    def int(self, field, default=-1):
        try:
            return int(self.fields[field])
        except (KeyError, ValueError):
            return default


def fail(prog, status, message):
    print(f"{prog}: {message}", file=sys.stderr)
    sys.exit(status)


def parse_lines(lines):
    """The events of a text recording, in order."""
    events = []
    for line in lines:
        m = LINE.match(line)
        if m:
            events.append(Event(m["comm"], int(m["pid"]), int(m["cpu"]), float(m["ts"]),
                                m["event"], m["body"]))
    return events


def read_recording(prog, path):
    """The events of a recording file: trace-cmd's or tracefs text."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(TRACE_CMD_MAGIC))
    except OSError as e:
        fail(prog, EXIT_INPUT, f"cannot read {path}: {e.strerror}")
    if head == TRACE_CMD_MAGIC:
        if not shutil.which("trace-cmd"):
            fail(prog, EXIT_INPUT, f"{path} is a trace-cmd file and trace-cmd is not installed")
        # -N: the events as the kernel formats them, as in tracefs (its
        # sched_switch plugin would print "comm:pid [prio] S ==> ...").
        out = subprocess.run(["trace-cmd", "report", "-N", "-i", path],
                             capture_output=True, text=True)
        if out.returncode:
            fail(prog, EXIT_INPUT, f"trace-cmd report -N -i {path} failed: {out.stderr.strip()}")
        return parse_lines(out.stdout.splitlines())
    with open(path, errors="replace") as f:
        events = parse_lines(f)
    if not events:
        fail(prog, EXIT_INPUT, f"{path} holds no trace events (want tracefs text or a trace-cmd file)")
    return events


class Recorder:
    """A tracefs instance of our own that records some events."""

    def __init__(self, prog, events):
        self.prog = prog
        self.dir = f"{TRACEFS}/instances/{prog}-{os.getpid()}"
        if os.geteuid():
            fail(prog, EXIT_PRIVILEGE, "recording needs root (tracefs)")
        for event in events:
            if not os.path.isdir(f"{TRACEFS}/events/{event}"):
                fail(prog, EXIT_NO_EVENTS, f"this kernel has no trace event {event}"
                     + (" (it comes with the mdstat series)" if event.startswith("sched/sched_") else ""))
        os.mkdir(self.dir)
        # CLOCK_MONOTONIC, the clock of the series' wait_ns fields and of
        # BPF: tracefs' default, sched_clock(), need not agree between CPUs
        # (the guest finds its vCPUs' TSCs unsynchronized).
        self.write("trace_clock", "mono")
        self.write("buffer_size_kb", "8192")
        for event in events:
            self.write(f"events/{event}/enable", "1")

    def write(self, name, value):
        with open(f"{self.dir}/{name}", "w") as f:
            f.write(value)

    def stop(self, keep=None):
        """Stop, remove the instance and return its events; keep a copy of
        the text in the file keep."""
        self.write("tracing_on", "0")
        with open(f"{self.dir}/trace", errors="replace") as f:
            text = f.read()
        os.rmdir(self.dir)
        if keep:
            with open(keep, "w") as f:
                f.write(text)
        return parse_lines(text.splitlines())


def preemptions(events):
    """The pinned preemptions in events, as (sched_pinned_preempt, the
    sched_switch that follows it on its CPU or None).  The event names only
    the task and its depth: it fires in __schedule() just before that
    sched_switch, which names the task taking the CPU."""
    out, waiting = [], {}
    for e in events:
        if e.name == "sched_pinned_preempt":
            pair = [e, None]
            out.append(pair)
            waiting[e.cpu] = pair
        elif e.name == "sched_switch" and e.cpu in waiting:
            pair = waiting.pop(e.cpu)
            if e.int("prev_pid") == pair[0].int("pid"):
                pair[1] = e
    return [tuple(pair) for pair in out]


def comms(events):
    """pid -> the last name events gave it (a record's own comm is "<...>"
    where tracefs had not saved it)."""
    names = {}
    for e in events:
        if e.comm != "<...>":
            names[e.pid] = e.comm
        if e.name == "sched_switch":
            for side in ("prev", "next"):
                names[e.int(f"{side}_pid")] = e.fields.get(f"{side}_comm", "?")
        elif "comm" in e.fields and "pid" in e.fields:
            names[e.int("pid")] = e.fields["comm"]
    return names


def has_events(*events):
    return all(os.path.isdir(f"{TRACEFS}/events/{e}") for e in events)


def common_arguments(parser):
    parser.add_argument("-i", "--input", metavar="FILE",
                        help="read a recording (trace-cmd's trace.dat, or tracefs text) "
                             "instead of recording")
    parser.add_argument("-w", "--write-trace", metavar="FILE",
                        help="keep the text of what was recorded in FILE")


class Parser(argparse.ArgumentParser):
    """argparse with a one-line error and EXIT_USAGE on bad arguments."""

    def error(self, message):
        fail(self.prog, EXIT_USAGE, f"{message} (see --help)")


def parser(prog, description):
    return Parser(prog=prog, description=description, epilog=EXIT_DOC)


def ms(seconds):
    return f"{seconds * 1000:.3f}"
