#!/bin/sh
# Record Salt 3006's returns for brine's network state test (network_test.go).
# Run as root on a Debian box without /etc/network and /etc/default/networking
# (they are created for the run and removed after; the interfaces file is
# ./interfaces), with a Salt 3006 salt-call:
#     sh record.sh /path/to/salt-call CONFDIR > golden.json
# The machine's /etc/hostname and /etc/resolv.conf are copied into the golden
# (the test rebuilds the same files under a temporary root).
set -e
SALT="$1"; CONF="$2"
[ ! -e /etc/network ] && [ ! -e /etc/default/networking ] || { echo "/etc/network or /etc/default/networking exists" >&2; exit 1; }
trap 'rm -rf /etc/network /etc/default/networking' EXIT
mkdir -p /etc/network/if-up.d /etc/network/if-down.d
printf '#!/bin/sh\n# add\ntest "${IFACE}" = "brt0" || exit 0\nip route add 10.1.0.0/16 via 10.0.0.9 dev brt0\n' > /etc/network/if-up.d/route-brt0
printf '#!/bin/sh\n# del\ntest "${IFACE}" = "brt0" || exit 0\nip route del 10.1.0.0/16 via 10.0.0.9 dev brt0\n' > /etc/network/if-down.d/route-brt0
printf '# x\nCONFIGURE_INTERFACES=yes\n' > /etc/default/networking
cp "$(dirname "$0")/interfaces" /etc/network/interfaces
run() { "$SALT" -c "$CONF" --local --out json "$@" </dev/null | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["local"]))'; }
echo '{'
printf '"hostname": %s,\n' "$(python3 -c 'import json; print(json.dumps(open("/etc/hostname").read()))')"
printf '"resolv": %s,\n' "$(python3 -c 'import json; print(json.dumps(open("/etc/resolv.conf").read()))')"
printf '"get_routes": %s,\n' "$(run ip.get_routes brt0)"
printf '"get_network_settings": %s,\n' "$(run ip.get_network_settings)"
printf '"routes_test": %s,\n' "$(run state.single network.routes brt0 routes='[{"name": "net1", "ipaddr": "10.1.0.0", "netmask": 16, "gateway": "10.0.0.1"}, {"ipaddr": "10.2.0.0", "netmask": 16, "gateway": "10.0.0.1", "metric": 7}]' test=True)"
printf '"routes_same": %s,\n' "$(run state.single network.routes brt0 routes='[{"ipaddr": "10.1.0.0", "netmask": 16, "gateway": "10.0.0.9"}]' test=True)"
printf '"system_test": %s,\n' "$(run state.single network.system sys test=True)"
printf '"system_test_args": %s,\n' "$(run state.single network.system sys enabled=False hostname=web1.example.org search=example.org test=True)"
printf '"managed_lo": %s,\n' "$(run state.single network.managed lo proto=loopback test=True)"
printf '"managed_eth0": %s,\n' "$(run state.single network.managed eth0 proto=dhcp hotplug=True test=True)"
printf '"managed_bond0": %s\n' "$(run state.single network.managed bond0 type=bond proto=manual slaves='eth3 eth4' mode=4 test=True)"
echo '}'
