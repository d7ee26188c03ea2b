"""QEMU's monitor (QMP, and HMP through it) as the guest tools read it:
each vCPU's registers, guest memory, and the kernel's text and symbols."""
import collections
import json
import re
import socket
import subprocess


def qmp_session(path):
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(10)
    sock.connect(path)
    stream = sock.makefile("rw")
    json.loads(stream.readline())  # the greeting

    def execute(command, **arguments):
        request = {"execute": command}
        if arguments:
            request["arguments"] = arguments
        stream.write(json.dumps(request) + "\n")
        stream.flush()
        while True:
            reply = json.loads(stream.readline())
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise RuntimeError(reply["error"].get("desc", "QMP error"))

    execute("qmp_capabilities")
    # The stream holds the socket open until it is closed too.
    execute.close = lambda: (stream.close(), sock.close())
    return execute


def over_qmp(path, call, *args):
    """call(execute, *args) in a QMP session of its own: the monitor takes
    one client at a time, and guest/stale-text and guest/vcpu-ips share it."""
    execute = qmp_session(path)
    try:
        return call(execute, *args)
    finally:
        execute.close()


# A vCPU as "info registers" shows it: where it is, its stack pointer,
# whether it takes interrupts (IF), and whether it waits in hlt.
Vcpu = collections.namedtuple("Vcpu", "rip rsp interrupts_on halted")


def registers(execute):
    """{cpu: Vcpu} from HMP 'info registers -a'."""
    text = execute("human-monitor-command", **{"command-line": "info registers -a"})
    found = {}
    for block in re.split(r"^CPU#", text, flags=re.M)[1:]:
        cpu = int(block.split(None, 1)[0])
        fields = dict(re.findall(r"\b(RIP|RSP|RFL|HLT)=([0-9a-f]+)", block))
        if len(fields) == 4:
            found[cpu] = Vcpu(int(fields["RIP"], 16), int(fields["RSP"], 16),
                              bool(int(fields["RFL"], 16) & 0x200), fields["HLT"] == "1")
    return found


# Kernel addresses map alike in every vCPU; user ones only in their process.
KERNEL_SPACE = 0xffff800000000000


def dump(execute, command, digits, cpu=None):
    """The values an HMP 'x' command prints, each digits hex digits long,
    through cpu's page tables (cpu0's by default); fewer than asked for
    where memory stops being mapped."""
    arguments = {"command-line": command}
    if cpu is not None:
        arguments["cpu-index"] = cpu
    text = execute("human-monitor-command", **arguments)
    return [value for line in text.splitlines() if ":" in line
            for value in re.findall(r"\b0x([0-9a-f]{%d})\b" % digits, line.split(":", 1)[1])]


def memory_at(execute, address):
    """The 8 bytes guest memory holds at a kernel virtual address."""
    return " ".join(dump(execute, "x/8xb 0x%x" % address, 2))


def words_at(execute, cpu, address, count):
    """Up to count 8-byte words from address on, as cpu sees them."""
    return [int(word, 16) for word in dump(execute, "x/%dgx 0x%x" % (count, address), 16, cpu)]


def text_ranges(vmlinux):
    """The addresses of vmlinux's executable sections (.text, .init.text, ...)."""
    try:
        out = subprocess.run(["readelf", "-SW", vmlinux],
                             capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    # [Nr] Name Type Address Off Size ES Flg ...
    sections = re.findall(r"^ *\[ *\d+\] +\S+ +\S+ +([0-9a-f]+) +[0-9a-f]+ +([0-9a-f]+) "
                          r"+[0-9a-f]+ +([A-Za-z]+) ", out, re.M)
    return [range(int(address, 16), int(address, 16) + int(size, 16))
            for address, size, flags in sections if "X" in flags]


def symbolize(vmlinux, addresses):
    if not vmlinux or not addresses:
        return {}
    try:
        out = subprocess.run(["addr2line", "-f", "-p", "-e", vmlinux]
                             + ["%x" % a for a in addresses],
                             capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return dict(zip(addresses, out.splitlines()))
