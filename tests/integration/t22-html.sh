#!/usr/bin/env bash
# netlab report --html and the pages netlab regress writes, rendered in
# headless Chromium: the SVG plots are in the DOM with the series the JSON
# report implies (one per drop reason, per latency stage, ...) and their
# axis labels, and every number on the page equals the JSON report's
# (netlab report --json --worst 1), metrics.json's or summary.json's.
# Screenshots are kept in build/test-artifacts/t22/.
. "$(dirname "$0")/../lib.sh"
[ -x "$NETLAB" ] || skip_all "build/netlab missing (run make)"
command -v python3 >/dev/null || skip_all "python3 missing (make deps)"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
	[ "${NETLAB_REQUIRE_BROWSER:-}" = 1 ] && { echo "not ok 1 - $T_NAME: chromium missing and NETLAB_REQUIRE_BROWSER=1"; exit 1; }
	skip_all "chromium missing (apt-get install chromium, or make deps)"
fi
RUNS=$TOP/tests/unit/fixtures/runs
ART=$TOP/build/test-artifacts/t22
mkdir -p "$ART"
echo "# screenshots: $ART"

# render PAGE NAME: the DOM Chromium builds of PAGE into $T_TMP/NAME.dom, a screenshot into $ART.
render() {
	timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox --dump-dom "file://$1" \
		>"$T_TMP/$2.dom" 2>/dev/null
	timeout 120 "$CHROMIUM" --headless --disable-gpu --no-sandbox --hide-scrollbars \
		--screenshot="$ART/$2.png" --window-size=1280,2000 "file://$1" >/dev/null 2>&1
	test -s "$T_TMP/$2.dom"
	test -s "$ART/$2.png"
}

cat >"$T_TMP/check.py" <<'PY'
# check.py KIND DOM JSON [METRICS]: the rendered page against its JSON.
import json, os, sys
from html.parser import HTMLParser

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.plots, self.nums, self.rows, self.stack = {}, [], [], []
        self.plot = None
        self.num = None
        self.spark, self.sparks, self.steps, self.first_bad = None, {}, [], None
    def handle_starttag(self, tag, a):
        a = dict(a)
        cls = (a.get("class") or "").split()
        if tag == "svg" and "plot" in cls:
            self.plot = {"series": [], "axis": [], "legend": 0, "marks": 0}
            self.plots[a["data-plot"]] = self.plot
        if self.plot is not None:
            if tag == "g" and "series" in cls:
                self.plot["series"].append(a["data-series"])
            if tag == "polyline" and self.plot["series"]:
                self.plot.setdefault("points", {})[self.plot["series"][-1]] = len(a["points"].split())
            if tag == "g" and "mark" in cls:
                self.plot["marks"] += 1
            if tag == "text" and "axis-label" in cls:
                self.plot["axis"].append(a["data-axis"])
            if tag == "rect" and "culprit" in cls:
                self.plot["culprit"] = True
        if tag == "svg" and "spark" in cls:
            self.spark = {"runs": int(a["data-runs"]), "pts": []}
            self.sparks[a["data-spark"]] = self.spark
        if tag == "circle" and "pt" in cls and self.spark is not None:
            self.spark["pts"].append(a.get("data-value"))
        if tag == "tr" and "step" in cls:
            self.steps.append(a["data-verdict"])
        if "data-first-bad" in a:
            self.first_bad = a["data-first-bad"]
        if "data-metric" in a:
            self.num = [a["data-metric"], a.get("data-source"), ""]
        if tag == "tr" and "scenario" in cls:
            self.rows.append((a["data-scenario"], a["data-outcome"]))
    def handle_endtag(self, tag):
        if tag == "svg":
            self.plot = None
            self.spark = None
        if tag == "span" and self.num:
            self.nums.append(tuple(self.num))
            self.num = None
    def handle_data(self, d):
        if self.num:
            self.num[2] += d

def at(root, path):
    for k in path.split("."):
        root = root[int(k)] if isinstance(root, list) else root[k]
    return root

kind, dom = sys.argv[1], sys.argv[2]
rep = json.load(open(sys.argv[3])) if kind != "bisect" else None
met = json.load(open(sys.argv[4])) if len(sys.argv) > 4 and sys.argv[4] and kind != "bisect" else {}
if kind == "bisect":
    rep = [json.loads(l) for l in open(sys.argv[3])]
    met = open(sys.argv[4]).read().split()
