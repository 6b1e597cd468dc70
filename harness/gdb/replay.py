# netlab's gdb commands for the replay of a recorded run (netlab gdb
# --replay sources this). QEMU's forward replay is deterministic: the same
# instruction count (icount) is the same machine state, every time. So going
# back is going forward again: a new replay of the recording, run to the
# icount with QEMU's replay_break. (QEMU's own way back, reloading the
# snapshot it took at gdb's attach, as replay_seek and reverse-continue do,
# stalls a few thousand instructions after the reload with QEMU 10 here.)
#
#   nl-icount            the instruction count of the replay here
#   nl-stops             the icounts of every stop of this session
#   nl-goto ICOUNT       go to that icount (back: a new replay, run forward)
#   nl-back [N]          the previous stop; with N: N instructions back
#   nl-until first-drop  run to the first packet drop (see below)
#   nl-until FUNC [if EXPR]   run to the next call of a kernel function
#   nl-drop-report       backtrace, skb and ring state of a drop stop
#
# A "drop" is what the kernel's skb:kfree_skb tracepoint reports and netlab's
# drop report counts: kfree_skb_reason() freeing an skb (its last reference).
# With the recorded run's trace (NETLAB_FIRST_DROP, set by netlab from the
# run's trace.dat), first-drop is the first drop that trace holds: the same
# return address (location) and reason.
import gdb
import os
import re
import time

_stops = []        # icounts of this session's stops, in the order they came


def nl_icount():
    out = gdb.execute("monitor info replay", to_string=True)
    m = re.search(r"instruction count = (\d+)", out)
    if not m:
        raise gdb.GdbError("netlab: not a replay (monitor info replay: %s)" % out.strip())
    return int(m.group(1))


def _note_stop(ic=None):
    ic = nl_icount() if ic is None else ic
    if not _stops or _stops[-1] != ic:
        _stops.append(ic)
    return ic


_moving = False     # nl-goto under way: its intermediate stops are not stops


def _on_stop(ev):
    if _moving:
        return
    try:
        _note_stop()
    except gdb.error:
        pass


gdb.events.stop.connect(_on_stop)


class _Quiet:
    """Breakpoints off while netlab runs the replay to an icount."""
    def __enter__(self):
        self.on = [b for b in (gdb.breakpoints() or []) if b.enabled]
        for b in self.on:
            b.enabled = False

    def __exit__(self, *a):
        for b in self.on:
            b.enabled = True


def _restart():
    """A new QEMU on the same recording, at icount 0 (see netlab gdb's
    restart_asked()): QEMU's own way back, its snapshot at icount 0, stalls
    after the reload with QEMU 10 here."""
    d = os.environ.get("NETLAB_REPLAY_DIR")
    sock = os.environ.get("NETLAB_REPLAY_SOCKET")
    if not d or not sock:
        raise gdb.GdbError("netlab: going back needs netlab gdb --replay (NETLAB_REPLAY_DIR)")
    done = os.path.join(d, "nl-restarted")
    before = open(done).read() if os.path.exists(done) else ""
    gdb.execute("disconnect", to_string=True)
    open(os.path.join(d, "nl-restart"), "w").close()
    t0 = time.time()
    while True:
        now = open(done).read() if os.path.exists(done) else ""
        if now and now != before:
            break
        if time.time() - t0 > 120:
            raise gdb.GdbError("netlab: the replay was not restarted in 120 s")
        time.sleep(0.1)
    if not now.startswith("ok"):
        raise gdb.GdbError("netlab: the replay could not be restarted (%s)" % now.strip())
    # QEMU creates its gdbstub socket a moment after it starts.
    while True:
        try:
            gdb.execute("target remote %s" % sock, to_string=True)
            return
        except gdb.error:
            if time.time() - t0 > 120:
                raise
            time.sleep(0.2)


def nl_goto(target):
    global _moving
    cur = nl_icount()
    if target == cur:
        return cur
    _moving = True
    try:
        _goto(cur, target)
    finally:
        _moving = False
    ic = _note_stop()
    gdb.write("netlab: at icount %d (asked %d)\n" % (ic, target))
    gdb.execute("frame", to_string=False)
    return ic


def _goto(cur, target):
    with _Quiet():
        if target < cur:
            _restart()
        if target > 0:
            gdb.execute("monitor replay_break %d" % target, to_string=True)
            gdb.execute("continue", to_string=True)
    gdb.execute("maintenance flush register-cache", to_string=True)


