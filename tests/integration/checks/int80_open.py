"""A 32-bit int $0x80 open from a 64-bit program: named open (i386), never
mis-decoded as the x86_64 call of the same number (5 = fstat)."""
import bundlecheck as bc

b = bc.Bundle()
print("int80_open: int $0x80 open(\"/nonexistent-int80\")")
bc.expect(not b.find(syscall="fstat"), "no event was mis-decoded as fstat",
          b.find(syscall="fstat"))
bc.expect(not b.find(path="/nonexistent-int80", pred=lambda e: e.get("arch") != "i386"),
          "no 64-bit event names the int80 path", b.about("/nonexistent-int80"))
if "skip:" in bc.stdout() and not bc.failures():
    bc.skip("the kernel has no IA32 emulation: %s" % bc.stdout().strip().splitlines()[-1])
bc.expect_exit(b, code=0)
bc.expect_one(b.find(syscall="open", path="/nonexistent-int80", errno="ENOENT", arch="i386"),
              "open(\"/nonexistent-int80\") = -1 ENOENT with arch i386",
              b.about("/nonexistent-int80"))
bc.done()