p = Page()
p.feed(open(dom).read())
fail = []
for name, pl in p.plots.items():
    if sorted(pl["axis"]) != ["x", "y"]:
        fail.append("%s: axis labels %s" % (name, pl["axis"]))
want = {}
if kind == "run":
    for d in ("rx", "tx"):
        st = rep.get("path", {}).get(d, {}).get("stages", {})
        if st:
            want["latency-" + d] = list(st)
            if len(p.plots.get("latency-" + d, {}).get("series", [])) and \
               p.plots["latency-" + d]["marks"] != 3 * len(st):
                fail.append("latency-%s: %d marks for %d stages" % (d, p.plots["latency-" + d]["marks"], len(st)))
    if rep.get("drops", {}).get("total"):
        want["drops"] = list(rep["drops"]["by_reason"])
    if "loss.app_sent" in met:
        want["loss"] = ["carried", "lost"]
    for q in rep.get("ring", {}).get("queues", []):
        s = q.get("series") or {}
        fill = any(v is not None for v in (s.get("rx_fill") or {}).get("mean", []))
        infl = any(v is not None for v in (s.get("tx_inflight") or {}).get("mean", []))
        if fill or infl:
            want["ring-%s-%d" % (q["ifname"], q["q"])] = 3 * fill + infl
    for q in rep.get("ring", {}).get("queues", []):
        ns = q.get("napi_series") or {}
        if any(ns.get("polls", [])):
            name = "napi-%s-%d" % (q["ifname"], q["q"])
            want[name] = ["work/poll (mean)", "work/poll (max)"] + (["budget"] if ns["budget"] else [])
            pts = p.plots.get(name, {}).get("points", {})
            n = sum(v is not None for v in ns["work_mean"])
            if pts.get("work/poll (mean)") != n or pts.get("work/poll (max)") != n:
                fail.append("%s: points %s, want %d per series (intervals with a poll)" % (name, pts, n))
    if rep.get("timeline", {}).get("trees"):
        want["netrx"] = ["hard irq", "NET_RX softirq", "napi_poll", "skb"]
    for name, w in want.items():
        got = p.plots.get(name, {}).get("series")
        if got is None:
            fail.append("plot %s missing" % name)
        elif (len(got) if isinstance(w, int) else got) != (w if isinstance(w, int) else list(w)):
            fail.append("plot %s: series %s, want %s" % (name, got, w))
    extra = set(p.plots) - set(want)
    if extra:
        fail.append("plots not expected: %s" % sorted(extra))
elif kind == "bisect":
    # rep: the steps (bisect.log.jsonl's lines); met: the commit order, good first
    pos = {c: i for i, c in enumerate(met)}
    names = []
    for st in rep:
        for c in st.get("checks", []):
            if c["name"] not in names:
                names.append(c["name"])
    if sorted(p.plots) != sorted("bisect-" + n for n in names):
        fail.append("plots %s, want one per check %s" % (sorted(p.plots), names))
    for name, pl in p.plots.items():
        if pl["marks"] != len(rep):
            fail.append("%s: %d points for %d steps" % (name, pl["marks"], len(rep)))
    if p.steps != [st["verdict"] for st in rep]:
        fail.append("step rows %s" % p.steps)
    good = max([pos[s["commit"]] for s in rep if s["verdict"] == "good"], default=-1)
    bad = min([pos[s["commit"]] for s in rep if s["verdict"] == "bad" and pos[s["commit"]] > good], default=-1)
    want_fb = met[bad] if good >= 0 and bad == good + 1 else None
    if p.first_bad != want_fb:
        fail.append("first bad commit: page %s, steps say %s" % (p.first_bad, want_fb))
    for name, pl in p.plots.items():
        if bool(pl.get("culprit")) != (want_fb is not None):
            fail.append("%s: first bad commit marked %s" % (name, pl.get("culprit")))
