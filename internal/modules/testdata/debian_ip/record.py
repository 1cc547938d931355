#!/usr/bin/env python3
"""Record Salt 3006's debian_ip answers for brine's ip module test.

Run from this directory with Salt 3006's source on PYTHONPATH (not in CI):
    PYTHONPATH=/path/to/salt python3 record.py > golden.json
It imports salt.modules.debian_ip, points its file paths at a temporary
root holding ./interfaces, replaces the package installs and kernel module
loads its functions make with no-ops (they are not what is recorded), and
records what get_interface, build_interface, build_bond and the files they
write return for the cases below.
"""
import json
import os
import shutil
import sys
import tempfile

import salt.loader.context  # noqa: F401  (sets up the loader dunders)
import salt.modules.debian_ip as dip

here = os.path.dirname(os.path.abspath(__file__))
root = tempfile.mkdtemp()
os.makedirs(root + "/etc/network/interfaces.d")
os.makedirs(root + "/etc/modprobe.d")
shutil.copy(os.path.join(here, "interfaces"), root + "/etc/network/interfaces")
dip._DEB_NETWORK_FILE = root + "/etc/network/interfaces"
dip._DEB_NETWORK_DIR = root + "/etc/network/interfaces.d/"
dip._DEB_NETWORK_CONF_FILES = root + "/etc/modprobe.d/"
dip.__salt__ = {"pkg.install": lambda *a, **k: {}, "kmod.load": lambda *a, **k: []}
dip.__grains__ = {"os": "Debian", "os_family": "Debian", "osrelease": "12", "osrelease_info": [12]}

cases = json.load(open(os.path.join(here, "cases.json")))
out = []
for c in cases:
    fun = getattr(dip, c["fun"])
    rec = {}
    try:
        rec["ret"] = fun(*c.get("args", []), **c.get("kwargs", {}))
    except Exception as exc:  # pylint: disable=broad-except
        rec["error"] = "{}: {}".format(type(exc).__name__, exc)
    if c.get("file"):
        p = root + c["file"]
        rec["file"] = open(p).read() if os.path.exists(p) else None
    out.append(json.loads(json.dumps(rec).replace(root, "@ROOT@")))
shutil.rmtree(root)
json.dump(out, sys.stdout, indent=1)
print()
