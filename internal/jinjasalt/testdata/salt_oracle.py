"""Regenerate filters_golden.json entries from Salt 3006 itself.

Usage: python3 salt_oracle.py SNIPPETS.json > out.json

SNIPPETS.json is a JSON list of template sources. Each is rendered through
salt.utils.templates.render_jinja_tmpl (opts {}, saltenv None, small grains
and pillar); the output, or the first line of the error, is recorded.

Needs a Salt 3006 source tree on SALT_SRC (e.g. a `git archive` of the
openSUSE/salt snapshot) and python3 with jinja2, PyYAML (libyaml) and
jmespath. Salt's other imports (looseversion, packaging, distro, msgpack)
can be empty stub modules on STUBS: only the Jinja code paths run.
"""
import json
import os
import sys

sys.path.insert(0, os.environ.get("STUBS", "/tmp/pystub"))
sys.path.insert(0, os.environ.get("SALT_SRC", "/tmp/salt"))

import salt.utils.templates as T  # noqa: E402
from salt.exceptions import SaltRenderError  # noqa: E402

out = []
for src in json.load(open(sys.argv[1])):
    ctx = {
        "opts": {},
        "saltenv": None,
        "grains": {"os": "Debian", "ipv4": ["127.0.0.1", "192.0.2.10"]},
        "pillar": {"app": {"port": 8080}},
    }
    try:
        out.append({"src": src, "out": T.render_jinja_tmpl(src, ctx)})
    except SaltRenderError as e:
        out.append({"src": src, "err": str(e).split("\n")[0]})
    except Exception as e:  # noqa: BLE001
        out.append({"src": src, "err": "%s: %s" % (type(e).__name__, e)})
json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
