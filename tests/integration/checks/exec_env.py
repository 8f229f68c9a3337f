"""`env API_TOKEN=s3cr3t-value FOO=bar sh -c 'exec env'` (run by
hooks/exec_env.sh's run.sh, so the secret is not on the recorded command
line, which common.py wants as given): each execve event
and each exec of processes.jsonl has the environment the program was
started with ("env"), redacted by host.json's rules: PATH keeps its value,
API_TOKEN is always <redacted> (a secret word, whatever --keep-env says),
FOO is <redacted> unless a --keep-env glob names it.  The last program
prints its own environment, so its stdout is the oracle for the names, their
order and every kept value; the planted secret is in no member of the
bundle, and trace.txt shows the count as strace does."""
import fnmatch
import os
import re

import bundlecheck as bc

SECRET = "s3cr3t-value"
REDACTED = "<redacted>"

b = bc.Bundle()
bc.expect_exit(b, code=0)
rargs = bc.read_text("CASE_ARGS_FILE").split("\n")
keep = [rargs[i + 1] for i, a in enumerate(rargs[:-1]) if a == "--keep-env"]
foo_kept = any(fnmatch.fnmatchcase("FOO", g) for g in keep)
print("exec_env: --keep-env %s: FOO %s" % (keep or "none", "kept" if foo_kept else "redacted"))


def env_dict(env):
    return dict(e.split("=", 1) for e in env if "=" in e)


# the child's own view: `env` prints NAME=value lines in environ order
printed = [l for l in bc.stdout().splitlines() if "=" in l]
printed_names = [l.split("=", 1)[0] for l in printed]
bc.expect("FOO=bar" in printed and "API_TOKEN=" + SECRET in printed,
          "the program saw FOO and API_TOKEN", printed)

last = b.find(syscall="execve", ok=True, argv=["env"])
bc.expect(len(last) == 1, "one successful execve of env by sh",
          [e.get("argv") for e in b.find(syscall="execve", ok=True)])
sh = b.find(syscall="execve", ok=True, argv=["sh", "-c", "exec env"])
bc.expect(len(sh) == 1, "one successful execve of sh by env",
          [e.get("argv") for e in b.find(syscall="execve", ok=True)])
for ev in last + sh:
    env = ev.get("env")
    what = "execve of %s" % ev["argv"][0]
    bc.expect(isinstance(env, list) and all(isinstance(e, str) for e in env),
              "%s: env is a list of strings" % what, env)
    d = env_dict(env or [])
    bc.expect(d.get("API_TOKEN") == REDACTED, "%s: API_TOKEN=<redacted>" % what, d)
    bc.expect(d.get("FOO") == ("bar" if foo_kept else REDACTED),
              "%s: FOO=%s" % (what, "bar" if foo_kept else REDACTED), d.get("FOO"))
    bc.expect(d.get("PATH") not in (None, REDACTED) and "PATH=" + d["PATH"] in printed,
              "%s: PATH keeps its value" % what, d.get("PATH"))
    n = len(env or [])
    shown = "[%s], " % ", ".join('"%s"' % a for a in ev["argv"])
    line = [l for l in b.trace.splitlines() if "execve(" in l and shown in l and "= 0" in l]
    bc.expect(len(line) == 1 and re.search(r"\], 0x[0-9a-f]+ /\* %d vars? \*/\) = 0" % n,
                                           line[0]) is not None,
              "%s: trace.txt shows the address and /* %d vars */" % (what, n), line)
if last:
    env = last[0].get("env") or []
    bc.expect([e.split("=", 1)[0] for e in env] == printed_names,
              "execve of env: the names and order the program printed", env)
    kept = [e for e in env if not e.endswith("=" + REDACTED)]
    bc.expect(all(e in printed for e in kept), "execve of env: every kept value is exact",
              [e for e in kept if e not in printed])

# processes.jsonl: the execs carry the same env as their execve events
execs = [x for p in b.processes for x in p.get("execs") or []]
for ev in last + sh:
    same = [x for x in execs if x.get("argv") == ev["argv"]]
    bc.expect(len(same) == 1 and same[0].get("env") == ev.get("env"),
              "processes.jsonl: the exec of %s has the event's env" % ev["argv"][0],
              [x.get("env") for x in same])

# the manifest lists the names, never the values; the secret is nowhere
names = b.manifest.get("redacted") or []
bc.expect("API_TOKEN" in names, "the manifest lists API_TOKEN as redacted", names)
bc.expect(("FOO" in names) != foo_kept, "the manifest lists FOO only when it is redacted",
          names)
bc.expect("PATH" not in names, "the manifest does not list PATH", names)
d = bc.env("BUNDLE_DIR")
for name in sorted(os.listdir(d)):
    with open(os.path.join(d, name), "rb") as f:
        bc.expect(SECRET.encode() not in f.read(), "the secret value is not in %s" % name)
bc.done()
