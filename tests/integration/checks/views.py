"""Every view of `repro show`, as text and with --json, reads the bundle:
exit 0, and the JSON ones parse and hold what the members hold."""
import json
import os
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
bc.done()