else:
    scn = rep["scenarios"]
    if [r[0] for r in p.rows] != [s["name"] for s in scn] or \
       [r[1] for r in p.rows] != [s["outcome"] for s in scn]:
        fail.append("suite rows %s" % p.rows)
    for s in scn:
        for c in s.get("checks", []):
            sp = p.sparks.get("%s:%s" % (s["name"], c["name"]))
            if sp is None:
                fail.append("no sparkline for %s:%s" % (s["name"], c["name"])); continue
            if len(sp["pts"]) != len(s["runs"]) or sp["runs"] != len(s["runs"]):
                fail.append("%s:%s: %d points for %d runs" % (s["name"], c["name"], len(sp["pts"]), len(s["runs"])))
            for r, v in zip(s["runs"], sp["pts"]):
                mp = r["dir"] + "/metrics.json"
                m = json.load(open(mp)) if os.path.exists(mp) else {}
                if (v is None) != (c["subject"] not in m) or (v is not None and float(v) != float(m[c["subject"]])):
                    fail.append("%s:%s: point %r, %s/metrics.json %r" % (s["name"], c["name"], v, r["dir"], m.get(c["subject"])))
for path, src, text in p.nums:
    try:
        v = met[path] if src == "metrics" else at(rep, path)
    except (KeyError, IndexError, TypeError):
        fail.append("%s (%s): not in the JSON" % (path, src)); continue
    if not isinstance(v, (int, float)) or float(text) != float(v):
        fail.append("%s (%s): page %r, JSON %r" % (path, src, text, v))
print("%s: %d plots (%s), %d numbers compared" % (dom, len(p.plots),
      ", ".join("%s:%d" % (k, len(v["series"])) for k, v in p.plots.items()), len(p.nums)))
for f in fail:
    print("FAIL", f)
sys.exit(1 if fail or len(p.nums) < (5 if kind != "run" else 30) else 0)
PY

test_expect_success 'fixture run pages: plots, series, axis labels and numbers equal the JSON report' '
	for r in udp-path drv-e1000e-rx-default; do
		"$NETLAB" report --html -o "$T_TMP/$r.html" "$RUNS/$r"
		"$NETLAB" report --json --worst 1 "$RUNS/$r" >"$T_TMP/$r.json"
		render "$T_TMP/$r.html" "$r"
		python3 "$T_TMP/check.py" run "$T_TMP/$r.dom" "$T_TMP/$r.json" "$RUNS/$r/metrics.json"
		grep -q "kernelshark [^<]*/files/trace.dat" "$T_TMP/$r.dom"
	done
	grep -q "wireshark [^<]*/nic-A.pcap" "$T_TMP/udp-path.dom"
	# the fixtures are left as they were
	test ! -e "$RUNS/udp-path/report.html"
'

test_expect_success 'a damaged run still gets a page with an error line; bad input exits 2 naming the file' '
	cp -r "$RUNS/udp-path" "$T_TMP/cut"
	head -c 300000 "$RUNS/udp-path/files/trace.dat" >"$T_TMP/cut/files/trace.dat"
	rc=0; "$NETLAB" report --html "$T_TMP/cut" >/dev/null 2>"$T_TMP/cut.err" || rc=$?
	test $rc = 2
	grep -q "cannot read trace .$T_TMP/cut/files/trace.dat." "$T_TMP/cut.err"
	grep -q "class=\"error\"[^>]*>error: cannot read trace" "$T_TMP/cut/report.html"
	grep -q "data-plot=\"loss\"" "$T_TMP/cut/report.html"
	rm "$T_TMP/cut/files/trace.dat"
	"$NETLAB" report --html "$T_TMP/cut" >/dev/null
	grep -q "error: no trace" "$T_TMP/cut/report.html"
	echo "{" >"$T_TMP/cut/metrics.json"
	rc=0; "$NETLAB" report --html "$T_TMP/cut" 2>"$T_TMP/bad.err" || rc=$?
	test $rc = 2
	grep -q "$T_TMP/cut/metrics.json" "$T_TMP/bad.err"
	rc=0; "$NETLAB" report --html "$T_TMP/nosuch" 2>"$T_TMP/bad.err" || rc=$?
	test $rc = 2
	grep -q "$T_TMP/nosuch" "$T_TMP/bad.err"
'

