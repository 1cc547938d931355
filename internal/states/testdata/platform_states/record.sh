#!/bin/sh
# Records Salt 3006's returns for platform_states_test.go into salt.json:
# state.single through salt-call --local (the timing and run keys
# dropped). Needs Salt (SALT_CALL, default /opt/saltoracle/bin/salt-call),
# root and dpkg; it holds the package "less" and releases it again.
# Run from this directory: sh record.sh
set -eu
SALT_CALL=${SALT_CALL:-/opt/saltoracle/bin/salt-call}
conf=$(mktemp -d)
trap 'echo "less install" | dpkg --set-selections; rm -rf "$conf"' EXIT
printf 'file_client: local\nroot_dir: %s/root\n' "$conf" > "$conf/minion"
echo "less install" | dpkg --set-selections
one() {
	key=$1
	shift
	printf '%s\t' "$key"
	"$SALT_CALL" -c "$conf" --local --out json state.single "$@" 2>/dev/null |
		python3 -c 'import json,sys; d=json.load(sys.stdin)["local"]; r=list(d.values())[0]
print(json.dumps({k: v for k, v in r.items() if k in ("name", "changes", "result", "comment")}))'
}
{
	one shortcut file.shortcut /tmp/brine-h4.lnk target=/bin/ls
	one shortcut_owner file.shortcut /tmp/brine-h4.url target=http://x owner=root makedirs=True
	one group_installed pkg.group_installed 'Development Tools'
	one group_installed_skip pkg.group_installed base skip=notalist
	one patch_installed pkg.patch_installed SUSE-2023-1
	one patch_installed_empty pkg.patch_installed x 'advisory_ids=[]'
	one patch_downloaded pkg.patch_downloaded SUSE-2023-1 downloadonly=False
	one migrated pkgrepo.migrated /mnt
	one migrated_method pkgrepo.migrated /mnt keys=False method=bogus
	one apt_missing apt.held brine-no-such-package
	one apt_test apt.held less test=True
	one apt_hold apt.held less
	one apt_already apt.held less
	one apt_already_test apt.held less test=True
} | python3 -c 'import json,sys
out={}
for line in sys.stdin:
    k, v = line.rstrip("\n").split("\t", 1)
    out[k] = json.loads(v)
json.dump(out, open("salt.json", "w"), indent=1)
print(len(out), "cases")'
