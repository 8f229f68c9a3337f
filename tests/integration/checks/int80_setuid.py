"""Root steps down with the i386 ABI's setresuid32 (int $0x80): repro sees
the change, so the stat that follows is denied as without repro (the
output, already compared with the bare run, says EACCES) and the 32-bit
call is in the bundle."""
import bundlecheck as bc

b = bc.Bundle()
print("int80_setuid: setresuid32 through int $0x80, then a stat root alone may make")
if "skip:" in bc.stdout():
    bc.skip(bc.stdout().strip().splitlines()[-1])
bc.expect_exit(b, code=0)
bc.expect("stat(DIR/f) = -1 EACCES" in bc.stdout(), "the stat was denied", bc.stdout())
calls = b.find(syscall="setresuid32", arch="i386")
bc.expect(len(calls) == 1 and calls[0].get("ret") == 0, "setresuid32 = 0 is recorded (i386)",
          calls)
st = b.find(syscall="newfstatat", errno="EACCES")
bc.expect(len(st) == 1 and not st[0].get("result_unseen"), "the stat's EACCES is recorded", st)
bc.done()
