"""stat_signals: stat and close under a 200 us SIGALRM whose handler has no
SA_RESTART.  run_case already requires the same output bare and recorded
("stat EINTR 0, close EINTR 0"); here every stat is in the bundle, each
with its result, although signals came in the middle of them."""
import bundlecheck as bc

b = bc.Bundle()
print("stat_signals: calls interrupted by a signal are restarted, and recorded once done")
bc.expect_exit(b, code=0)
bc.expect("signals came: yes" in bc.stdout(), "the program got its signals", bc.stdout())
done = b.find(syscall="newfstatat", path="/etc/passwd", ok=True)
bc.expect(len(done) >= 20000, "every stat(/etc/passwd) is recorded with its result", len(done))
bc.done()
