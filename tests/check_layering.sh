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
check replayer 'common/|bundles/|launcher/policy\.h|launcher/stop\.h'
check replayer/readers 'common/|bundles/'
check replayer/policies 'common/|launcher/policy\.h'
# a replay plans impositions from a bundle's findings (readers) as fault rules,
# and watches the run as a policy
check replayer/replay 'common/|bundles/|launcher/(policy|stop)\.h|replayer/readers/(explain|normalize)\.h'
# a sweep plans and reads runs; the runs themselves are the cli's (sweep/sweep.h)
check sweep 'common/|bundles/|replayer/readers/'
# the cli parses, calls once into a module and prints: never the launcher or the recorder
check cli 'common/|bundles/|session/|replayer/|sweep/'
if grep -rn 'sys/user.h\|__x86_64__' common launcher bundles recorder session replayer sweep cli | grep -v '^launcher/arch/'; then
	echo "register or architecture code outside launcher/arch/"
	status=1
fi
[ $status = 0 ] && echo "layering ok"
exit $status
