"""bash -c asks whether its stdin is a network connection (getpeername(0));
on /dev/null that fails with ENOTSOCK, as strace shows, and so does the bundle."""
import bundlecheck as bc

b = bc.Bundle()
print("bash_getpeername: bash -c with stdin /dev/null")
bc.expect_exit(b, code=0)
ev = bc.expect_one(b.find(syscall="getpeername", fd=0, errno="ENOTSOCK"),
                   "getpeername(0) = -1 ENOTSOCK", b.find(syscall="getpeername"))
if ev:
    bc.expect("addr" not in ev, "a failed getpeername has no address", ev)
lines = [ln for ln in b.trace.splitlines() if "getpeername(0, " in ln]
bc.expect(len(lines) == 1 and lines[0].endswith(
    "= -1 ENOTSOCK (Socket operation on non-socket)") and "[16])" in lines[0],
    "trace.txt: getpeername(0, 0x..., [16]) = -1 ENOTSOCK (...)", lines)
found = bc.explain().get("findings") or []
bc.expect(not [f for f in found if f.get("syscall") == "getpeername"],
          "explain sets the getpeername probe aside", [f.get("sentence") for f in found[:3]])
bc.done()
