#!/usr/bin/env bash
# The guest is untrusted (issue 32): strings it writes reach the run page,
# the terminal and JSON only escaped, and commands printed to be pasted are
# shell-quoted. The fixture tests/unit/fixtures/runs/hostile is a real run
# whose guest (hostile.sh beside it) wrote markup, event handlers, terminal
# escapes and invalid UTF-8 through trace_marker (netlab_drv lines: driver
# and interface names), its comm, stdout, stderr and the kernel log; its
# result.json was then doctored as a hostile run directory could be (reason,
# kernel version, an interface name, a pcap named "javascript:..."). The page
# is rendered in headless Chromium with alert() hooked: no element, attribute
# or handler of the input's is in the DOM, no alert fires, no link has a
# scheme. NETLAB_SLOW_TESTS=1 also runs hostile.sh in a real guest.
. "$(dirname "$0")/../lib.sh"
[ -x "$NETLAB" ] || skip_all "build/netlab missing (run make)"
command -v python3 >/dev/null || skip_all "python3 missing (make deps)"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
FIX=$TOP/tests/unit/fixtures/runs/hostile
# A run directory whose path is itself hostile: a pasted command must not run it.
BAD='dir $(touch PWNED) `touch PWNED` ; touch PWNED '"it's"
RUN=$T_TMP/$BAD/run-1
mkdir -p "$T_TMP/$BAD"
cp -r "$FIX" "$RUN"

cat >"$T_TMP/dom.py" <<'PY'
# dom.py DOM: what an injection would leave in the DOM Chromium built.
import re, sys
from html.parser import HTMLParser
OURS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "section",
        "table", "tbody", "thead", "tr", "th", "td", "span", "code", "ul", "li", "a", "div", "pre", "svg", "g",
        "line", "polyline", "rect", "circle", "text", "path", "br", "script"}
bad = []
class Page(HTMLParser):
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for k, v in attrs:
            if k.startswith("on"):
                bad.append("handler %s=%r on <%s>" % (k, v, tag))
        if tag not in OURS:
            bad.append("element <%s %s>" % (tag, a))
        if tag == "svg" and not set((a.get("class") or "").split()) & {"plot", "spark"}:
            bad.append("element <svg %s>" % a)
        if tag == "script" and a.get("id") != "t28-hook":
            bad.append("script %s" % a)
        if tag == "a" and re.match(r"^\s*[a-zA-Z][a-zA-Z0-9+.-]*:|^\s*//", a.get("href") or ""):
            bad.append("link with a scheme or host: %r" % a["href"])
        if "data-alerted" in a:
            bad.append("alert() fired: %r" % a["data-alerted"])
dom = open(sys.argv[1], encoding="utf-8").read()
Page().feed(dom)
# The hostile strings are on the page, as text (else this test proves nothing).
for s in ["&lt;svg/onload=Z&gt; &lt;i&gt;", "&lt;svg onload=alert(12)&gt;", "javascript:alert(13)"]:
    if s not in dom:
        bad.append("hostile text missing: %r" % s)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY

cat >"$T_TMP/term.py" <<'PY'
# term.py FILE...: no byte a terminal obeys (C0 but \n \t, DEL, C1) and valid UTF-8.
import sys
bad = 0
for f in sys.argv[1:]:
    b = open(f, "rb").read()
    try:
        t = b.decode("utf-8")
    except UnicodeDecodeError as e:
        print("%s: not UTF-8: %s" % (f, e)); bad = 1; continue
    for i, c in enumerate(t):
        o = ord(c)
        if (o < 0x20 and c not in "\n\t") or o == 0x7f or 0x80 <= o < 0xa0:
            print("%s: raw control 0x%02x at %d: %r" % (f, o, i, t[max(0, i - 30):i + 10])); bad = 1; break
sys.exit(bad)
PY

test_expect_success 'a hostile run page: no element, handler or link of the guest, no alert (Chromium)' '
	"$NETLAB" report --html "$RUN" >/dev/null
	python3 - "$RUN/report.html" "$T_TMP/hooked.html" <<-PY
	import sys
	p = open(sys.argv[1], encoding="utf-8").read()
	hook = "<script id=\"t28-hook\">window.alert = window.confirm = window.prompt = function (m) { document.documentElement.setAttribute(\"data-alerted\", String(m)); };</script>"
	open(sys.argv[2], "w", encoding="utf-8").write(p.replace("<head>", "<head>" + hook, 1))
	PY
	if [ -z "$CHROMIUM" ]; then
		[ "${NETLAB_REQUIRE_BROWSER:-}" != 1 ] || { echo "chromium missing and NETLAB_REQUIRE_BROWSER=1"; false; }
		echo "# chromium missing: the page is checked as written, not rendered"
		cp "$T_TMP/hooked.html" "$T_TMP/page.dom"
	else
		timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox --virtual-time-budget=2000 \
			--dump-dom "file://$T_TMP/hooked.html" >"$T_TMP/page.dom" 2>/dev/null
		grep -q "t28-hook" "$T_TMP/page.dom"
	fi
	python3 "$T_TMP/dom.py" "$T_TMP/page.dom"
