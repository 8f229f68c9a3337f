"""A Python under a prefix of its own (a venv, a copy in /opt/x/bin) opens a
configuration file that does not exist: explain's finding #1 is that file,
and none of the searches made under the prefix (loader hwcaps directories,
lib/python3.*, pyvenv.cfg, __pycache__) is among the findings that matter."""
import os

import bundlecheck as bc

b = bc.Bundle()
print("python_prefix: %s" % " ".join(b.manifest.get("argv") or [])[:80])
bc.expect_exit(b, code=1)
missing = os.path.realpath(bc.TMP) + "/nonexistent/cfg"
bc.expect_cause("the missing cfg",
                lambda f: f.get("path") == missing and f.get("errno") == "ENOENT")
doc = bc.explain()
prefix = [f.get("sentence") for f in doc.get("findings") or []
          if (f.get("path") or "").startswith((os.path.realpath(bc.TMP) + "/venv", os.path.realpath(bc.TMP) + "/opt"))]
bc.expect(not prefix, "explain: nothing under the interpreter's prefix is a finding", prefix[:3])
everything = bc.explain("--all")
rules = {f.get("noise_rule") for f in everything.get("findings") or [] if f.get("noise")}
bc.expect("loader_config" in rules or "loader_hwcaps" in rules or "shared_library" in rules,
          "explain --all names the loader rule of a probe", sorted(r for r in rules if r))
bc.expect(all(f.get("noise_rule") for f in everything.get("findings") or [] if f.get("noise")),
          "every probe names the rule that set it aside", None)
bc.done()
