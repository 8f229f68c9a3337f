"""Every view of `repro show`, as text and with --json, reads the bundle:
exit 0, and the JSON ones parse and hold what the members hold; --host in
one column, no doubled parentheses, the counts in good English; --color
of show, explain and diff (never on a pipe, always even with NO_COLOR)."""
import json
import os
import re
import subprocess

import bundlecheck as bc

b = bc.Bundle()
repro, bundle = bc.env("REPRO_BIN"), bc.env("CASE_BUNDLE")
print("views: show, --trace, --files, --net, --host, --all, each also with --json")
def member_lines(name):
    path = os.path.join(bc.env("BUNDLE_DIR"), name)
    with open(path, encoding="utf-8") as f:
        return sum(1 for line in f if line.strip())


lengths = {"--files": member_lines("files.jsonl"), "--net": member_lines("network.jsonl")}
for view in ("", "--trace", "--files", "--net", "--host", "--all"):
    for js in ((), ("--json",)):
        args = [repro, "show"] + ([view] if view else []) + list(js) + [bundle]
        r = subprocess.run(args, capture_output=True, timeout=60)
        what = " ".join(args[1:-1])
        bc.expect(r.returncode == 0 and not r.stderr, "%s: exit 0, nothing on stderr" % what,
                  (r.returncode, r.stderr[-300:]))
        if js and view != "--trace" and r.returncode == 0:
            try:
                doc = json.loads(r.stdout)
            except ValueError as e:
                bc.expect(False, "%s: the output is JSON" % what, str(e))
                continue
            if view in lengths:
                bc.expect(isinstance(doc, list) and len(doc) == lengths[view],
                          "%s: one element per line of the member (%d)" % (what, lengths[view]),
                          type(doc).__name__)
        if not js and view == "--host" and r.returncode == 0:
            lines = r.stdout.decode("utf-8", "replace").splitlines()
            # "  KEY" padded to 16, then the value from column 18
            bad = [l for l in lines if len(l) < 19 or l[17] != " " or l[18] == " "]
            bc.expect(lines and not bad, "show --host: every value starts in one column, none empty",
                      bad[:3])
        if not js and view == "" and r.returncode == 0:
            text = r.stdout.decode("utf-8", "replace")
            n = b.manifest.get("counts", {}).get("processes")
            bc.expect("((" not in text, "show: no doubled parentheses", text[:300])
            bc.expect(("%d process\n" % n if n == 1 else "%d processes\n" % n) in text,
                      "show: counts say %s process(es) in good English" % n,
                      [l for l in text.splitlines() if "counts" in l])
for cmd in (["show"], ["explain"], ["diff", bundle]):
    def run(*extra, env=None):
        return subprocess.run([repro] + cmd + list(extra) + [bundle], capture_output=True,
                              timeout=60, env=env)
    name = cmd[0]
    bc.expect(b"\x1b[" not in run().stdout, "%s on a pipe: no colour" % name)
    bc.expect(b"\x1b[" not in run("--color=never").stdout, "%s --color=never: no colour" % name)
    # show always has headings to colour; explain and diff only what failed or differs
    always = run("--color=always", env=dict(os.environ, NO_COLOR="1"))
    never = run("--color=never")
    plain = re.sub(rb"\x1b\[[0-9;]*m", b"", always.stdout)
    bc.expect(always.returncode in (0, 1) and plain == never.stdout and
              (b"\x1b[" in always.stdout or name != "show"),
              "%s --color=always: colour even with NO_COLOR, the same text" % name,
              always.stdout[:200])
    bad = run("--color=sometimes")
    bc.expect(bad.returncode == 2 and bad.stderr.count(b"\n") == 1 and not bad.stdout,
              "%s --color=sometimes: one line, exit 2" % name, bad.stderr)
bc.done()
