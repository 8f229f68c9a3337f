#!/bin/sh
# Fails when a part includes a header of a part it may not see (docs/architecture.md).
cd "$(dirname "$0")/.." || exit 2
status=0
check() { # part allowed-pattern
	part=$1 allowed=$2
	bad=$(grep -rhoE '#include "[a-z_]+/[a-z_/]+\.h"' "$part" | sed 's/#include "//; s/"$//' |
		grep -vE "^($part/|$allowed)" | sort -u)
	if [ -n "$bad" ]; then
		echo "$part includes what it may not see:" $bad
		status=1
	fi
}
check common '^$'
check launcher 'common/'
check bundles 'common/'
check recorder 'common/|bundles/|launcher/(stop|mem|abi|filter_rule|policy)\.h'
check session 'common/|bundles/|launcher/|recorder/'
check replayer 'common/|bundles/|session/session\.h|launcher/policy\.h|launcher/stop\.h'
check replayer/readers 'common/|bundles/'
check replayer/policies 'common/|launcher/policy\.h'
# one run of a command: a session with the policies of fault rules and a caller's own
check replayer/run 'common/|session/session\.h|replayer/policies/'
# a replay plans impositions from a bundle's findings (readers) as fault rules,
# watches the run as a policy, and runs it (replayer/run/, a trial in a child: sweep's)
check replayer/replay 'common/|bundles/|session/session\.h|launcher/(policy|stop)\.h|replayer/readers/(explain|normalize|diff)\.h|replayer/policies/|replayer/run/|replayer/sweep/sweep\.h'
# a sweep plans, runs each fault in a child (replayer/run/) and reads what the runs left
check replayer/sweep 'common/|bundles/|session/session\.h|replayer/readers/|replayer/policies/|replayer/run/'
# the cli parses, calls once into a module and prints: never the launcher or the recorder
check cli 'common/|bundles/|session/|replayer/'
if grep -rn 'sys/user.h\|__x86_64__' common launcher bundles recorder session replayer cli | grep -v '^launcher/arch/'; then
	echo "register or architecture code outside launcher/arch/"
	status=1
fi
[ $status = 0 ] && echo "layering ok"
exit $status
