"""repro starts a program that cannot be run, as a shell would: exit 127
when it is missing (after an execve of each PATH entry for a bare name),
126 when it exists without its run bit; the failed execve is recorded, the
bundle written, and explain names the cause.  A file without #! runs
through /bin/sh (execvp(3)), so it works as it does without repro."""
import os

import bundlecheck as bc

b = bc.Bundle()
argv = b.manifest.get("argv") or []
name = argv[0] if argv else ""
print("exec_fail: %s" % name)
if name.endswith("plain.sh"):
    bc.expect_exit(b, code=0)
    bc.expect("plain ran with 1 argument(s)" in bc.stdout(), "sh ran the file", bc.stdout())
    bc.expect(bool(b.find(syscall="execve", path_as_written="/bin/sh")), "the execve of /bin/sh is recorded",
              b.find(syscall="execve"))
    bc.done()
want = 126 if name.endswith("tool.sh") else 127
errno = "EACCES" if want == 126 else "ENOENT"
bc.expect_exit(b, code=want)
failed = b.find(syscall="execve", errno=errno)
bc.expect(bool(failed), "a failed execve with %s is recorded" % errno, b.find(syscall="execve"))
if "/" in name:
    bc.expect([e.get("path") for e in failed] == [name], "the execve of %s" % name, failed)
else:

    bc.expect(len(failed) >= 1 and all(os.path.basename(e.get("path", "")) == name for e in failed),
              "one execve of %s per PATH entry" % name, failed)
bc.expect(b.manifest.get("exit") == {"code": want}, "the manifest has exit %d" % want,
          b.manifest.get("exit"))
f = bc.expect_cause("the failed execve",
                    lambda f: f.get("kind") == "exec" and f.get("errno") == errno)
if "/" not in name:
    bc.expect((f.get("reason") or {}).get("what") == "not_in_path",
              "explain: one finding for the whole PATH search", f.get("sentence"))
bc.expect(name.split("/")[-1] in (f.get("process") or ""),
          "explain names the process after the command", f.get("process"))
bc.done()
