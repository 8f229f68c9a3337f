#!/bin/bash
# report.sh REPRO SRC ARTEFACTS [root|user]: `repro report`, looked at in a
# real browser.  The demo (examples/startup-failure/demo.sh) leaves its
# bundles and reports; Debian's chromium --headless takes a screenshot of
# the broken run's report (kept in ARTEFACTS as report-demo-VARIANT.png,
# with the comparison's) and dumps the DOM after loading, and the DOM must
# hold explain's findings, a lane per process, the failed calls and, for A
# against B, diff's cause; a run whose paths, argv and stderr hold markup
# and script (and a terminal escape) must show them as text with no script
# run; a run of 100,000 failed calls gives a page under 5 MB that the
# browser loads; bad input gets one line and exit 2.
# "user" runs it as the unprivileged user repro-test.
set -u
. "$(dirname "$0")/lib.sh"
repro=$(readlink -f "$1")
src=$(readlink -f "$2")
artefacts=$3
variant=${4:-root}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$artefacts"
if [ "$variant" = user ] && [ "$(id -u)" = 0 ]; then
	stage_for_test_user || exit 77
	mkdir -p "$stage/src/examples" "$stage/out"
	cp -r "$src/examples/startup-failure" "$stage/src/examples/"
	chmod -R a+rX "$stage" && chown repro-test "$stage/out"
	run_staged --clean-env bash "$stage/report.sh" "$stage/repro" "$stage/src" "$stage/out" user
	rc=$?
	cp "$stage"/out/*.png "$artefacts/" 2>/dev/null
	exit $rc
fi
py=/usr/bin/python3
[ -x $py ] || { echo "no python3: skip"; exit 77; }
fail=0
chromium=$(command -v chromium || true)
if [ -z "$chromium" ]; then
	echo "FAIL: chromium is not installed (./dev.sh deps installs it)"
	exit 1
fi
work=$(mktemp -d /tmp/repro-reportt.XXXXXX)
demo=
trap 'rm -rf "$work" ${demo:+"$demo"}' EXIT
cd "$work" || exit 1
export HOME=$work

# browse PAGE PNG DOM: load file PAGE headless; a screenshot and the DOM after loading.
browse() {
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$work/chrome" --window-size=1280,2400 \
		--screenshot="$2" "file://$1" >/dev/null 2>&1
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$work/chrome" --dump-dom "file://$1" >"$3" 2>/dev/null
}

# A PNG of width x height at least 600 x 600.
is_png() {
	$py - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read(32)
assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", d[16:24])
assert w >= 600 and h >= 600, (w, h)
PY
}

# 1. the demo's reports
bash "$src/examples/startup-failure/demo.sh" "$repro" >demo.out 2>&1
rc=$?
check "the demo runs (exit $rc)" [ $rc = 0 ]
demo=$(sed -n 's/^reports: \(\/tmp\/repro-demo\.[A-Za-z0-9]*\)\/broken.html .*/\1/p' demo.out)
check "the demo names its reports" test -n "$demo" -a -s "$demo/broken.html" \
	-a -s "$demo/working-vs-broken.html"
[ -n "$demo" ] || exit 1
browse "$demo/broken.html" "$artefacts/report-demo-$variant.png" broken.dom
check "the broken run's report: a screenshot ($artefacts/report-demo-$variant.png)" \
	is_png "$artefacts/report-demo-$variant.png"
browse "$demo/working-vs-broken.html" "$artefacts/report-demo-diff-$variant.png" diff.dom
check "the comparison's report: a screenshot" is_png "$artefacts/report-demo-diff-$variant.png"
"$repro" report -o injected.html "$demo/injected.repro" 2>/dev/null
browse "$work/injected.html" "$work/injected.png" injected.dom

$py - "$demo" broken.dom diff.dom injected.dom <<'PY'
import html.parser, json, subprocess, sys
demo, broken, diff, injected = sys.argv[1:]

