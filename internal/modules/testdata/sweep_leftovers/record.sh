#!/bin/sh
# Records Salt 3006's answers for sweep_leftovers_test.go into salt.json:
# return, exit status and stderr's last line of salt-call --local --out
# json for each case, with the minion's root_dir written as {root}.
# Needs Salt (SALT_CALL, default /opt/saltoracle/bin/salt-call). Run from
# this directory: sh record.sh
set -eu
SALT_CALL=${SALT_CALL:-/opt/saltoracle/bin/salt-call}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
printf 'file_client: local\nroot_dir: %s\n' "$root" > "$root/minion"
cache=$root/var/cache/salt/minion
mkdir -p "$cache/files/dev/sub" "$cache/localfiles"
echo x > "$cache/files/dev/sub/x.sls"
echo y > "$cache/localfiles/y.txt"
one() {
	key=$1
	shift
	set +e
	"$SALT_CALL" -c "$root" --local --out json "$@" > "$root/out" 2> "$root/err"
	rc=$?
	set -e
	python3 - "$key" "$rc" "$root" <<'PY'
import json, sys
key, rc, root = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = open(root + "/out").read()
err = [l for l in open(root + "/err").read().splitlines() if l and not l.startswith((" ", "/"))]
rec = {"retcode": rc}
if out.strip():
    rec["return"] = json.loads(out.replace(root, "{root}"))["local"]
if err:
    rec["stderr"] = err[-1].replace(root, "{root}")
print(json.dumps({key: rec}))
PY
}
{
	one cp.list_minion cp.list_minion saltenv=base
	one locale.get_locale locale.get_locale
	one service.show service.show cron
	one pkg.services_need_restart pkg.services_need_restart
} | python3 -c 'import json,sys
out={}
for line in sys.stdin:
    out.update(json.loads(line))
out["/etc/default/locale"] = open("/etc/default/locale").read()
json.dump(out, open("salt.json", "w"), indent=1)
print(len(out), "records")'
