# netlab's gdb commands for the e1000e receive path (netlab gdb sources this).
# The kernel has two drivers with functions of the same names (e1000 and
# e1000e): the breakpoints name the e1000e file.

define nl-e1000e-rx
  hbreak e1000e/netdev.c:e1000_clean_rx_irq
end
document nl-e1000e-rx
Hardware breakpoint on e1000e's RX clean routine (called from e1000e_poll, NAPI).
end

python
import gdb

def _nl_find(names):
    """The first of `names` readable in the selected frame or a caller."""
    f = gdb.selected_frame()
    while f is not None:
        for n in names:
            try:
                v = f.read_var(n)
            except (ValueError, gdb.error):
                continue
            if not v.is_optimized_out:
                return n, v, f
        f = f.older()
    return None, None, None

def _nl_ring_of(name, v, f):
    if name == "rx_ring":
        return v
    if name == "adapter":
        return v["rx_ring"]
    # napi: the adapter that embeds it (container_of), typed from the
    # frame's own compilation unit (e1000 has a struct of the same name).
    t = gdb.lookup_type("struct e1000_adapter", f.block()).pointer()
    off = int(gdb.parse_and_eval("(unsigned long)&((%s)0)->napi" % t))
    adapter = gdb.Value(int(v) - off).cast(t)
    return adapter["rx_ring"]

class NlRing(gdb.Command):
    """nl-ring: the e1000e RX ring in scope (rx_ring, adapter or napi of this
frame or a caller): next_to_use, next_to_clean, count, and descriptors the
driver still has to clean."""
    def __init__(self):
        super().__init__("nl-ring", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        name, v, f = _nl_find(["rx_ring", "adapter", "napi"])
        if v is None:
            raise gdb.GdbError("nl-ring: no rx_ring, adapter or napi in scope (stop in e1000e first: nl-e1000e-rx)")
        r = _nl_ring_of(name, v, f)
        ntu, ntc, cnt = int(r["next_to_use"]), int(r["next_to_clean"]), int(r["count"])
        gdb.write("rx_ring %s (from %s in %s): next_to_use=%d next_to_clean=%d count=%d in_use=%d\n"
                  % (r, name, f.name(), ntu, ntc, cnt, (ntu - ntc) % cnt if cnt else 0))

NlRing()

class NlSkb(gdb.Command):
    """nl-skb: the skb e1000e hands up the stack (e1000_receive_skb): stops
there (a temporary hardware breakpoint, unless already there) and prints its
length, protocol, device and first bytes."""
    def __init__(self):
        super().__init__("nl-skb", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if gdb.selected_frame().name() != "e1000_receive_skb":
            gdb.execute("thbreak e1000e/netdev.c:e1000_receive_skb")
            gdb.execute("continue")
        skb = gdb.selected_frame().read_var("skb")
        proto = int(skb["protocol"])
        proto = ((proto & 0xff) << 8) | (proto >> 8)
        dev = skb["dev"]
        devname = dev["name"].string() if int(dev) else "?"
        n = min(int(skb["len"]) - int(skb["data_len"]), 34)
        data = gdb.selected_inferior().read_memory(int(skb["data"]), n) if n > 0 else b""
        gdb.write("skb %s: len=%d data_len=%d protocol=0x%04x dev=%s data=%s\n"
                  % (skb, int(skb["len"]), int(skb["data_len"]), proto, devname,
                     bytes(data).hex()))

NlSkb()

class NlHelp(gdb.Command):
    """nl-help: netlab's gdb commands."""
    def __init__(self):
        super().__init__("nl-help", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        gdb.write("netlab commands:\n"
                  "  nl-e1000e-rx  hbreak on e1000e's e1000_clean_rx_irq (NAPI poll path)\n"
                  "  nl-ring       the RX ring in scope: next_to_use, next_to_clean, count\n"
                  "  nl-skb        stop where e1000e hands an skb up (e1000_receive_skb) and show it\n"
                  "replays (netlab gdb --replay):\n"
                  "  nl-until first-drop|next-drop|FUNC   run forward to a drop or a function\n"
                  "  nl-icount, nl-stops   the instruction count here, and of each stop\n"
                  "  nl-goto ICOUNT, nl-back [N]   to an icount / the previous stop / N back\n"
                  "  nl-drop-report        the last drop's skb, ring and backtrace\n"
                  "kernel commands (scripts/gdb): lx-dmesg, lx-ps, lx-symbols, lx-lsmod, ...\n")

NlHelp()
end