test_expect_success 'fixture bisect page: a point per step in each check plot, the first bad commit, numbers equal the steps' '
	b=$TOP/tests/unit/fixtures/bisect/e1000e-slowtx
	"$NETLAB" report --html -o "$T_TMP/bisect.html" "$b"
	render "$T_TMP/bisect.html" bisect
	python3 "$T_TMP/check.py" bisect "$T_TMP/bisect.dom" "$b/bisect.log.jsonl" "$b/commits.txt"
	grep -q "data-plot=\"bisect-tx_driver\"" "$T_TMP/bisect.dom"
	# the steps name the first bad commit: the one bisect.txt names
	fb=$(sed -n "s/^first bad commit: \([0-9a-f]*\) .*/\1/p" "$b/bisect.txt")
	test -n "$fb"
	grep -q "data-first-bad=\"$fb\"" "$T_TMP/bisect.dom"
	test ! -e "$b/report.html"
'

test_expect_success 'a bisect page without the first bad step does not name one; bad steps exit 2 naming the file' '
	b=$TOP/tests/unit/fixtures/bisect/e1000e-slowtx
	mkdir "$T_TMP/bis"
	cp "$b/bisect.json" "$b/commits.txt" "$T_TMP/bis/"
	head -n 3 "$b/bisect.log.jsonl" >"$T_TMP/bis/bisect.log.jsonl"
	"$NETLAB" report --html "$T_TMP/bis" >/dev/null
	render "$T_TMP/bis/report.html" bisect-part
	python3 "$T_TMP/check.py" bisect "$T_TMP/bisect-part.dom" "$T_TMP/bis/bisect.log.jsonl" "$b/commits.txt"
	! grep -q "data-first-bad" "$T_TMP/bis/report.html"
	echo "{not json" >>"$T_TMP/bis/bisect.log.jsonl"
	rc=0; "$NETLAB" report --html "$T_TMP/bis" 2>"$T_TMP/bis.err" || rc=$?
	test $rc = 2
	grep -q "$T_TMP/bis/bisect.log.jsonl.*line 4" "$T_TMP/bis.err"
'

if [ -r "$KERNEL" ] && [ -r "$INITRD" ] && command -v qemu-system-x86_64 >/dev/null; then
	test_expect_success 'netlab regress writes a suite page and each run page, equal to the JSON' '
		# --repeat 2: a sparkline of each check has a point per run
		NETLAB_DEBUG_DECODES=$T_TMP/decodes \
			"$NETLAB" regress -j 2 --repeat 2 --out "$T_TMP/suite" \
			"$TOP/tests/integration/scenarios/udp-netem-loss.scn" \
			"$TOP/tests/regress/udp-clean-e1000e.scn" >"$T_TMP/suite.out" 2>&1 &
		pid=$!
		rc=0; wait $pid || rc=$?
		test $rc = 1
		# one decode of each run trace.dat for its metrics and its page together,
		# in the run worker, never in the suite process between two runs
		cat "$T_TMP/decodes"
		test "$(wc -l <"$T_TMP/decodes")" = 4
		for s in udp-netem-loss udp-clean-e1000e; do
			for n in 1 2; do
				test "$(grep -c "^decode [0-9]* $T_TMP/suite/$s/run-$n/files/trace.dat\$" "$T_TMP/decodes")" = 1
			done
		done
		! grep -q "^decode $pid " "$T_TMP/decodes"
		render "$T_TMP/suite/report.html" suite
		python3 "$T_TMP/check.py" suite "$T_TMP/suite.dom" "$T_TMP/suite/summary.json"
		for s in udp-netem-loss udp-clean-e1000e; do
			run=$T_TMP/suite/$s/run-1
			grep -q "href=\"$s/run-1/report.html\"" "$T_TMP/suite.dom"
			grep -q "href=\"$s/run-1/files/trace.dat\"" "$T_TMP/suite.dom"
			grep -q "href=\"$s/run-1/nic-A.pcap\"" "$T_TMP/suite.dom"
			"$NETLAB" report --json --worst 1 "$run" >"$T_TMP/$s.json"
			render "$run/report.html" "$s"
			python3 "$T_TMP/check.py" run "$T_TMP/$s.dom" "$T_TMP/$s.json" "$run/metrics.json"
		done
		# the netem loss: drops by QDISC_DROP over time, and a loss bar in the sender stack
		grep -q "data-series=\"QDISC_DROP\"" "$T_TMP/udp-netem-loss.dom"
		grep -q "<title>lost in the sender.s stack: [1-9]" "$T_TMP/udp-netem-loss.dom"
	'
else
	test_skip 'netlab regress writes a suite page and each run page, equal to the JSON' \
		"no kernel, initramfs or QEMU (make kernel guest; make deps)"
fi

test_done