class Dom(html.parser.HTMLParser):
    """Elements with their classes and attributes, and the text under each class."""
    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.tags, self.stack, self.texts = [], [], {}
        self.feed(text)
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag not in ("br", "meta", "rect", "circle", "line", "img", "input"):
            self.stack.append(a.get("class", ""))
    def handle_endtag(self, tag):
        if tag not in ("br", "meta", "rect", "circle", "line", "img", "input") and self.stack:
            self.stack.pop()
    def handle_data(self, data):
        for c in set(self.stack):
            for k in c.split():
                self.texts[k] = self.texts.get(k, "") + data
    def cls(self, name):
        return [a for t, a in self.tags if name in a.get("class", "").split()]

b = Dom(open(broken).read())
sentences = b.texts.get("sentence", "")
assert "cache_hub/model.pth" in sentences and "EACCES" in sentences, sentences[:500]
assert "model load failed" in b.texts.get("said", ""), "the program's own words"
procs = subprocess.run(["tar", "--zstd", "-xOf", demo + "/broken.repro", "processes.jsonl"],
                       capture_output=True, text=True).stdout.splitlines()
pids = {str(json.loads(l)["pid"]) for l in procs}
lanes = {a.get("data-pid") for a in b.cls("lane")}
assert lanes == pids, (lanes, pids)
fails = [a for t, a in b.tags if t == "rect" and "fail" in a.get("class", "").split()]
assert len(fails) > 0, "failed calls as marks on the lanes"
assert "model.pth" in "".join(b.texts.get("program", "")), "the failed calls' table"
assert not [t for t, a in b.tags if t == "script"], "no script element"
print("broken.html: %d findings, %d lanes, %d failure marks" %
      (len(b.cls("finding")), len(lanes), len(fails)))
d = Dom(open(diff).read())
cause = d.texts.get("cause", "")
assert "Most likely cause" in cause and ("model.pth" in cause or "cache_hub" in cause), cause
assert len(d.cls("side")) == 2, "A and B side by side"
assert len(d.cls("timeline")) == 2, "a timeline per run"
print("working-vs-broken.html: cause: %s" % cause[:120])
i = Dom(open(injected).read())
assert i.cls("marked"), "the injected finding in its own colour"
assert "injected by rule 1" in i.texts.get("sentence", ""), i.texts.get("sentence", "")[:300]
PY
check "the DOMs hold the findings, the lanes, the failed calls, the cause" [ $? = 0 ]

# 2. a hostile run: markup and script in paths, argv and stderr
cat >hostile.py <<'PY'
import sys
for p in ["<script>document.body.setAttribute('data-x','PW'+'NED')</script>",
          "<img src=x onerror=\"document.title='PW'+'NED'\">\x1b]0;title\x07",
          "\" onmouseover=\"alert(1)\" x=\"", "</title></svg><style>body{display:none}</style>"]:
    try:
        open(p)
    except OSError:
        pass
sys.stderr.write("<b>bad</b> &amp; </code><script>document.title='PW'+'NED'</script>\n")
sys.exit(3)
PY
"$repro" record -o hostile.repro -- $py hostile.py '<svg onload="alert(1)">' >/dev/null 2>&1
"$repro" report hostile.repro 2>report.err
rc=$?
check "report of a hostile run: exit 0, its file named on stderr" \
	sh -c "[ $rc = 0 ] && grep -q 'wrote hostile.html' report.err"
check "no raw ESC or BEL byte in the page" sh -c "! grep -q \$'[\\x1b\\x07]' hostile.html"
browse "$work/hostile.html" "$work/hostile.png" hostile.dom
$py - hostile.dom <<'PY'
import html.parser, sys
dom = open(sys.argv[1]).read()

class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs = [], []
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [k for k, v in attrs]

t = Tags()
t.feed(dom)
assert "PWNED" not in dom, "a script from the bundle ran"
for bad in ("script", "img", "iframe", "object", "embed"):
    assert bad not in t.tags, "a %s element from the bundle" % bad
