#!/bin/sh
# Record Salt 3006's answers for the service functions on this machine
# (systemd installed, not PID 1: Salt's offline mode), for service_test.go.
# Usage: SALT_CALL=/path/to/salt-call CONFDIR=dir ./gen_golden.sh > offline.json
# The fingerprint lets the test run only on a machine in the same state.
set -e
fp=$(LC_ALL=C ls -1 /etc/init.d /etc/rc2.d /etc/rcS.d /lib/systemd/system /etc/systemd/system 2>/dev/null | sha256sum | cut -d' ' -f1)
printf '{"fingerprint": "%s", "cases": [\n' "$fp"
sep=""
while read -r fun args; do
	out=$($SALT_CALL -c "$CONFDIR" --local --out json $fun $args 2>/dev/null | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["local"]))')
	printf '%s  {"fun": "%s", "args": "%s", "want": %s}' "$sep" "$fun" "$args" "$out"
	sep=",
"
done <<'CASES'
service.get_all
service.get_enabled
service.get_disabled
service.get_static
service.get_running
service.available cron
service.available nonexist
service.missing cron
service.enabled cron
service.enabled nonexist
service.disabled exim4
service.disabled cron
service.masked cron
service.status nonexist
service.status nonexist* 
service.offline
service.show ssh
service.execs
service.stop brine-nonexist
CASES
printf '\n]}\n'
