"""sh -c hello with hello only in the second PATH entry: the probe of the
first entry fails with ENOENT, then the second one is executed."""
import os

import bundlecheck as bc

b = bc.Bundle()
miss = os.path.join(bc.TMP, "bin1", "hello")
hit = os.path.join(bc.TMP, "bin2", "hello")
print("sh_path_second: PATH=bin1:bin2, hello in bin2")
bc.expect_exit(b, code=0)
bc.expect(bc.stdout() == "hello from bin2\n", "stdout is the script's line", bc.stdout())
probe = bc.expect_one(b.find(path=miss, errno="ENOENT"),
                      "a probe of %s failed with ENOENT" % miss, b.about(miss))
run = bc.expect_one(b.find(syscall="execve", path=hit, ok=True),
                    "execve(%s) = 0" % hit, b.find(syscall="execve"))
if probe and run:
    bc.expect(probe["seq"] < run["seq"], "the probe came before the exec", [probe, run])
    bc.expect(probe.get("syscall") in ("execve", "stat", "newfstatat", "statx", "access",
                                       "faccessat", "faccessat2"),
              "the probe is an exec or stat-like call", probe)
bc.expect(any(x.get("argv") == ["hello"] for p in b.exec_process(hit)
              for x in p.get("execs") or []), "processes.jsonl has the exec of hello")
doc = bc.explain()
bc.expect(not any("bin1" in (f.get("path") or "") for f in doc.get("findings") or []),
          "explain: the miss in the first PATH directory is probe noise, not a finding",
          [f.get("sentence") for f in doc.get("findings") or []])
bc.done()