'

test_expect_success 'report --json of the hostile run is valid UTF-8 and keeps the strings as text' '
	"$NETLAB" report --json "$RUN" >"$T_TMP/r.json"
	"$NETLAB" report --json --list "$RUN" >"$T_TMP/l.json"
	python3 - "$T_TMP/r.json" "$T_TMP/l.json" <<-PY
	import json, sys
	for f in sys.argv[1:]:
	    t = open(f, "rb").read().decode("utf-8")	# strictly: no invalid byte
	    d = json.loads(t)
	    assert "<svg/onload=" in t, f
	    assert "\ufffd" in json.dumps(d, ensure_ascii=False), f	# the guest\x27s bad bytes, replaced
	    assert not any(0x80 <= ord(c) < 0xa0 or ord(c) == 0x7f for c in t), f
	PY
	python3 "$T_TMP/term.py" "$T_TMP/r.json" "$T_TMP/l.json"
'

test_expect_success 'report text (every section, --list, --counters, --packets) holds no raw ESC or bad UTF-8' '
	for o in "" --ring --list --counters --packets --flows --timeline --snoop; do
		"$NETLAB" report $o "$RUN" >"$T_TMP/t$o.out" 2>"$T_TMP/t$o.err" || true
		python3 "$T_TMP/term.py" "$T_TMP/t$o.out" "$T_TMP/t$o.err"
	done
	grep -qF "<i>\\x1b]0;t\\x07 q0" "$T_TMP/t--ring.out"
	grep -qF "<b>i\\x1b[7m\\xff q0 <svg/onload=X>" "$T_TMP/t--ring.out"
'

# paste LINE: the line run by sh with each command a function printing its arguments, one a line.
paste_args() {
	(cd "$T_TMP" && sh -c "kernelshark() { printf \"%s\\n\" \"\$@\"; }; wireshark() { kernelshark \"\$@\"; }
		netlab() { kernelshark \"\$@\"; }; $1")
}

test_expect_success 'the page.s "look for yourself" commands paste safely with a hostile run directory' '
	grep -o "<code class=\"cmd\">[^<]*</code>" "$RUN/report.html" |
		sed "s/<[^>]*>//g" | python3 -c "import html,sys; sys.stdout.write(html.unescape(sys.stdin.read()))" >"$T_TMP/cmds"
	test "$(wc -l <"$T_TMP/cmds")" -ge 3
	real=$(cd "$RUN" && pwd -P)
	while IFS= read -r line; do
		echo "# $line"
		paste_args "$line" >"$T_TMP/args"
		case $line in
		kernelshark*) printf "%s\n" "$real/files/trace.dat" | cmp - "$T_TMP/args" ;;
		wireshark*) grep -qxF "$real/nic-A.pcap" "$T_TMP/args" || grep -qxF "$real/javascript:alert(13)//nic-B.pcap" "$T_TMP/args" ;;
		netlab*) tail -n 1 "$T_TMP/args" | grep -qxF "$real" ;;
		esac
	done <"$T_TMP/cmds"
	test ! -e "$T_TMP/PWNED"
'

if [ "${NETLAB_SLOW_TESTS:-}" = 1 ] && [ -r "$KERNEL" ] && [ -r "$INITRD" ]; then
	test_expect_success 'a real hostile guest: its run and suite pages, JSON and output are safe (slow)' '
		mkdir -p "$T_TMP/g" && cp "$FIX/hostile.sh" "$FIX/scenario.scn" "$T_TMP/g/"
		rc=0; "$NETLAB" regress --out "$T_TMP/gout" "$T_TMP/g/scenario.scn" >"$T_TMP/g.out" 2>"$T_TMP/g.err" || rc=$?
		test $rc = 0
		python3 "$T_TMP/term.py" "$T_TMP/g.out" "$T_TMP/g.err"
		r=$T_TMP/gout/scenario/run-1
		"$NETLAB" report --json "$r" >"$T_TMP/g.json"
		python3 "$T_TMP/term.py" "$T_TMP/g.json"
		"$NETLAB" report --ring "$r" >"$T_TMP/g.ring"
		python3 "$T_TMP/term.py" "$T_TMP/g.ring"
		grep -q "&lt;svg/onload=Z&gt;" "$r/report.html"
		! grep -q "<svg/onload" "$r/report.html" "$T_TMP/gout/report.html"
	'
fi

test_done
