"""Death by a signal: repro exits 128+N and the manifest names the signal."""
import bundlecheck as bc

b = bc.Bundle()
sig = "SIGABRT" if (b.manifest.get("argv") or [])[-1:] == ["abort"] else "SIGSEGV"
print("die_by_signal: killed by %s" % sig)
bc.expect_exit(b, sig=sig)
bc.expect(bc.STATUS == int(bc.env("CASE_BARE_STATUS")),
          "the shell saw the same status for the bare run", bc.env("CASE_BARE_STATUS"))
proc = b.processes[0] if b.processes else {}
bc.expect((proc.get("exit") or {}).get("signal") == sig,
          "processes.jsonl: the process was killed by %s" % sig, proc.get("exit"))
bc.expect("raising %s" % sig in bc.stdout(), "the line printed before dying is there",
          bc.stdout())
bc.done()
