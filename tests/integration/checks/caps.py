"""The program's capability sets are those it has without repro: the user
namespace's full set is cut to the caller's bounding set before exec
(transparency; stdout was already compared with the bare run)."""
import bundlecheck as bc

b = bc.Bundle()
print("caps: the program printed its Cap* lines of /proc/self/status")
bc.expect_exit(b, code=0)
out = bc.stdout()
bc.expect("CapBnd:" in out and "CapEff:" in out, "the program printed CapBnd and CapEff", out)
bc.done()