assert t.tags.count("style") == 1 and t.tags.count("svg") == 1, "markup from the bundle"
assert not [a for a in t.attrs if a.startswith("on")], "an event handler attribute"
assert "&lt;script&gt;document.body.setAttribute" in dom, "the path is shown as text"
print("hostile.html: the bundle's markup stayed text")
PY
check "the hostile run's markup stays text; no script ran" [ $? = 0 ]

# 3. a large run: 20 processes x 5,000 failed stats (its size does not
# depend on who runs it: the root variant only, the suite's costliest part)
if [ "$variant" = root ]; then
	cat >many.py <<'PY'
import os, subprocess, sys
if len(sys.argv) > 1:
    for i in range(5000):
        try:
            os.stat("/nonexistent-report/%s/%d" % (sys.argv[1], i))
        except OSError:
            pass
    sys.exit(0)
ps = [subprocess.Popen([sys.executable, __file__, str(k)]) for k in range(20)]
sys.exit(max(p.wait() for p in ps))
PY
	"$repro" record -o many.repro -- $py many.py >/dev/null 2>&1
	"$repro" report -o many.html many.repro 2>/dev/null
	rc=$?
	size=$(stat -c %s many.html 2>/dev/null || echo 0)
	check "100,000 failed calls: a page of $size bytes, under 5 MB (exit $rc)" \
		sh -c "[ $rc = 0 ] && [ $size -gt 0 ] && [ $size -lt 5000000 ]"
	browse "$work/many.html" "$work/many.png" many.dom
	check "the browser loads it: the lanes and the table are in its DOM" \
		sh -c "[ \$(grep -o 'class=\"lane\"' many.dom | wc -l) -ge 21 ] && grep -q '/nonexistent-report/' many.dom"

	# a report stopped by a signal leaves no temporary file
	"$repro" report -o stopped.html many.repro 2>/dev/null &
	pid=$!
	for _ in $(seq 100); do ls ./stopped.html.tmp-* >/dev/null 2>&1 && break; sleep 0.05; done
	kill -TERM $pid
	wait $pid
	rc=$?
	check "SIGTERM while writing: the report ends by it ($rc) and leaves no temporary file" \
		sh -c "[ $rc = 143 ] && ! ls ./stopped.html.tmp-* 2>/dev/null | grep -q ."
fi

# 4. output and bad input
"$repro" report -o - "$demo/broken.repro" >stdout.html 2>stdout.err
check "-o -: the page on standard output, nothing on stderr" \
	sh -c "head -c 15 stdout.html | grep -q '<!DOCTYPE html>' && [ ! -s stdout.err ]"
echo garbage >garbage.repro
cp "$demo/broken.repro" same.repro
for args in "/nonexistent.repro" "garbage.repro" "--bogus same.repro" "" \
	"same.repro same.repro same.repro" "-o /nonexistent/dir/x.html same.repro" \
	"-o same.repro same.repro" "-o"; do
	# shellcheck disable=SC2086
	"$repro" report $args >bad.out 2>bad.err
	rc=$?
	check "report $args: exit 2, one line ($(head -c 100 bad.err))" \
		sh -c "[ $rc = 2 ] && [ \$(wc -l <bad.err) = 1 ] && [ ! -s bad.out ]"
done
check "-o the bundle itself: the bundle intact" cmp -s "$demo/broken.repro" same.repro
"$repro" report -o piped.html <(cat same.repro) >bad.out 2>bad.err
rc=$?
check "a pipe as the bundle: exit 2, one line that says why ($(head -c 120 bad.err))" \
	sh -c "[ $rc = 2 ] && [ \$(wc -l <bad.err) = 1 ] && grep -q 'not a regular file' bad.err"
check "no page and no temporary file is left by a failed report" \
	sh -c "[ ! -e garbage.html ] && [ ! -e piped.html ] && ! ls ./*.tmp-* 2>/dev/null | grep -q ."
exit $fail
