#!/usr/bin/python3
"""Record how Salt 3006's aptpkg reads and rewrites one-line apt sources without
python-apt (its own SourceEntry, as in the official onedir build).

It also records what _expand_repo_def (pkgrepo.managed's expansion; the
pkg.expand_repo_def wrapper raises its deprecation error since 2026-01-01)
returns for some definitions, for internal/modules' test.

Usage: PYTHONPATH=/opt/saltoracle/noapt:/tmp/saltsrc /usr/bin/python3 record_parse.py \
    salt_noapt_parse.json ../../../modules/testdata/aptpkg/expand_noapt.salt.json
"""
import json, sys

import salt.modules.aptpkg as aptpkg

assert not aptpkg.HAS_APT, "python-apt must be hidden (see /opt/saltoracle/noapt)"
LINES = [
    "deb http://deb.debian.org/debian bookworm main contrib\n",
    "deb  http://x/y   bookworm main # hi\n",
    "# deb http://x/y bookworm main\n",
    "#deb-src http://x/y bookworm main\n",
    "# just a comment\n",
    "\n",
    "#\n",
    "deb [trusted=yes] file:/tmp/r ./\n",
    "deb [trusted=yes] file:/tmp/r bookworm main\n",
    "deb [arch=amd64,i386 trusted=no] http://x/y stable main\n",
    "deb [signed-by=/usr/share/keyrings/k.gpg] http://x/y stable main\n",
    "deb [signed-by=/k.gpg arch=amd64] http://x/y stable main\n",
    "deb [arch=amd64 signed-by=/k.gpg trusted=yes] http://x/y stable main # vendor\n",
    "deb [ arch=amd64 ] http://x/y stable\n",
    "deb [arch=amd64] http://x/y stable\n",
    "deb http://x/y\n",
    "foo http://x/y stable main\n",
    "deb cdrom:[Debian GNU/Linux 12 _Bookworm_]/ bookworm main\n",
    "deb-src http://x/y/ sid main non-free # c # d\n",
    "deb file:/tmp/r ./\n",
    "# deb [trusted=yes] file:/tmp/r ./ # note\n",
    "deb [arch=amd64 http://x/y stable\n",
]
out = []
for line in LINES:
    e = aptpkg.SourceEntry(line)
    out.append({"line": line, "invalid": e.invalid, "disabled": e.disabled, "type": e.type,
                "architectures": e.architectures, "signedby": e.signedby, "uri": e.uri, "dist": e.dist,
                "comps": e.comps, "comment": e.comment, "repo_line": e.repo_line()})
json.dump(out, open(sys.argv[1], "w"), indent=1)

EXPAND = [
    {"repo": "deb [trusted=yes] file:/tmp/r ./"},
    {"repo": "deb [trusted=yes] file:/tmp/r bookworm main"},
    {"repo": "deb [signed-by=/k.gpg arch=amd64] http://x/y stable main contrib"},
    {"repo": "deb [signed-by=/k.gpg] http://x/y stable main", "architectures": "amd64, i386"},
    {"repo": "deb http://x/y stable main", "signedby": "/k.gpg"},
    {"repo": "deb http://x/y stable main", "comps": "main,contrib", "disabled": True},
    {"repo": "# deb http://x/y stable main # note"},
    {"repo": "deb http://x/y/ stable", "uri": "http://z/w", "dist": "sid"},
    {"repo": "deb file:/tmp/r ./", "disabled": False},
]
out = []
for kw in EXPAND:
    ret = aptpkg._expand_repo_def(os_name="Debian", os_codename="bookworm", **kw)
    out.append({"kwargs": kw, "return": ret})
json.dump(out, open(sys.argv[2], "w"), indent=1)
