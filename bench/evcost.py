# SPDX-License-Identifier: GPL-2.0
# bench/evcost.py: a gdb batch file for `netlab gdb --batch` (bench/evcost).
# Counts the guest instructions a traced event costs, by single-stepping the
# guest kernel through it (QEMU's gdbstub steps one instruction at a time,
# with interrupts and timers off while it steps).
#
# EVCOST_TARGETS: blank-separated KIND:SYMBOL[=LABEL], each measured
# EVCOST_SAMPLES times (default 3), one hardware breakpoint at a time:
#   call:SYM   from SYM's entry to its return: a tracepoint's iterator
#              (__traceiter_net_dev_xmit: every probe attached to it), or any
#              function
#   ret:SYM    from SYM's entry until the stack pointer is back where it
#              was: a return trampoline (arch_rethook_trampoline: a
#              kretprobe's return handler)
#   entry:SYM  from SYM's entry to the instruction after its fentry call:
#              what a kprobe on SYM's entry (kprobes on ftrace) costs; 1 when
#              nothing is attached
# Prints "evcost LABEL SAMPLE STEPS" per sample and, for the first sample, the
# functions that took the steps ("evcost-fn LABEL STEPS FUNCTION").
import bisect
import os
import subprocess

import gdb

MAX_STEPS = 200000


def symbols():
    vmlinux = gdb.current_progspace().filename
    out = subprocess.run(["nm", "-n", vmlinux], capture_output=True, text=True).stdout
    addrs, names, etext = [], [], 0
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW":
            addrs.append(int(f[0], 16))
            names.append(f[2])
        if len(f) == 3 and f[2] == "_etext":
            etext = int(f[0], 16)
    return addrs, names, etext


ADDRS, NAMES, ETEXT = symbols()


def sym(pc):
    """The function at pc; code outside the kernel's text (ftrace's and
    kprobes' trampolines are allocated at run time) is "[trampoline]"."""
    if pc >= ETEXT or pc < ADDRS[0]:
        return "[trampoline]"
    i = bisect.bisect_right(ADDRS, pc) - 1
    return NAMES[i]


def reg(name):
    return int(gdb.parse_and_eval("$" + name)) & 0xFFFFFFFFFFFFFFFF


def measure(kind, symbol):
    entry = int(gdb.parse_and_eval("(unsigned long)&" + symbol))
    sp0 = reg("sp")
    pcs = []
    while len(pcs) < MAX_STEPS:
        gdb.execute("stepi", to_string=True)
        pc, sp = reg("pc"), reg("sp")
        pcs.append(pc)
        if kind == "call" and sp > sp0:
            break
        if kind == "entry" and sp == sp0 and pc != entry:
            break
        if kind == "ret" and sp >= sp0:
            break
    return pcs


def main():
    targets = os.environ.get("EVCOST_TARGETS", "").split()
    samples = int(os.environ.get("EVCOST_SAMPLES", "3"))
    gdb.execute("set pagination off")
    # Wait for the traffic (and the recording) to run: a packet's arrival at
    # EVCOST_WARMUP, EVCOST_WARMUP_HITS times.
    warm = os.environ.get("EVCOST_WARMUP", "")
    if warm:
        gdb.execute("hbreak *(unsigned long)&" + warm, to_string=True)
        for _ in range(int(os.environ.get("EVCOST_WARMUP_HITS", "20"))):
            gdb.execute("continue", to_string=True)
    for t in targets:
        kind, rest = t.split(":", 1)
        symbol, _, label = rest.partition("=")
        label = label or symbol
        gdb.execute("delete")
        gdb.execute("hbreak *(unsigned long)&" + symbol, to_string=True)
        for s in range(samples):
            gdb.execute("continue", to_string=True)
            pcs = measure(kind, symbol)
            print("evcost %s %d %d" % (label, s, len(pcs)), flush=True)
            if s == 0:
                by = {}
                for pc in pcs:
                    n = sym(pc)
                    by[n] = by.get(n, 0) + 1
                for n, c in sorted(by.items(), key=lambda kv: -kv[1]):
                    print("evcost-fn %s %d %s" % (label, c, n), flush=True)
    gdb.execute("delete")
    gdb.execute("detach")


main()
