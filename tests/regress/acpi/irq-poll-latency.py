#!/usr/bin/env python3
"""irq -> poll_start latency of one e1000 NIC, from a guest's ftrace text.

usage: irq-poll-latency.py TRACE.txt [IFNAME]   (default ethA)

The trace must hold the driver patches' trace_printk lines
("netlab_drv: e1000 ethA irq ...", "... poll_start ...") and the
irq:irq_handler_entry event. For every interrupt the NIC's handler claimed
it prints two latencies:
  drv  : the driver's "irq" line -> its next "poll_start"
  line : the first handler entry of that hard interrupt (whoever shares the
         line runs first) -> the same poll_start
and how often the NIC's handler ran for an interrupt that was not its own
(a shared line: e1000_intr read ICR = 0 and returned IRQ_NONE).
"""
import re
import sys

LINE = re.compile(r'\[\d+\]\s+(\S+)\s+(\d+\.\d+): (\S+): (.*)$')


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, max(0, int(round(p / 100.0 * len(v) + 0.5)) - 1))] if v else float('nan')


def main():
    path, ifname = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else 'ethA')
    drv, line, foreign = [], [], 0
    group_start = None      # first timestamp of the current hard interrupt
    in_hard = False
    pending = None          # (group_start, irq line time) awaiting poll_start
    entered = False         # our handler entered in this hard interrupt
    claimed = False
    for raw in open(path, errors='replace'):
        m = LINE.search(raw)
        if not m:
            continue
        flags, ts, fn, msg = m.group(1), float(m.group(2)) * 1e6, m.group(3), m.group(4)
        hard = len(flags) > 2 and flags[2] in 'hH'
        if hard and not in_hard:
            if entered and not claimed:
                foreign += 1
            group_start, entered, claimed = ts, False, False
        in_hard = hard
        if fn == 'irq_handler_entry' and msg.endswith('name=' + ifname):
            entered = True
        elif msg.startswith('netlab_drv: e1000 %s irq ' % ifname):
            claimed = True
            pending = (group_start if hard else ts, ts)
        elif msg.startswith('netlab_drv: e1000 %s poll_start' % ifname) and pending:
            line.append(ts - pending[0])
            drv.append(ts - pending[1])
            pending = None
    if entered and not claimed:
        foreign += 1
    print('%s: %d interrupts claimed, %d handler runs for another device\'s interrupt'
          % (ifname, len(drv), foreign))
    for name, v in (('drv ', drv), ('line', line)):
        print('  %s irq->poll_start us: p50 %.0f  p90 %.0f  p99 %.0f  max %.0f'
              % (name, pct(v, 50), pct(v, 90), pct(v, 99), max(v) if v else float('nan')))


if __name__ == '__main__':
    main()
