"""A program that cannot be run, for a reason explain names: a script whose
#! line ends in a CR (ENOENT, 127), a directory (EACCES, 126)."""
import os

import bundlecheck as bc

b = bc.Bundle()
name = (b.manifest.get("argv") or [""])[0]
print("exec_reason: %s" % name)
crlf = name.endswith("crlf.sh")
errno, code = ("ENOENT", 127) if crlf else ("EACCES", 126)
bc.expect_exit(b, code=code)
f = bc.expect_cause("the failed execve",
                    lambda f: f.get("kind") == "exec" and f.get("errno") == errno)
reason = f.get("reason") or {}
if crlf:
    bc.expect(reason.get("what") == "interpreter_crlf" and reason.get("interpreter") == "/bin/sh",
              "explain: the #! line ends in a CR, interpreter /bin/sh", reason)
    files = bc._load_jsonl(os.path.join(bc.env("BUNDLE_DIR"), "files.jsonl"))
    rec = [r for r in files if r.get("path") == bc.canon(name)]
    bc.expect(bool(rec) and rec[0].get("shebang") == {"interpreter": "/bin/sh", "cr": True},
              "files.jsonl has the shebang of the script", rec)
else:
    bc.expect(reason.get("what") == "exec_directory", "explain: it is a directory", reason)
bc.done()
