"""--trace=file: file events are recorded, network ones are not."""
import bundlecheck as bc

b = bc.Bundle()
print("trace_file_only: --trace=file")
bc.expect_exit(b, code=0)
opts = b.manifest.get("options") or {}
bc.expect(opts.get("trace") == "file", "manifest options.trace == file", opts)
net = b.find(syscall=("socket", "connect", "bind", "getsockopt", "sendto", "sendmsg"))
bc.expect(not net, "no network event", net[:3])
bc.expect(b.find(syscall=("openat", "open")), "file events were recorded (openat)")
bc.done()
