"""What the program said (output.jsonl, docs/bundle-format.md) and how
explain uses it (docs/explain.md, "What the program said"), one block per
case: the name of the case picks the block."""
import os
import bundlecheck as bc

b = bc.Bundle()
first = b.processes[0]["pid"] if b.processes else 0
name = bc.env("CASE_NAME") or ""


def main_said():
    return bc.said(b, first) or {}


def case_python_names_file():
    print("said: a Python program names the file it could not open")
    bc.expect_exit(b, code=1)
    o = main_said()
    bc.expect(o.get("fds") == [2], "output.jsonl: stderr of the program", o)
    bc.expect("model load failed: cache_hub/model.pth\n" in (o.get("text") or ""),
              "output.jsonl holds the program's error", o)
    f = bc.expect_cause("the open of cache_hub/model.pth",
                        lambda f: (f.get("path") or "").endswith("/cache_hub/model.pth"))
    said = f.get("said") or {}
    bc.expect(said.get("line") == "model load failed: cache_hub/model.pth",
              "explain --json quotes the last line", said)
    text = bc.explain_text()
    bc.expect("said: `model load failed: cache_hub/model.pth`" in text,
              "explain quotes it beside the finding", text[:800])


def case_shell_last_line():
    print("said: a script's last stderr line is its error")
    bc.expect_exit(b, code=3)
    o = main_said()
    bc.expect((o.get("text") or "").endswith("error: cannot read conf/app.ini\n\n"),
              "output.jsonl: the script's stderr, blank line last", o)
    f = bc.expect_cause("cat's open of conf/app.ini",
                        lambda f: (f.get("path") or "").endswith("/conf/app.ini"))
    said = f.get("said") or {}
    bc.expect(said.get("line") == "error: cannot read conf/app.ini" and said.get("pid") == first,
              "the quote is the script's last non-empty line", said)


def case_same_file():
    print("said: stdout and stderr to the same file")
    bc.expect_exit(b, code=0)
    o = main_said()
    # dash writes `echo >&2` through fd 1 after dup2(2, 1): the fds are those written to
    bc.expect(o.get("fds") in ([1], [1, 2]), "output.jsonl: stdout, the same file as stderr", o)
    bc.expect(o.get("text") == "out line one\nerr line two\nout line three\n",
              "both kept, in the order written", o)
    ls = [x for x in b.output if x.get("pid") != first]
    bc.expect(len(ls) == 1 and "said-missing-dir" in (ls[0].get("text") or ""),
              "ls's own error is its own record", b.output)
    with open(os.path.join(bc.TMP, "both.log"), encoding="utf-8") as fh:
        log = fh.read()
    bc.expect(log.startswith("out line one\nerr line two\nout line three\n"),
              "the file got what it gets without repro", log)
    text = bc.explain_text()
    bc.expect(len(text.splitlines()) == 1 and "nothing that matters failed" in text,
              "explain: a run that exited 0 says so in one line", text)
    bc.expect(bc.explain().get("worked") is True, "explain --json: worked", None)


def case_stderr_20k():
    print("said: 20,000 bytes to stderr, the last 8 KiB kept")
    bc.expect_exit(b, code=0)
    o = main_said()
    bc.expect(o.get("fds") == [2], "stdout (another file) is not kept", o)
    bc.expect(o.get("bytes_written") == 20000 and o.get("truncated") is True,
              "20000 bytes written, truncated", {k: o.get(k) for k in ("bytes_written", "truncated")})
    bc.expect(o.get("text") == "x" * 8192, "the last 8192 bytes", len(o.get("text") or ""))
    bc.expect(bc.stdout() == "out\n" and bc.stderr() == "x" * 20000,
              "the program's output is unchanged", None)


def case_secret():
    print("said: a secret echoed to stderr is redacted")
    bc.expect_exit(b, code=1)
    o = main_said()
    text = o.get("text") or ""
    bc.expect("s3cr3t-said-value-4711" not in text and "hunter2-said" not in text,
              "no secret in output.jsonl", text)
    bc.expect("login refused for token <redacted>" in text and "PASSWORD=<redacted>" in text,
              "the secrets are <redacted>", text)
    bc.expect("s3cr3t-said-value-4711" in bc.stderr(), "the program's stderr is unchanged", None)
    text = bc.explain_text()
    bc.expect("s3cr3t" not in text, "explain shows no secret", text)


def case_worked():
    print("said: a run that exited 0 says so in one line")
    bc.expect_exit(b, code=0)
    text = bc.explain_text()
    bc.expect(len(text.splitlines()) == 1 and "exited with status 0" in text and
              "nothing that matters failed" in text, "explain: one line", text)
    doc = bc.explain()
    bc.expect(doc.get("worked") is True, "explain --json: worked", doc.get("worked"))
    many = bc.explain_text("--all")
    bc.expect(len(many.splitlines()) > 1, "explain --all still lists the failures", many[:300])


def case_devnull():
    print("said: what a program said to /dev/null is kept, marked discarded")
    bc.expect_exit(b, code=1)
    outs = [o for o in b.output if "devnull-model.pth" in (o.get("text") or "")]
    bc.expect(outs and outs[0].get("discarded") is True and outs[0].get("fds") == [2],
              "output.jsonl: python's traceback, discarded", b.output)
    f = bc.expect_cause("the open of devnull-model.pth",
                        lambda f: (f.get("path") or "").endswith("/devnull-model.pth"))
    said = f.get("said") or {}
    bc.expect("devnull-model.pth" in (said.get("line") or ""),
              "explain quotes what it said to /dev/null", said)


{
    "said_devnull": case_devnull,
    "said_worked": case_worked,
    "said_python_names_file": case_python_names_file,
    "said_shell_last_line": case_shell_last_line,
    "said_same_file": case_same_file,
    "said_stderr_20k": case_stderr_20k,
    "said_secret": case_secret,
}[name]()
bc.done()
