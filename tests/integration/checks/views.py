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
bc.done()
