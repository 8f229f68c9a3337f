"""An exec with 1 MB of argv over ten arguments, one argument of
MAX_ARG_STRLEN - 1 bytes and a 100 KB secret option (tests/programs/
big_argv.c): events.jsonl and processes.jsonl keep every argument whole
(length and content), the secret's value alone is redacted, nothing is
marked truncated, `repro show` reads the bundle, and the child saw what the
bundle says it was given."""
import subprocess

import bundlecheck as bc

PATTERN = "qwerty=uiop@asdf:ghjl/zxcvbnm"
N_BIG, BIG_LEN, LONGEST = 10, 100000, 128 * 1024 - 1


def make_arg(length, k, pattern=PATTERN):
    reps = (length + k) // len(pattern) + 2
    return (pattern * reps)[k:k + length]


def fnv1a(s):
    h = 0xcbf29ce484222325
    for c in s.encode():
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


big = [make_arg(BIG_LEN, k) for k in range(N_BIG)]
longest = make_arg(LONGEST, N_BIG)
secret = make_arg(len("--password=") + BIG_LEN, 0, "S3CR3T.")[len("--password="):]
want = ["/proc/self/exe", "child"] + big + [longest, "--password=<redacted>"]

b = bc.Bundle()
print("big_argv: %d bytes of argv over %d arguments kept whole" %
      (sum(len(a) for a in big) + LONGEST + len(secret), len(want)))
bc.expect_exit(b, code=0)


def same_argv(got, what):
    bc.expect(isinstance(got, list) and len(got) == len(want),
              "%s: %d arguments" % (what, len(want)), [len(a) for a in got or []])
    if not isinstance(got, list) or len(got) != len(want):
        return
    lens = [len(a) for a in got]
    bc.expect(lens == [len(a) for a in want], "%s: every argument has its full length" % what,
              lens)
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    bc.expect(not bad, "%s: every argument has its content" % what, bad)
    bc.expect(len(got[-2]) == LONGEST, "%s: the %d-byte argument is whole" % (what, LONGEST),
              len(got[-2]))


# /proc/self/exe is recorded as the program it names, with the written form beside it
ok_exec = b.find(syscall="execve", ok=True, path_as_written="/proc/self/exe")
bc.expect(len(ok_exec) == 1, "one execve of /proc/self/exe",
          [(e.get("path"), e.get("path_as_written")) for e in b.find(syscall="execve")])
if ok_exec:
    same_argv(ok_exec[0].get("argv"), "events.jsonl")
    bc.expect(not ok_exec[0].get("truncated"), "the execve event is not truncated",
              ok_exec[0].get("truncated"))
procs = [p for p in b.processes if len(p.get("execs") or []) == 2]
bc.expect(len(procs) == 1, "one process with two execs", [len(p.get("execs") or [])
                                                         for p in b.processes])
if procs:
    same_argv(procs[0]["execs"][1].get("argv"), "processes.jsonl")
bc.expect(secret not in bc.read_text("CASE_STDOUT"), "the secret is not in stdout")
for name in ("events.jsonl", "processes.jsonl", "trace.txt", "manifest.json"):
    with open("%s/%s" % (bc.env("BUNDLE_DIR"), name), encoding="utf-8") as f:
        bc.expect("S3CR3T" not in f.read(), "the secret value is not in %s" % name)

# the child's own view: each argument's length and hash, as the bundle has them
lines = [l for l in bc.stdout().splitlines() if l.startswith("big_argv: argv[")]
seen = [want[i] if i < len(want) - 1 else "--password=" + secret for i in range(len(want))]
expected = ["big_argv: argv[%d] len=%d fnv1a=%s" % (i, len(seen[i]), fnv1a(seen[i]))
            for i in range(2, len(seen))]
bc.expect(lines == expected, "the child received the arguments the bundle shows", lines[:3])

show = subprocess.run([bc.env("REPRO_BIN"), "show", "--json", bc.env("CASE_BUNDLE")],
                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
bc.expect(show.returncode == 0, "repro show --json reads the bundle", show.stderr[-500:])
bc.done()
