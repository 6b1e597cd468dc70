#!/usr/bin/env python3
# drvstages.py TRACE.DAT: the driver-internal receive and transmit stages,
# counted from `trace-cmd report -t` lines alone (no netlab code): for each
# IPv4 packet handed off by a patched driver (by its line's proto=, else by
# napi_gro_receive_entry's protocol), its device's latest interrupt
# (when the poll was the first since), poll_start and rx_desc; for each
# transmitted skb, net_dev_start_xmit -> the driver's xmit line -> its
# tx_done. Without driver lines, the fallback probes (netlab:drv_DRIVER_*):
# a packet handed to GRO inside a poll on its CPU takes that poll, and the
# driver's receive interrupt when the poll was the driver's first since.
# Prints one line per stage: NAME COUNT P50_US.
import re, subprocess, sys

out = subprocess.run(["trace-cmd", "report", "-t", "-i", sys.argv[1]], capture_output=True,
                     text=True, check=True).stdout
ts_re = re.compile(r"\[(\d+)\]\s+(\d+\.\d+):\s+(\S+):\s+(.*)$")
probe_re = re.compile(r"drv_(e1000e|e1000|virtio_net)_(\w+)$")
p_irq, p_last, p_cpu = {}, {}, {}
dev = {}
pend = {}
txs = {}
st = {"irq_poll": [], "poll_handoff": [], "desc_handoff": [], "drv_xmit": [], "drv_done": []}
for line in out.splitlines():
    m = ts_re.search(line)
    if not m:
        continue
    cpu, ts = int(m.group(1)), round(float(m.group(2)) * 1e9)
    ev, rest = m.group(3), m.group(4)
    pm = probe_re.match(ev)
    if pm:
        drv, role = pm.group(1), pm.group(2)
        if role.startswith("irq") and not role.startswith("irq_tx"):
            p_irq[drv] = ts
        elif role == "poll":
            i = p_irq.get(drv, 0)
            p_cpu[cpu] = (ts, i if i > p_last.get(drv, 0) else 0)
            p_last[drv] = ts
        elif role == "poll_ret":
            p_cpu.pop(cpu, None)
        continue
    if ev == "net_dev_start_xmit":
        a = re.search(r"skbaddr=(0x[0-9a-f]+)", rest)
        if a and "protocol=0x0800" in rest:
            txs[int(a.group(1), 16)] = [ts, 0]
        continue
    if ev == "napi_gro_receive_entry":
        a = re.search(r"skbaddr=(0x[0-9a-f]+)", rest)
        p = pend.pop(int(a.group(1), 16), None)
        if p is None and cpu in p_cpu:
            poll, irq = p_cpu[cpu]
            p = {"irq_poll": poll - irq if irq else None, "poll_handoff": ts - poll}
        if p and "protocol=0x0800" in rest:
            for k, v in p.items():
                if v is not None:
                    st[k].append(v)
        continue
    if "netlab_drv: " not in rest:
        continue
    f = rest.split("netlab_drv: ", 1)[1].split()
    name, what = f[1], f[2]
    kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
    d = dev.setdefault(name, {"irq": 0, "poll": 0, "poll_irq": 0, "desc": 0})
    skb = int(kv["skb"].rstrip("x"), 16) if "skb" in kv else 0
    if what == "irq" and kv.get("dir") != "tx":
        d["irq"] = ts
    elif what == "poll_start":
        d["poll_irq"] = d["irq"] if d["irq"] > d["poll"] else 0
        d["poll"] = ts
        d["desc"] = 0
    elif what == "rx_desc":
        d["desc"] = ts
    elif what == "rx_handoff":
        p = {
            "irq_poll": d["poll"] - d["poll_irq"] if d["poll_irq"] and d["poll"] else None,
            "poll_handoff": ts - d["poll"] if d["poll"] else None,
            "desc_handoff": ts - d["desc"] if d["desc"] else None,
        }
        d["desc"] = 0
        if "proto" not in kv:
            pend[skb] = p  # IPv4 or not: napi_gro_receive_entry's protocol says
        elif int(kv["proto"], 16) == 0x0800:
            for k, v in p.items():
                if v is not None:
                    st[k].append(v)
    elif what == "xmit" and skb in txs and not txs[skb][1]:
        st["drv_xmit"].append(ts - txs[skb][0])
        txs[skb][1] = ts
    elif what == "tx_done" and skb in txs and txs[skb][1]:
        st["drv_done"].append(ts - txs[skb][1])
        del txs[skb]
for k, v in st.items():
    v.sort()
    p50 = v[(len(v) - 1) // 2] / 1000 if v else -1
    print(k, len(v), "%.3f" % p50)