class NlIcount(gdb.Command):
    """nl-icount: the replay's instruction count here."""
    def __init__(self):
        super().__init__("nl-icount", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        gdb.write("icount %d\n" % nl_icount())


class NlStops(gdb.Command):
    """nl-stops: the instruction counts of this session's stops, in order."""
    def __init__(self):
        super().__init__("nl-stops", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        for i, ic in enumerate(_stops):
            gdb.write("stop %d: icount %d\n" % (i + 1, ic))


class NlGoto(gdb.Command):
    """nl-goto ICOUNT: go to that instruction count of the replay, forward or
back (back: a new replay from icount 0, run forward with breakpoints off)."""
    def __init__(self):
        super().__init__("nl-goto", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        try:
            target = int(gdb.parse_and_eval(arg))
        except (gdb.error, ValueError):
            raise gdb.GdbError("usage: nl-goto ICOUNT")
        nl_goto(target)


class NlBack(gdb.Command):
    """nl-back [N]: back to the previous stop of this session (the latest
stop before the current icount: the previous drop, breakpoint hit or goto);
with N, N instructions back."""
    def __init__(self):
        super().__init__("nl-back", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        cur = nl_icount()
        if arg.strip():
            n = int(gdb.parse_and_eval(arg))
            target = max(cur - n, 0)
        else:
            earlier = [ic for ic in _stops if ic < cur]
            if not earlier:
                raise gdb.GdbError("nl-back: no stop before icount %d in this session" % cur)
            target = max(earlier)
        nl_goto(target)


# ---- drops ------------------------------------------------------------------

def _u64(expr):
    return int(gdb.parse_and_eval(expr)) & 0xffffffffffffffff


def _call_site(ret):
    """The call instruction before return address `ret`, if it is a direct
    call (e8 rel32) to kfree_skb_reason; else None."""
    try:
        b = bytes(gdb.selected_inferior().read_memory(ret - 5, 5))
        target = (ret + int.from_bytes(b[1:5], "little", signed=True)) & 0xffffffffffffffff
        if b[0] == 0xe8 and target == _u64("(unsigned long)&kfree_skb_reason"):
            return ret - 5
    except gdb.error:
        pass
    return None


class DropBreak(gdb.Breakpoint):
    """A drop: kfree_skb_reason() freeing an skb's last reference. At its
first instruction (skb in rdi, reason in esi, the return address, which the
tracepoint reports as `location`, at the stack top); or, when the location
is known and is a direct call, at that call: only its own calls stop the
replay, so gdb is not asked about every other free."""
    def __init__(self, location=None, reason=None):
        self.site = _call_site(location) if location is not None else None
        spec = "*0x%x" % self.site if self.site is not None else "*kfree_skb_reason"
        super().__init__(spec, type=gdb.BP_HARDWARE_BREAKPOINT, internal=True)
        self.want_loc = location
        self.want_reason = reason
        self.hit = None
        self.at_call = False

    def stop(self):
        try:
            skb = _u64("$rdi")
            reason = _u64("$esi") & 0xffffffff
            if self.site is not None:
                loc = self.want_loc
            else:
                loc = _u64("*(unsigned long *)$sp")
            users = int(gdb.parse_and_eval("((struct sk_buff *)%d)->users.refs.counter" % skb))
        except gdb.error:
            return False
        if users != 1:
            return False    # not freed here: the tracepoint does not fire
        if self.want_loc is not None and loc != self.want_loc:
            return False
        if self.want_reason is not None and reason != self.want_reason:
            return False
        self.hit = (skb, reason, loc)
        return True


def _reason_name(v):
    try:
        return str(gdb.parse_and_eval("(enum skb_drop_reason)%d" % v))
    except gdb.error:
        return str(v)


def _ip4(x):
    return "%d.%d.%d.%d" % (x & 0xff, (x >> 8) & 0xff, (x >> 16) & 0xff, (x >> 24) & 0xff)


def _be16(x):
    return ((x & 0xff) << 8) | ((x >> 8) & 0xff)


def skb_text(skb_addr):
    """One line on the skb; what cannot be read is said so (an skb freed
    from a socket's queue reuses its dev field for other data)."""
    try:
        return _skb_text(skb_addr)
    except gdb.error as e:
        return "skb 0x%x: unreadable (%s)" % (skb_addr, e)


def _skb_text(skb_addr):
    s = gdb.parse_and_eval("(struct sk_buff *)%d" % skb_addr).dereference()
    head = int(s["head"])
    proto = _be16(int(s["protocol"]))
    dev = s["dev"]
    try:
        name = dev["name"].string() if int(dev) else "?"
    except gdb.error:
        name = "?"
    out = "skb 0x%x: len=%d data_len=%d protocol=0x%04x dev=%s" % (
        skb_addr, int(s["len"]), int(s["data_len"]), proto, name)
    nh = int(s["network_header"])
    if proto == 0x0800 and nh != 0xffff:
        ip = head + nh
        b = bytes(gdb.selected_inferior().read_memory(ip, 20))
        ihl = (b[0] & 0xf) * 4
        l4 = b[9]
        src = _ip4(int.from_bytes(b[12:16], "little"))
        dst = _ip4(int.from_bytes(b[16:20], "little"))
        out += " ipv4 %s > %s proto %d" % (src, dst, l4)
        if l4 in (6, 17):
            p = bytes(gdb.selected_inferior().read_memory(ip + ihl, 4))
            out += " ports %d > %d" % (int.from_bytes(p[0:2], "big"), int.from_bytes(p[2:4], "big"))
    return out


def ring_text(skb_addr):
    """The RX ring of the e1000e device the skb came in on, if it did."""
    try:
        dev = gdb.parse_and_eval("((struct sk_buff *)%d)->dev" % skb_addr)
        if not int(dev):
            return "ring: the skb has no device"
        drv = dev["dev"]["parent"]["driver"]
        dname = drv["name"].string() if int(dev["dev"]["parent"]) and int(drv) else "?"
        if dname != "e1000e":
            return "ring: %s is driven by %s (netlab's ring view is e1000e's)" % (
                dev["name"].string(), dname)
        size = int(gdb.parse_and_eval("sizeof(struct net_device)"))
        t = gdb.lookup_type("struct e1000_adapter", gdb.lookup_symbol("e1000_clean_rx_irq")[0].symtab.static_block()).pointer()
        adapter = gdb.Value(int(dev) + ((size + 31) & ~31)).cast(t)
        r = adapter["rx_ring"]
        ntu, ntc, cnt = int(r["next_to_use"]), int(r["next_to_clean"]), int(r["count"])
        return "ring: %s rx next_to_use=%d next_to_clean=%d count=%d in_use=%d" % (
            dev["name"].string(), ntu, ntc, cnt, (ntu - ntc) % cnt if cnt else 0)
    except (gdb.error, AttributeError, TypeError) as e:
        return "ring: unavailable (%s)" % e


def drop_report(hit):
    skb, reason, loc = hit
    gdb.write("netlab: drop at icount %d: reason %s (%d), location %s\n" % (
        nl_icount(), _reason_name(reason), reason,
        gdb.execute("info symbol 0x%x" % loc, to_string=True).strip()))
    gdb.write("netlab: %s\n" % skb_text(skb))
    gdb.write("netlab: %s\n" % ring_text(skb))
    gdb.write("netlab: backtrace:\n")
    gdb.execute("bt")


_last_hit = None


def _env_int(name):
    v = os.environ.get(name, "")
    return int(v, 0) if v else None


class NlUntil(gdb.Command):
    """nl-until first-drop | next-drop | FUNC [if EXPR]: run the replay forward
to the first packet drop of the run (the first of the recorded trace when
netlab found one: same location and reason), to the next drop of any kind,
or to the next call of a kernel function; then print where, the skb and the
ring (drops) and the backtrace."""
    def __init__(self):
        super().__init__("nl-until", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        global _last_hit, _moving
        arg = arg.strip()
        if arg in ("first-drop", "next-drop", "drop"):
            loc = reason = None
            if arg == "first-drop":
                loc = _env_int("NETLAB_FIRST_DROP_LOCATION")
                reason = _env_int("NETLAB_FIRST_DROP_REASON")
                if loc is not None:
                    gdb.write("netlab: the recorded trace's first drop: location 0x%x (%s), reason %s\n" % (
                        loc, gdb.execute("info symbol 0x%x" % loc, to_string=True).strip(),
                        _reason_name(reason) if reason is not None else "?"))
            _moving = True
            try:
                with _Quiet():
                    bp = DropBreak(loc, reason)
                    try:
                        gdb.execute("continue")
                    finally:
                        hit = bp.hit
                        site = bp.site
                        bp.delete()
                if hit and site is not None:
                    # Into kfree_skb_reason, as when it stops at its entry.
                    gdb.execute("stepi", to_string=True)
            finally:
                _moving = False
            if not hit:
                raise gdb.GdbError("nl-until: the replay ended before a drop")
            _last_hit = hit
            _note_stop()
            drop_report(hit)
            return
        if not arg:
            raise gdb.GdbError("usage: nl-until first-drop|next-drop|FUNC [if EXPR]")
        with _Quiet():
            gdb.execute("thbreak %s" % arg)
            gdb.execute("continue")
        _note_stop()
        gdb.write("netlab: at icount %d\n" % nl_icount())
        gdb.execute("bt")


class NlDropReport(gdb.Command):
    """nl-drop-report: the last drop nl-until stopped at, again."""
    def __init__(self):
        super().__init__("nl-drop-report", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if not _last_hit:
            raise gdb.GdbError("nl-drop-report: no drop yet (nl-until first-drop)")
        drop_report(_last_hit)


NlIcount()
NlStops()
NlGoto()
NlBack()
NlUntil()
NlDropReport()
