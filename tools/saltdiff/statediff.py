#!/usr/bin/env python3
"""State-level differential sweep: brine's state modules against real Salt.

Each scenario is a small system case (setup shell, one SLS, probe shell,
teardown shell) in the format of ../shared/conformance (see its README). The
sweep writes it to a temp case dir and runs it twice with the conformance
library: once through `salt-call` (the oracle) and once through `brine call`,
setup and teardown around each run. The normalised state returns, the exit
codes and the probe outputs of the two runs are diffed (caselib.diff, key
order ignored unless --strict-order).

Nothing here runs in CI: it needs root on a throwaway Debian 12 machine, a
Salt 3006 install (default /opt/saltoracle/bin/salt-call) and a brine binary.
Scenarios change the machine (users, groups, crontabs, /etc/hosts lines,
packages) and undo it in teardown; their names use a `brth7` prefix and
uids/gids 47700-47799 (the second round: `brtw3`, 47800-47899, packages
hello, tree, figlet and dos2unix, lighttpd for services) so they do not
clash with the conformance cases. Some file.recurse differences are Salt's
own: it manages the parent directories of the files from a Python set, so
which of them report "directory: new" (and the order of the comments in
test mode) changes from run to run.

Usage (from the repository root):

    go build -o /tmp/brine ./cmd/brine
    python3 tools/saltdiff/statediff.py --brine /tmp/brine [-k REGEX] [-v] [--list]
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile

HEADER = "{% set d = grains['scratch'] %}\n"

# Users and groups the scenarios create; teardown removes them whatever happened.
RM_USERS = "for u in brth7u1 brth7u2 brth7u3; do userdel -r $u >/dev/null 2>&1; userdel $u >/dev/null 2>&1; rm -rf /home/$u; done; true"
RM_GROUPS = "for g in brth7u1 brth7u2 brth7u3 brth7g1 brth7g2 brth7g3; do groupdel $g >/dev/null 2>&1; done; true"
MK_USER1 = "groupadd -g 47701 brth7u1 && useradd -u 47701 -g brth7u1 -m -s /bin/sh brth7u1"
MK_GROUPS = "groupadd -g 47711 brth7g1 && groupadd -g 47712 brth7g2"
CLEAN_IDS = [RM_USERS, RM_GROUPS]
HOSTS_CLEAN = "sed -i '/brth7/d; /^127\\.0\\.7\\./d' /etc/hosts"

SCENARIOS = []


def sc(name, sls, setup=(), probe=(), teardown=(), argv=None, test=False, config=None, pre=None,
       timeout=180, match=None):
    """Declare one scenario. sls gets `d` (the scratch dir) set in Jinja."""
    argv = list(argv or ["state.sls", "main"])
    if test:
        argv.append("test=True")
    SCENARIOS.append(dict(name=name, sls=HEADER + sls, setup=list(setup), probe=list(probe),
                          teardown=list(teardown), argv=argv, config=config or {},
                          pre=pre or [], timeout=timeout, match=match or []))


def variants(name, sls, setup=(), probe=(), teardown=(), already=None, **kw):
    """fresh, test=True, and re-apply (already in state) variants of one SLS."""
    sc(name + "/fresh", sls, setup, probe, teardown, **kw)
    sc(name + "/test", sls, setup, probe, teardown, test=True, **kw)
    sc(name + "/again", sls, setup, probe, teardown, pre=[["state.sls", "main"]], **kw)


# ---------------------------------------------------------------- file.*

STAT = "cd \"$SCRATCH\" && find . -mindepth 1 | sort | xargs -r stat -c '%n %U %G %a %F'"
CAT = "cd \"$SCRATCH\" && for f in $(find . -type f | sort); do echo \"== $f\"; cat \"$f\"; done"
FILE_PROBE = [STAT, CAT]

variants("file.managed contents", """
{{ d }}/a.conf:
  file.managed:
    - contents: |
        line one
        line two
""", probe=FILE_PROBE)
sc("file.managed contents change", """
{{ d }}/a.conf:
  file.managed:
    - contents: |
        line one
        line 2
""", setup=["printf 'line one\\nline two\\n' > \"$SCRATCH/a.conf\""], probe=FILE_PROBE)
sc("file.managed contents change test", """
{{ d }}/a.conf:
  file.managed:
    - contents: |
        line one
        line 2
""", setup=["printf 'line one\\nline two\\n' > \"$SCRATCH/a.conf\""], probe=FILE_PROBE, test=True)
sc("file.managed source", """
{{ d }}/b.conf:
  file.managed:
    - source: salt://files/b.conf
    - mode: '0600'
""", probe=FILE_PROBE)
sc("file.managed source missing", """
{{ d }}/b.conf:
  file.managed:
    - source: salt://files/nope.conf
""", probe=FILE_PROBE)
sc("file.managed template", """
{{ d }}/t.conf:
  file.managed:
    - source: salt://files/t.j2
    - template: jinja
    - context:
        who: world
    - defaults:
        who: nobody
        n: 3
""", probe=FILE_PROBE)
sc("file.managed user group mode", """
{{ d }}/o.conf:
  file.managed:
    - contents: hi
    - user: brth7u1
    - group: brth7g1
    - mode: 640
""", setup=CLEAN_IDS + [MK_USER1, MK_GROUPS], probe=FILE_PROBE, teardown=CLEAN_IDS)
sc("file.managed mode change only", """
{{ d }}/o.conf:
  file.managed:
    - contents: hi
    - mode: '0600'
""", setup=["printf hi > \"$SCRATCH/o.conf\""], probe=FILE_PROBE)
sc("file.managed mode change only nl", """
{{ d }}/o.conf:
  file.managed:
    - contents: hi
    - mode: '0600'
""", setup=["printf 'hi\\n' > \"$SCRATCH/o.conf\""], probe=FILE_PROBE)
sc("file.managed user missing", """
{{ d }}/o.conf:
  file.managed:
    - contents: hi
    - user: brth7nouser
""", probe=FILE_PROBE)
sc("file.managed backup minion", """
{{ d }}/k.conf:
  file.managed:
    - contents: new
    - backup: minion
""", setup=["printf old > \"$SCRATCH/k.conf\""], probe=[STAT])
sc("file.managed makedirs", """
{{ d }}/x/y/z.conf:
  file.managed:
    - contents: deep
    - makedirs: True
    - dir_mode: 750
""", probe=FILE_PROBE)
sc("file.managed no makedirs", """
{{ d }}/x/y/z.conf:
  file.managed:
    - contents: deep
""", probe=FILE_PROBE)
sc("file.managed replace false existing", """
{{ d }}/r.conf:
  file.managed:
    - contents: new
    - replace: False
    - mode: '0600'
""", setup=["printf old > \"$SCRATCH/r.conf\""], probe=FILE_PROBE)
sc("file.managed replace false new", """
{{ d }}/r.conf:
  file.managed:
    - contents: new
    - replace: False
""", probe=FILE_PROBE)
sc("file.managed contents_pillar list", """
{{ d }}/l.conf:
  file.managed:
    - contents:
      - one
      - two
""", probe=FILE_PROBE)
sc("file.managed on directory", """
{{ d }}/dir:
  file.managed:
    - contents: x
""", setup=["mkdir \"$SCRATCH/dir\""], probe=FILE_PROBE)
sc("file.managed source_hash mismatch", """
{{ d }}/h.conf:
  file.managed:
    - source: salt://files/b.conf
    - source_hash: sha256=0000000000000000000000000000000000000000000000000000000000000000
""", probe=FILE_PROBE)
sc("file.managed skip_verify http-less local", """
{{ d }}/h.conf:
  file.managed:
    - source: {{ d }}/src.txt
""", setup=["echo local > \"$SCRATCH/src.txt\""], probe=FILE_PROBE)
sc("file.managed create false", """
{{ d }}/c.conf:
  file.managed:
    - contents: x
    - create: False
""", probe=FILE_PROBE)
sc("file.managed follow_symlinks", """
{{ d }}/link.conf:
  file.managed:
    - contents: via link
""", setup=["echo old > \"$SCRATCH/target.conf\" && ln -s target.conf \"$SCRATCH/link.conf\""], probe=FILE_PROBE)

variants("file.directory", """
{{ d }}/dd:
  file.directory:
    - mode: 750
""", probe=[STAT])
sc("file.directory clean", """
{{ d }}/dd:
  file.directory:
    - clean: True
""", setup=["mkdir -p \"$SCRATCH/dd/sub\" && touch \"$SCRATCH/dd/a\" \"$SCRATCH/dd/sub/b\""], probe=[STAT])
sc("file.directory clean test", """
{{ d }}/dd:
  file.directory:
    - clean: True
""", setup=["mkdir -p \"$SCRATCH/dd/sub\" && touch \"$SCRATCH/dd/a\" \"$SCRATCH/dd/sub/b\""], probe=[STAT], test=True)
sc("file.directory clean exclude", """
{{ d }}/dd:
  file.directory:
    - clean: True
    - exclude_pat: 'E@^a'
""", setup=["mkdir -p \"$SCRATCH/dd/sub\" && touch \"$SCRATCH/dd/a\" \"$SCRATCH/dd/b\""], probe=[STAT])
sc("file.directory recurse", """
{{ d }}/dd:
  file.directory:
    - user: brth7u1
    - group: brth7g1
    - file_mode: 640
    - dir_mode: 750
    - recurse:
      - user
      - group
      - mode
""", setup=CLEAN_IDS + [MK_USER1, MK_GROUPS,
                        "mkdir -p \"$SCRATCH/dd/sub\" && touch \"$SCRATCH/dd/a\" \"$SCRATCH/dd/sub/b\""],
   probe=[STAT], teardown=CLEAN_IDS)
sc("file.directory recurse test", """
{{ d }}/dd:
  file.directory:
    - user: brth7u1
    - recurse:
      - user
""", setup=CLEAN_IDS + [MK_USER1, "mkdir -p \"$SCRATCH/dd/sub\" && touch \"$SCRATCH/dd/a\""],
   probe=[STAT], teardown=CLEAN_IDS, test=True)
sc("file.directory exists as file", """
{{ d }}/dd:
  file.directory: []
""", setup=["touch \"$SCRATCH/dd\""], probe=[STAT])
sc("file.directory no makedirs", """
{{ d }}/p/q:
  file.directory: []
""", probe=[STAT])
sc("file.directory makedirs", """
{{ d }}/p/q:
  file.directory:
    - makedirs: True
""", probe=[STAT])

variants("file.symlink", """
{{ d }}/ln:
  file.symlink:
    - target: {{ d }}/tgt
""", setup=["touch \"$SCRATCH/tgt\""], probe=[STAT, "readlink \"$SCRATCH/ln\""])
sc("file.symlink change target", """
{{ d }}/ln:
  file.symlink:
    - target: {{ d }}/tgt2
""", setup=["touch \"$SCRATCH/tgt\" && ln -s \"$SCRATCH/tgt\" \"$SCRATCH/ln\""], probe=[STAT, "readlink \"$SCRATCH/ln\""])
sc("file.symlink over file no force", """
{{ d }}/ln:
  file.symlink:
    - target: {{ d }}/tgt
""", setup=["touch \"$SCRATCH/tgt\" \"$SCRATCH/ln\""], probe=[STAT])
sc("file.symlink over file force", """
{{ d }}/ln:
  file.symlink:
    - target: {{ d }}/tgt
    - force: True
""", setup=["touch \"$SCRATCH/tgt\" \"$SCRATCH/ln\""], probe=[STAT])
sc("file.symlink over file backupname", """
{{ d }}/ln:
  file.symlink:
    - target: {{ d }}/tgt
    - backupname: {{ d }}/ln.bak
""", setup=["touch \"$SCRATCH/tgt\" \"$SCRATCH/ln\""], probe=[STAT])
sc("file.symlink makedirs", """
{{ d }}/m/n/ln:
  file.symlink:
    - target: /etc/hostname
    - makedirs: True
""", probe=[STAT])
sc("file.symlink missing parent", """
{{ d }}/m/n/ln:
  file.symlink:
    - target: /etc/hostname
""", probe=[STAT])
sc("file.symlink user", """
{{ d }}/ln:
  file.symlink:
    - target: /etc/hostname
    - user: brth7u1
    - group: brth7u1
""", setup=CLEAN_IDS + [MK_USER1], probe=["stat -c '%U %G' \"$SCRATCH/ln\""], teardown=CLEAN_IDS)

variants("file.absent file", """
{{ d }}/gone:
  file.absent: []
""", setup=["touch \"$SCRATCH/gone\""], probe=[STAT])
sc("file.absent dir", """
{{ d }}/gone:
  file.absent: []
""", setup=["mkdir -p \"$SCRATCH/gone/x\""], probe=[STAT])
sc("file.absent dir test", """
{{ d }}/gone:
  file.absent: []
""", setup=["mkdir -p \"$SCRATCH/gone/x\""], probe=[STAT], test=True)
sc("file.absent symlink", """
{{ d }}/gone:
  file.absent: []
""", setup=["ln -s /nonexistent \"$SCRATCH/gone\""], probe=[STAT])
sc("file.absent relative", """
relative/path:
  file.absent: []
""")
sc("file.absent root", """
/:
  file.absent: []
""", test=True)

LINES = "printf 'alpha\\nbeta\\ngamma\\n' > \"$SCRATCH/f.txt\""
variants("file.line ensure after", """
{{ d }}/f.txt:
  file.line:
    - content: inserted
    - mode: ensure
    - after: beta
""", setup=[LINES], probe=[CAT])
sc("file.line replace", """
{{ d }}/f.txt:
  file.line:
    - content: BETA
    - match: ^beta
    - mode: replace
""", setup=[LINES], probe=[CAT])
sc("file.line delete", """
{{ d }}/f.txt:
  file.line:
    - match: gamma
    - mode: delete
""", setup=[LINES], probe=[CAT])
sc("file.line insert location start", """
{{ d }}/f.txt:
  file.line:
    - content: first
    - mode: insert
    - location: start
""", setup=[LINES], probe=[CAT])
sc("file.line insert before", """
{{ d }}/f.txt:
  file.line:
    - content: before-gamma
    - mode: insert
    - before: gamma
""", setup=[LINES], probe=[CAT])
sc("file.line missing file", """
{{ d }}/nofile.txt:
  file.line:
    - content: x
    - mode: ensure
    - after: beta
""", probe=[STAT])
sc("file.line create", """
{{ d }}/new.txt:
  file.line:
    - content: x
    - mode: insert
    - location: end
    - create: True
""", probe=[CAT])
sc("file.line no mode", """
{{ d }}/f.txt:
  file.line:
    - content: x
""", setup=[LINES], probe=[CAT])
sc("file.line backup", """
{{ d }}/f.txt:
  file.line:
    - content: BETA
    - match: ^beta
    - mode: replace
    - backup: .orig
""", setup=[LINES], probe=[STAT + " | sed 's/[0-9-]\\{19\\}/TS/'"])

variants("file.replace", """
{{ d }}/f.txt:
  file.replace:
    - pattern: ^beta$
    - repl: BETA
""", setup=[LINES], probe=[CAT])
sc("file.replace append_if_not_found", """
{{ d }}/f.txt:
  file.replace:
    - pattern: ^delta=.*
    - repl: delta=1
    - append_if_not_found: True
""", setup=[LINES], probe=[CAT])
sc("file.replace prepend_if_not_found", """
{{ d }}/f.txt:
  file.replace:
    - pattern: ^delta=.*
    - repl: delta=1
    - prepend_if_not_found: True
""", setup=[LINES], probe=[CAT])
sc("file.replace not_found_content", """
{{ d }}/f.txt:
  file.replace:
    - pattern: ^delta=.*
    - repl: delta=1
    - append_if_not_found: True
    - not_found_content: delta=2
""", setup=[LINES], probe=[CAT])
sc("file.replace missing", """
{{ d }}/none.txt:
  file.replace:
    - pattern: a
    - repl: b
""")
sc("file.replace ignore_if_missing", """
{{ d }}/none.txt:
  file.replace:
    - pattern: a
    - repl: b
    - ignore_if_missing: True
""")
sc("file.replace count backref", """
{{ d }}/f.txt:
  file.replace:
    - pattern: '(a)'
    - repl: '<\\1>'
    - count: 2
""", setup=[LINES], probe=[CAT])
sc("file.replace backup false", """
{{ d }}/f.txt:
  file.replace:
    - pattern: alpha
    - repl: ALPHA
    - backup: False
""", setup=[LINES], probe=[STAT])

BLOCK = "printf 'head\\n# START\\nold\\n# END\\ntail\\n' > \"$SCRATCH/b.txt\""
variants("file.blockreplace", """
{{ d }}/b.txt:
  file.blockreplace:
    - marker_start: '# START'
    - marker_end: '# END'
    - content: |
        new1
        new2
""", setup=[BLOCK], probe=[CAT])
sc("file.blockreplace append missing markers", """
{{ d }}/f.txt:
  file.blockreplace:
    - marker_start: '# START'
    - marker_end: '# END'
    - content: inner
    - append_if_not_found: True
""", setup=[LINES], probe=[CAT])
sc("file.blockreplace prepend missing markers", """
{{ d }}/f.txt:
  file.blockreplace:
    - marker_start: '# START'
    - marker_end: '# END'
    - content: inner
    - prepend_if_not_found: True
""", setup=[LINES], probe=[CAT])
sc("file.blockreplace markers missing", """
{{ d }}/f.txt:
  file.blockreplace:
    - marker_start: '# START'
    - marker_end: '# END'
    - content: inner
""", setup=[LINES], probe=[CAT])
sc("file.blockreplace accumulator", """
acc1:
  file.accumulated:
    - filename: {{ d }}/b.txt
    - text: from-acc
    - require_in:
      - file: {{ d }}/b.txt
{{ d }}/b.txt:
  file.blockreplace:
    - marker_start: '# START'
    - marker_end: '# END'
    - content: base
""", setup=[BLOCK], probe=[CAT])
sc("file.blockreplace missing file", """
{{ d }}/none.txt:
  file.blockreplace:
    - content: x
""")

variants("file.append", """
{{ d }}/f.txt:
  file.append:
    - text:
      - delta
      - beta
""", setup=[LINES], probe=[CAT])
sc("file.append new file", """
{{ d }}/new.txt:
  file.append:
    - text: hello
""", probe=[CAT])
sc("file.append makedirs", """
{{ d }}/n/new.txt:
  file.append:
    - text: hello
    - makedirs: True
""", probe=[CAT])
sc("file.prepend", """
{{ d }}/f.txt:
  file.prepend:
    - text:
      - zero
      - alpha
""", setup=[LINES], probe=[CAT])
sc("file.append source", """
{{ d }}/f.txt:
  file.append:
    - source: salt://files/b.conf
""", setup=[LINES], probe=[CAT])

variants("file.comment", """
{{ d }}/f.txt:
  file.comment:
    - regex: ^beta
""", setup=[LINES], probe=[CAT])
sc("file.comment not found", """
{{ d }}/f.txt:
  file.comment:
    - regex: ^nope
""", setup=[LINES], probe=[CAT])
sc("file.comment char", """
{{ d }}/f.txt:
  file.comment:
    - regex: ^(alpha|gamma)
    - char: '//'
""", setup=[LINES], probe=[CAT])
variants("file.uncomment", """
{{ d }}/f.txt:
  file.uncomment:
    - regex: beta
""", setup=["printf 'alpha\\n# beta\\ngamma\\n' > \"$SCRATCH/f.txt\""], probe=[CAT])

variants("file.copy", """
{{ d }}/dst.txt:
  file.copy:
    - source: {{ d }}/f.txt
""", setup=[LINES], probe=FILE_PROBE)
sc("file.copy exists no force", """
{{ d }}/dst.txt:
  file.copy:
    - source: {{ d }}/f.txt
""", setup=[LINES, "echo other > \"$SCRATCH/dst.txt\""], probe=FILE_PROBE)
sc("file.copy force", """
{{ d }}/dst.txt:
  file.copy:
    - source: {{ d }}/f.txt
    - force: True
""", setup=[LINES, "echo other > \"$SCRATCH/dst.txt\""], probe=FILE_PROBE)
sc("file.copy missing source", """
{{ d }}/dst.txt:
  file.copy:
    - source: {{ d }}/none.txt
""", probe=FILE_PROBE)
sc("file.copy dir", """
{{ d }}/dst:
  file.copy:
    - source: {{ d }}/srcdir
""", setup=["mkdir -p \"$SCRATCH/srcdir/s\" && echo a > \"$SCRATCH/srcdir/s/a\""], probe=FILE_PROBE)
sc("file.copy user mode", """
{{ d }}/dst.txt:
  file.copy:
    - source: {{ d }}/f.txt
    - user: brth7u1
    - mode: 600
""", setup=CLEAN_IDS + [MK_USER1, LINES], probe=FILE_PROBE, teardown=CLEAN_IDS)
sc("file.copy makedirs", """
{{ d }}/q/dst.txt:
  file.copy:
    - source: {{ d }}/f.txt
    - makedirs: True
""", setup=[LINES], probe=FILE_PROBE)

variants("file.rename", """
{{ d }}/renamed.txt:
  file.rename:
    - source: {{ d }}/f.txt
""", setup=[LINES], probe=[STAT])
sc("file.rename missing source", """
{{ d }}/renamed.txt:
  file.rename:
    - source: {{ d }}/none.txt
""", probe=[STAT])
sc("file.rename exists no force", """
{{ d }}/renamed.txt:
  file.rename:
    - source: {{ d }}/f.txt
""", setup=[LINES, "touch \"$SCRATCH/renamed.txt\""], probe=[STAT])
sc("file.rename force", """
{{ d }}/renamed.txt:
  file.rename:
    - source: {{ d }}/f.txt
    - force: True
""", setup=[LINES, "touch \"$SCRATCH/renamed.txt\""], probe=[STAT])
sc("file.rename makedirs missing", """
{{ d }}/z/renamed.txt:
  file.rename:
    - source: {{ d }}/f.txt
""", setup=[LINES], probe=[STAT])

variants("file.touch", """
{{ d }}/touched:
  file.touch: []
""", probe=[STAT])
sc("file.touch existing", """
{{ d }}/touched:
  file.touch:
    - atime: 1000000000
    - mtime: 1000000000
""", setup=["touch \"$SCRATCH/touched\""], probe=[STAT, "stat -c '%X %Y' \"$SCRATCH/touched\""])
sc("file.touch makedirs", """
{{ d }}/t1/t2/touched:
  file.touch:
    - makedirs: True
""", probe=[STAT])
sc("file.touch missing dir", """
{{ d }}/t1/t2/touched:
  file.touch: []
""", probe=[STAT])

KV = "printf 'a=1\\nb = 2\\n#c=3\\n' > \"$SCRATCH/kv.conf\""
variants("file.keyvalue", """
{{ d }}/kv.conf:
  file.keyvalue:
    - key_values:
        a: '10'
        d: '4'
    - separator: '='
    - append_if_not_found: True
""", setup=[KV], probe=[CAT])
sc("file.keyvalue uncomment", """
{{ d }}/kv.conf:
  file.keyvalue:
    - key: c
    - value: 30
    - uncomment: '#'
""", setup=[KV], probe=[CAT])
sc("file.keyvalue no append", """
{{ d }}/kv.conf:
  file.keyvalue:
    - key: z
    - value: 9
""", setup=[KV], probe=[CAT])
sc("file.keyvalue key_ignore_case", """
{{ d }}/kv.conf:
  file.keyvalue:
    - key: A
    - value: 11
    - key_ignore_case: True
""", setup=[KV], probe=[CAT])
sc("file.keyvalue missing file", """
{{ d }}/none.conf:
  file.keyvalue:
    - key: a
    - value: 1
""")
sc("file.keyvalue count", """
{{ d }}/kv.conf:
  file.keyvalue:
    - key: a
    - value: 5
    - count: 2
""", setup=["printf 'a=1\\na=2\\na=3\\n' > \"$SCRATCH/kv.conf\""], probe=[CAT])

# ---------------------------------------------------------------- system

SYSCTL = "net.ipv4.ip_forward"
sc("sysctl.present current", """
%s:
  sysctl.present:
    - value: {{ salt['cmd.run']('sysctl -n %s') }}
    - config: {{ d }}/sysctl.conf
""" % (SYSCTL, SYSCTL), probe=[CAT])
sc("sysctl.present current test", """
%s:
  sysctl.present:
    - value: {{ salt['cmd.run']('sysctl -n %s') }}
    - config: {{ d }}/sysctl.conf
""" % (SYSCTL, SYSCTL), probe=[CAT], test=True)
sc("sysctl.present in config", """
%s:
  sysctl.present:
    - value: {{ salt['cmd.run']('sysctl -n %s') }}
    - config: {{ d }}/sysctl.conf
""" % (SYSCTL, SYSCTL), setup=["echo \"%s = $(sysctl -n %s)\" > \"$SCRATCH/sysctl.conf\"" % (SYSCTL, SYSCTL)], probe=[CAT])
sc("sysctl.present unknown key", """
net.brth7.nokey:
  sysctl.present:
    - value: 1
    - config: {{ d }}/sysctl.conf
""", probe=[CAT])
sc("sysctl.present unknown key test", """
net.brth7.nokey:
  sysctl.present:
    - value: 1
    - config: {{ d }}/sysctl.conf
""", probe=[CAT], test=True)

HOSTS_PROBE = ["grep -n 'brth7\\|^127\\.0\\.7\\.' /etc/hosts || true"]
HOSTS = dict(setup=[HOSTS_CLEAN], probe=HOSTS_PROBE, teardown=[HOSTS_CLEAN])
variants("host.present", """
brth7a.example:
  host.present:
    - ip: 127.0.7.1
""", **HOSTS)
sc("host.present names list ips", """
brth7b:
  host.present:
    - ip:
      - 127.0.7.2
      - 127.0.7.3
    - names:
      - brth7b.example
      - brth7c.example
""", **HOSTS)
sc("host.present clean", """
brth7a.example:
  host.present:
    - ip: 127.0.7.4
    - clean: True
""", setup=[HOSTS_CLEAN, "echo '127.0.7.1 brth7a.example' >> /etc/hosts"], probe=HOSTS_PROBE, teardown=[HOSTS_CLEAN])
sc("host.present existing other ip", """
brth7a.example:
  host.present:
    - ip: 127.0.7.4
""", setup=[HOSTS_CLEAN, "echo '127.0.7.1 brth7a.example' >> /etc/hosts"], probe=HOSTS_PROBE, teardown=[HOSTS_CLEAN])
sc("host.present comment", """
brth7a.example:
  host.present:
    - ip: 127.0.7.5
    - comment: brth7 note
""", **HOSTS)
sc("host.absent", """
brth7a.example:
  host.absent:
    - ip: 127.0.7.1
""", setup=[HOSTS_CLEAN, "echo '127.0.7.1 brth7a.example brth7z.example' >> /etc/hosts"], probe=HOSTS_PROBE, teardown=[HOSTS_CLEAN])
sc("host.absent missing", """
brth7a.example:
  host.absent:
    - ip: 127.0.7.1
""", **HOSTS)
sc("host.absent test", """
brth7a.example:
  host.absent:
    - ip: 127.0.7.1
""", setup=[HOSTS_CLEAN, "echo '127.0.7.1 brth7a.example' >> /etc/hosts"], probe=HOSTS_PROBE, teardown=[HOSTS_CLEAN], test=True)
sc("host.only", """
127.0.7.6:
  host.only:
    - hostnames:
      - brth7x.example
      - brth7y
""", setup=[HOSTS_CLEAN, "echo '127.0.7.6 brth7old' >> /etc/hosts"], probe=HOSTS_PROBE, teardown=[HOSTS_CLEAN])
sc("host.only new", """
127.0.7.6:
  host.only:
    - hostnames: brth7x.example
""", **HOSTS)
sc("host.only same", """
127.0.7.6:
  host.only:
    - hostnames: [brth7x.example, brth7y]
""", setup=[HOSTS_CLEAN, "echo '127.0.7.6 brth7x.example brth7y' >> /etc/hosts"], probe=HOSTS_PROBE, teardown=[HOSTS_CLEAN])
sc("host.only empty", """
127.0.7.6:
  host.only:
    - hostnames: []
""", setup=[HOSTS_CLEAN, "echo '127.0.7.6 brth7x.example' >> /etc/hosts"], probe=HOSTS_PROBE, teardown=[HOSTS_CLEAN])

CRON_USER = [RM_USERS, RM_GROUPS, MK_USER1]
CRON_TD = ["crontab -r -u brth7u1 >/dev/null 2>&1 || true", RM_USERS, RM_GROUPS]
CRON_PROBE = ["crontab -l -u brth7u1"]
CRON = dict(setup=CRON_USER, probe=CRON_PROBE, teardown=CRON_TD)
variants("cron.present", """
/bin/true brth7:
  cron.present:
    - user: brth7u1
    - minute: '*/5'
""", **CRON)
sc("cron.present identifier change", """
/bin/true brth7 v2:
  cron.present:
    - user: brth7u1
    - identifier: job1
    - hour: 2
""", setup=CRON_USER + ["printf '# Lines below here are managed by Salt, do not edit\\n# SALT_CRON_IDENTIFIER:job1\\n* 1 * * * /bin/true brth7 v1\\n' | crontab -u brth7u1 -"],
   probe=CRON_PROBE, teardown=CRON_TD)
sc("cron.present special", """
/bin/true brth7:
  cron.present:
    - user: brth7u1
    - special: '@daily'
""", **CRON)
sc("cron.present comment commented", """
/bin/true brth7:
  cron.present:
    - user: brth7u1
    - minute: 1
    - comment: hello there
    - commented: True
""", **CRON)
sc("cron.present random minute", """
/bin/true brth7:
  cron.present:
    - user: brth7u1
    - minute: random
    - hour: 3
""", setup=CRON_USER + ["printf '# Lines below here are managed by Salt, do not edit\\n7 3 * * * /bin/true brth7\\n' | crontab -u brth7u1 -"],
   probe=CRON_PROBE, teardown=CRON_TD)
sc("cron.present missing user", """
/bin/true brth7:
  cron.present:
    - user: brth7nouser
""")
sc("cron.absent", """
/bin/true brth7:
  cron.absent:
    - user: brth7u1
""", setup=CRON_USER + ["printf '# Lines below here are managed by Salt, do not edit\\n* * * * * /bin/true brth7\\n' | crontab -u brth7u1 -"],
   probe=CRON_PROBE, teardown=CRON_TD)
sc("cron.absent missing", """
/bin/true brth7:
  cron.absent:
    - user: brth7u1
""", **CRON)
sc("cron.absent identifier", """
whatever:
  cron.absent:
    - user: brth7u1
    - identifier: job1
""", setup=CRON_USER + ["printf '# Lines below here are managed by Salt, do not edit\\n# SALT_CRON_IDENTIFIER:job1\\n* 1 * * * /bin/true brth7 v1\\n' | crontab -u brth7u1 -"],
   probe=CRON_PROBE, teardown=CRON_TD)
variants("cron.env_present", """
MAILTO:
  cron.env_present:
    - user: brth7u1
    - value: brth7@example.test
""", **CRON)
sc("cron.env_present change", """
MAILTO:
  cron.env_present:
    - user: brth7u1
    - value: new@example.test
""", setup=CRON_USER + ["printf '# Lines below here are managed by Salt, do not edit\\nMAILTO=old@example.test\\n' | crontab -u brth7u1 -"],
   probe=CRON_PROBE, teardown=CRON_TD)
sc("cron.env_absent", """
MAILTO:
  cron.env_absent:
    - user: brth7u1
""", setup=CRON_USER + ["printf '# Lines below here are managed by Salt, do not edit\\nMAILTO=old@example.test\\n' | crontab -u brth7u1 -"],
   probe=CRON_PROBE, teardown=CRON_TD)

KEY1 = "AAAAC3NzaC1lZDI1NTE5AAAAIHh7h7h7h7h7h7h7h7h7h7h7h7h7h7h7h7h7h7h7h7h7"
KEY2 = "AAAAC3NzaC1lZDI1NTE5AAAAIJh7h7h7h7h7h7h7h7h7h7h7h7h7h7h7h7h7h7h7h7h7"
AUTH_PROBE = ["cat /home/brth7u1/.ssh/authorized_keys; stat -c '%U %G %a' /home/brth7u1/.ssh /home/brth7u1/.ssh/authorized_keys"]
AUTH = dict(setup=CRON_USER, probe=AUTH_PROBE, teardown=[RM_USERS, RM_GROUPS])
variants("ssh_auth.present", """
%s:
  ssh_auth.present:
    - user: brth7u1
    - enc: ssh-ed25519
    - comment: brth7@host
""" % KEY1, **AUTH)
sc("ssh_auth.present full line", """
brth7key:
  ssh_auth.present:
    - user: brth7u1
    - names:
      - ssh-ed25519 %s one@h
      - ssh-ed25519 %s two@h
""" % (KEY1, KEY2), **AUTH)
sc("ssh_auth.present options", """
%s:
  ssh_auth.present:
    - user: brth7u1
    - enc: ssh-ed25519
    - options:
      - no-pty
      - command="/bin/true"
""" % KEY1, **AUTH)
sc("ssh_auth.present change comment", """
%s:
  ssh_auth.present:
    - user: brth7u1
    - enc: ssh-ed25519
    - comment: new@host
""" % KEY1, setup=CRON_USER + ["mkdir -p -m 700 /home/brth7u1/.ssh && echo 'ssh-ed25519 %s old@host' > /home/brth7u1/.ssh/authorized_keys && chown -R brth7u1:brth7u1 /home/brth7u1/.ssh" % KEY1],
   probe=AUTH_PROBE, teardown=[RM_USERS, RM_GROUPS])
sc("ssh_auth.absent", """
%s:
  ssh_auth.absent:
    - user: brth7u1
""" % KEY1, setup=CRON_USER + ["mkdir -p -m 700 /home/brth7u1/.ssh && printf 'ssh-ed25519 %s old@host\\nssh-ed25519 %s two@h\\n' > /home/brth7u1/.ssh/authorized_keys && chown -R brth7u1:brth7u1 /home/brth7u1/.ssh" % (KEY1, KEY2)],
   probe=AUTH_PROBE, teardown=[RM_USERS, RM_GROUPS])
sc("ssh_auth.absent missing", """
%s:
  ssh_auth.absent:
    - user: brth7u1
""" % KEY1, **AUTH)
sc("ssh_auth.present missing user", """
%s:
  ssh_auth.present:
    - user: brth7nouser
    - enc: ssh-ed25519
""" % KEY1)
sc("ssh_auth.present bad key", """
notakey:
  ssh_auth.present:
    - user: brth7u1
""", **AUTH)

KH_PROBE = ["cat \"$SCRATCH/known_hosts\" 2>/dev/null | cut -d' ' -f1,2 | sed 's/|1|[^ ]*/HASHED/'"]
sc("ssh_known_hosts.present", """
brth7.example:
  ssh_known_hosts.present:
    - user: root
    - config: {{ d }}/known_hosts
    - enc: ssh-ed25519
    - key: %s
    - hash_known_hosts: False
""" % KEY1, probe=KH_PROBE)
sc("ssh_known_hosts.present again", """
brth7.example:
  ssh_known_hosts.present:
    - user: root
    - config: {{ d }}/known_hosts
    - enc: ssh-ed25519
    - key: %s
    - hash_known_hosts: False
""" % KEY1, setup=["echo 'brth7.example ssh-ed25519 %s' > \"$SCRATCH/known_hosts\"" % KEY1], probe=KH_PROBE)
sc("ssh_known_hosts.present change", """
brth7.example:
  ssh_known_hosts.present:
    - user: root
    - config: {{ d }}/known_hosts
    - enc: ssh-ed25519
    - key: %s
    - hash_known_hosts: False
""" % KEY2, setup=["echo 'brth7.example ssh-ed25519 %s' > \"$SCRATCH/known_hosts\"" % KEY1], probe=KH_PROBE)
sc("ssh_known_hosts.present test", """
brth7.example:
  ssh_known_hosts.present:
    - user: root
    - config: {{ d }}/known_hosts
    - enc: ssh-ed25519
    - key: %s
""" % KEY1, probe=KH_PROBE, test=True)
sc("ssh_known_hosts.absent", """
brth7.example:
  ssh_known_hosts.absent:
    - user: root
    - config: {{ d }}/known_hosts
""", setup=["echo 'brth7.example ssh-ed25519 %s' > \"$SCRATCH/known_hosts\"" % KEY1], probe=KH_PROBE)
sc("ssh_known_hosts.present no key", """
brth7.example:
  ssh_known_hosts.present:
    - user: root
    - config: {{ d }}/known_hosts
""", probe=KH_PROBE)

USER_PROBE = ["getent passwd brth7u1 brth7u2 | cut -d: -f1,3,4,5,6,7", "id -nG brth7u1 2>&1; true",
              "getent shadow brth7u1 | cut -d: -f1,2", "ls -d /home/brth7u1 2>&1; true"]
USERS = dict(setup=CLEAN_IDS + [MK_GROUPS], probe=USER_PROBE, teardown=CLEAN_IDS)
variants("user.present basic", """
brth7u1:
  user.present:
    - uid: 47701
    - shell: /bin/bash
    - home: /home/brth7u1
""", **USERS)
sc("user.present groups optional", """
brth7u1:
  user.present:
    - uid: 47701
    - groups: [brth7g1]
    - optional_groups: [brth7g2, brth7nogroup]
""", **USERS)
sc("user.present missing group", """
brth7u1:
  user.present:
    - groups: [brth7nogroup]
""", **USERS)
sc("user.present password hash", """
brth7u1:
  user.present:
    - uid: 47701
    - password: '$6$salt$abcdefghijklmnopqrstuvwxyz'
""", **USERS)
sc("user.present createhome false", """
brth7u1:
  user.present:
    - uid: 47701
    - createhome: False
""", **USERS)
sc("user.present system", """
brth7u1:
  user.present:
    - system: True
    - createhome: False
""", setup=CLEAN_IDS, probe=["getent passwd brth7u1 | awk -F: '{print ($3<1000)}'", "getent group brth7u1 | awk -F: '{print ($3<1000)}'"],
   teardown=CLEAN_IDS)
sc("user.present gid name", """
brth7u1:
  user.present:
    - uid: 47701
    - gid: brth7g1
    - usergroup: False
""", **USERS)
sc("user.present change home move", """
brth7u1:
  user.present:
    - home: /home/brth7u1new
""", setup=CLEAN_IDS + [MK_GROUPS, MK_USER1], probe=USER_PROBE + ["ls -d /home/brth7u1new 2>&1; true"],
   teardown=CLEAN_IDS + ["rm -rf /home/brth7u1new"])
sc("user.present change uid remove_groups false", """
brth7u1:
  user.present:
    - uid: 47702
    - groups: [brth7g2]
    - remove_groups: False
""", setup=CLEAN_IDS + [MK_GROUPS, MK_USER1, "usermod -aG brth7g1 brth7u1"], probe=USER_PROBE, teardown=CLEAN_IDS)
sc("user.present change test", """
brth7u1:
  user.present:
    - shell: /bin/bash
    - fullname: BRT H7
    - groups: [brth7g1]
""", setup=CLEAN_IDS + [MK_GROUPS, MK_USER1], probe=USER_PROBE, teardown=CLEAN_IDS, test=True)
sc("user.present gecos", """
brth7u1:
  user.present:
    - fullname: Full Name
    - roomnumber: '42'
    - workphone: '555'
    - homephone: '777'
    - other: misc
""", **USERS)
sc("user.present empty password", """
brth7u1:
  user.present:
    - password: ''
    - empty_password: True
""", **USERS)
sc("user.present expire", """
brth7u1:
  user.present:
    - createhome: False
    - expire: 20000
    - mindays: 1
    - maxdays: 90
    - warndays: 7
""", setup=CLEAN_IDS + [MK_GROUPS], probe=USER_PROBE + ["getent shadow brth7u1 | cut -d: -f3- | sed 's/^[0-9]*:/X:/'"], teardown=CLEAN_IDS)
sc("user.absent", """
brth7u1:
  user.absent:
    - purge: True
""", setup=CLEAN_IDS + [MK_USER1], probe=USER_PROBE, teardown=CLEAN_IDS)
sc("user.absent missing", """
brth7u1:
  user.absent: []
""", setup=CLEAN_IDS, probe=USER_PROBE, teardown=CLEAN_IDS)

GROUP_PROBE = ["getent group brth7g1 brth7g2 brth7g3"]
GROUPS = dict(setup=CLEAN_IDS, probe=GROUP_PROBE, teardown=CLEAN_IDS)
variants("group.present", """
brth7g3:
  group.present:
    - gid: 47713
""", **GROUPS)
sc("group.present members", """
brth7g3:
  group.present:
    - members: [brth7u1]
""", setup=CLEAN_IDS + [MK_USER1], probe=GROUP_PROBE, teardown=CLEAN_IDS)
sc("group.present addusers delusers", """
brth7g1:
  group.present:
    - addusers: [brth7u1]
    - delusers: [brth7u2]
""", setup=CLEAN_IDS + [MK_USER1, MK_GROUPS, "useradd -M brth7u2 && usermod -aG brth7g1 brth7u2"], probe=GROUP_PROBE, teardown=CLEAN_IDS)
sc("group.present gid change", """
brth7g1:
  group.present:
    - gid: 47719
""", setup=CLEAN_IDS + [MK_GROUPS], probe=GROUP_PROBE, teardown=CLEAN_IDS)
sc("group.present missing member", """
brth7g3:
  group.present:
    - members: [brth7nouser]
""", **GROUPS)
sc("group.present system", """
brth7g3:
  group.present:
    - system: True
""", setup=CLEAN_IDS, probe=["getent group brth7g3 | awk -F: '{print $1, ($3<1000)}'"], teardown=CLEAN_IDS)
sc("group.absent", """
brth7g1:
  group.absent: []
""", setup=CLEAN_IDS + [MK_GROUPS], probe=GROUP_PROBE, teardown=CLEAN_IDS)
sc("group.absent missing", """
brth7g1:
  group.absent: []
""", **GROUPS)
sc("group.absent test", """
brth7g1:
  group.absent: []
""", setup=CLEAN_IDS + [MK_GROUPS], probe=GROUP_PROBE, teardown=CLEAN_IDS, test=True)

sc("locale.present current", """
{{ salt['cmd.run']('locale -a | grep -i -m1 "^C.utf"') }}:
  locale.present: []
""")
sc("locale.present missing test", """
xx_XX.UTF-8:
  locale.present: []
""", test=True)
sc("timezone.system current", """
{{ salt['cmd.run']('cat /etc/timezone 2>/dev/null || echo Etc/UTC') }}:
  timezone.system: []
""")
sc("timezone.system test change", """
Europe/Berlin:
  timezone.system: []
""", test=True)
sc("timezone.system change", """
Europe/Berlin:
  timezone.system: []
""")
sc("timezone.system localtime test", """
Europe/Berlin:
  timezone.system:
    - utc: False
""", test=True)
sc("timezone.system bad", """
Nowhere/Nothing:
  timezone.system: []
""", test=True)

def need_pkg(pkg):
    """setup/teardown commands installing pkg for the scenario when it is missing."""
    mark = "\"$CONF/brth7-installed-%s\"" % pkg
    return (["dpkg-query -W -f='${db:Status-Status}' %s 2>/dev/null | grep -qx installed || "
             "{ apt-get -o DPkg::Lock::Timeout=300 -y -q install --no-install-recommends %s >/dev/null 2>&1 && touch %s; }"
             % (pkg, pkg, mark)],
            ["[ ! -e %s ] || apt-get -o DPkg::Lock::Timeout=300 -y -q purge %s >/dev/null 2>&1" % (mark, pkg)])


DC_IN, DC_OUT = need_pkg("debconf-utils")
DEBCONF_TD = ["echo PURGE | debconf-communicate brth7pkg >/dev/null 2>&1; true"]
sc("debconf.set", """
brth7pkg:
  debconf.set:
    - data:
        brth7pkg/question: {type: string, value: hello}
        brth7pkg/flag: {type: boolean, value: true}
""", setup=DC_IN + DEBCONF_TD, probe=["debconf-get-selections 2>/dev/null | grep brth7pkg | sort"], teardown=DEBCONF_TD + DC_OUT)
sc("debconf.set test", """
brth7pkg:
  debconf.set:
    - data:
        brth7pkg/question: {type: string, value: hello}
""", setup=DC_IN + DEBCONF_TD, probe=["debconf-get-selections 2>/dev/null | grep brth7pkg | sort"], teardown=DEBCONF_TD + DC_OUT, test=True)
sc("debconf.set again", """
brth7pkg:
  debconf.set:
    - data:
        brth7pkg/question: {type: string, value: hello}
""", setup=DC_IN + DEBCONF_TD, probe=["debconf-get-selections 2>/dev/null | grep brth7pkg | sort"], teardown=DEBCONF_TD + DC_OUT,
   pre=[["state.sls", "main"]])

ALT_TD = ["update-alternatives --remove-all brth7alt >/dev/null 2>&1; rm -f /usr/local/bin/brth7alt; true"]
ALT_PROBE = ["update-alternatives --query brth7alt 2>&1 | grep -v '^$'; true"]
ALT = dict(setup=ALT_TD, probe=ALT_PROBE, teardown=ALT_TD)
variants("alternatives.install", """
brth7alt:
  alternatives.install:
    - link: /usr/local/bin/brth7alt
    - path: /bin/true
    - priority: 10
""", **ALT)
sc("alternatives.install second", """
brth7alt:
  alternatives.install:
    - link: /usr/local/bin/brth7alt
    - path: /bin/false
    - priority: 5
""", setup=ALT_TD + ["update-alternatives --install /usr/local/bin/brth7alt brth7alt /bin/true 10 >/dev/null"], probe=ALT_PROBE, teardown=ALT_TD)
sc("alternatives.set", """
brth7alt:
  alternatives.set:
    - path: /bin/false
""", setup=ALT_TD + ["update-alternatives --install /usr/local/bin/brth7alt brth7alt /bin/true 10 >/dev/null && update-alternatives --install /usr/local/bin/brth7alt brth7alt /bin/false 5 >/dev/null"],
   probe=ALT_PROBE, teardown=ALT_TD)
sc("alternatives.set not installed path", """
brth7alt:
  alternatives.set:
    - path: /bin/sh
""", setup=ALT_TD + ["update-alternatives --install /usr/local/bin/brth7alt brth7alt /bin/true 10 >/dev/null"],
   probe=ALT_PROBE, teardown=ALT_TD)
sc("alternatives.remove", """
brth7alt:
  alternatives.remove:
    - path: /bin/true
""", setup=ALT_TD + ["update-alternatives --install /usr/local/bin/brth7alt brth7alt /bin/true 10 >/dev/null && update-alternatives --install /usr/local/bin/brth7alt brth7alt /bin/false 5 >/dev/null"],
   probe=ALT_PROBE, teardown=ALT_TD)
sc("alternatives.remove missing", """
brth7alt:
  alternatives.remove:
    - path: /bin/true
""", **ALT)
sc("alternatives.auto", """
brth7alt:
  alternatives.auto: []
""", setup=ALT_TD + ["update-alternatives --install /usr/local/bin/brth7alt brth7alt /bin/true 10 >/dev/null && update-alternatives --install /usr/local/bin/brth7alt brth7alt /bin/false 5 >/dev/null && update-alternatives --set brth7alt /bin/false >/dev/null"],
   probe=ALT_PROBE, teardown=ALT_TD)

REPO_TD = ["rm -f /etc/apt/sources.list.d/brth7*.list; true"]
REPO_PROBE = ["cat /etc/apt/sources.list.d/brth7*.list 2>&1; true"]
REPO = dict(setup=REPO_TD + ["mkdir -p \"$SCRATCH/repo\""], probe=REPO_PROBE, teardown=REPO_TD)
sc("pkgrepo.managed file test", """
brth7repo:
  pkgrepo.managed:
    - name: deb [trusted=yes] file:{{ d }}/repo ./
    - file: /etc/apt/sources.list.d/brth7.list
    - refresh: False
""", test=True, **REPO)
sc("pkgrepo.managed file", """
brth7repo:
  pkgrepo.managed:
    - name: deb [trusted=yes] file:{{ d }}/repo ./
    - file: /etc/apt/sources.list.d/brth7.list
    - refresh: False
""", **REPO)
sc("pkgrepo.absent", """
deb [trusted=yes] file:{{ d }}/repo ./:
  pkgrepo.absent: []
""", setup=REPO_TD + ["mkdir -p \"$SCRATCH/repo\" && echo \"deb [trusted=yes] file:$SCRATCH/repo ./\" > /etc/apt/sources.list.d/brth7.list"],
   probe=REPO_PROBE, teardown=REPO_TD)
sc("pkgrepo.absent plain", """
deb file:{{ d }}/repo ./:
  pkgrepo.absent: []
""", setup=REPO_TD + ["mkdir -p \"$SCRATCH/repo\" && echo \"deb file:$SCRATCH/repo ./\" > /etc/apt/sources.list.d/brth7.list"],
   probe=REPO_PROBE, teardown=REPO_TD)
sc("pkgrepo.managed plain again", """
deb file:{{ d }}/repo ./:
  pkgrepo.managed:
    - file: /etc/apt/sources.list.d/brth7.list
    - refresh: False
""", setup=REPO_TD + ["mkdir -p \"$SCRATCH/repo\" && echo \"deb file:$SCRATCH/repo ./\" > /etc/apt/sources.list.d/brth7.list"],
   probe=REPO_PROBE, teardown=REPO_TD)
sc("pkgrepo.managed disabled", """
deb file:{{ d }}/repo ./:
  pkgrepo.managed:
    - file: /etc/apt/sources.list.d/brth7.list
    - disabled: True
    - refresh: False
""", setup=REPO_TD + ["mkdir -p \"$SCRATCH/repo\" && echo \"deb file:$SCRATCH/repo ./\" > /etc/apt/sources.list.d/brth7.list"],
   probe=REPO_PROBE, teardown=REPO_TD)
sc("pkgrepo.absent missing", """
deb [trusted=yes] file:{{ d }}/repo ./:
  pkgrepo.absent: []
""", **REPO)
variants("pkgrepo.managed trusted signed-by", """
deb [trusted=yes] file:{{ d }}/repo ./:
  pkgrepo.managed:
    - file: /etc/apt/sources.list.d/brth7.list
    - refresh: False
deb [signed-by=/usr/share/keyrings/brth7.gpg arch=amd64] file:{{ d }}/repo bookworm main:
  pkgrepo.managed:
    - file: /etc/apt/sources.list.d/brth7.list
    - comments: [brth7 note]
    - refresh: False
""", **REPO)

PKG = "sl"
PKG_SETUP = ["apt-mark unhold %s >/dev/null 2>&1; apt-get -o DPkg::Lock::Timeout=300 -y -q purge %s >/dev/null 2>&1; true" % (PKG, PKG)]
PKG_PROBE = ["dpkg-query -W -f='${db:Status-Abbrev} ${Package}\\n' %s 2>&1; apt-mark showhold %s" % (PKG, PKG)]
PKGS = dict(setup=PKG_SETUP, probe=PKG_PROBE, teardown=PKG_SETUP, timeout=400)
sc("pkg.installed hold", """
%s:
  pkg.installed:
    - hold: True
""" % PKG, **PKGS)
sc("pkg.installed hold test", """
%s:
  pkg.installed:
    - hold: True
""" % PKG, test=True, **PKGS)
sc("pkg.installed hold already", """
%s:
  pkg.installed:
    - hold: True
""" % PKG, setup=PKG_SETUP + ["apt-get -o DPkg::Lock::Timeout=300 -y -q install %s >/dev/null 2>&1" % PKG],
   probe=PKG_PROBE, teardown=PKG_SETUP, timeout=400)
sc("pkg.installed unhold", """
%s:
  pkg.installed:
    - hold: False
""" % PKG, setup=PKG_SETUP + ["apt-get -o DPkg::Lock::Timeout=300 -y -q install %s >/dev/null 2>&1 && apt-mark hold %s >/dev/null" % (PKG, PKG)],
   probe=PKG_PROBE, teardown=PKG_SETUP, timeout=400)
sc("pkg.latest already", """
%s:
  pkg.latest:
    - refresh: False
""" % PKG, setup=PKG_SETUP + ["apt-get -o DPkg::Lock::Timeout=300 -y -q install %s >/dev/null 2>&1" % PKG],
   probe=PKG_PROBE, teardown=PKG_SETUP, timeout=400)
sc("pkg.latest fresh", """
%s:
  pkg.latest:
    - refresh: False
""" % PKG, **PKGS)
sc("pkg.latest test", """
%s:
  pkg.latest:
    - refresh: False
""" % PKG, test=True, **PKGS)
sc("pkg.latest missing pkg", """
brth7-no-such-package:
  pkg.latest:
    - refresh: False
""", timeout=400)
sc("pkg.installed missing pkg", """
brth7-no-such-package:
  pkg.installed:
    - refresh: False
""", timeout=400)
sc("pkg.held", """
%s:
  pkg.held:
    - replace: True
""" % PKG, setup=PKG_SETUP + ["apt-get -o DPkg::Lock::Timeout=300 -y -q install %s >/dev/null 2>&1" % PKG],
   probe=PKG_PROBE, teardown=PKG_SETUP, timeout=400)

GIT_SETUP = ["cd \"$SCRATCH\" && git init -q -b main src && cd src && git config user.email b@x && git config user.name b && "
             "echo one > a && git add a && GIT_AUTHOR_DATE='2020-01-01T00:00:00Z' GIT_COMMITTER_DATE='2020-01-01T00:00:00Z' git commit -q -m one && "
             "echo two > b && git add b && GIT_AUTHOR_DATE='2020-01-02T00:00:00Z' GIT_COMMITTER_DATE='2020-01-02T00:00:00Z' git commit -q -m two && git tag v1 HEAD~1"]
GIT_BRANCH = ["cd \"$SCRATCH/dst\" 2>/dev/null && git rev-parse --abbrev-ref HEAD && git rev-parse --abbrev-ref '@{upstream}' 2>&1; git branch -a 2>&1; true"]
GIT_PROBE = ["cd \"$SCRATCH/dst\" 2>/dev/null && git rev-parse HEAD && git status --porcelain && ls; true"]
sc("git.latest fresh", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
""", setup=GIT_SETUP, probe=GIT_PROBE)
sc("git.latest test", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
""", setup=GIT_SETUP, probe=GIT_PROBE, test=True)
sc("git.latest again", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
""", setup=GIT_SETUP, probe=GIT_PROBE, pre=[["state.sls", "main"]])
sc("git.latest rev tag", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
    - rev: v1
""", setup=GIT_SETUP, probe=GIT_PROBE)
sc("git.latest update", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
""", setup=GIT_SETUP + ["cd \"$SCRATCH\" && git clone -q src dst && cd dst && git reset -q --hard HEAD~1"], probe=GIT_PROBE)
sc("git.latest local changes", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
""", setup=GIT_SETUP + ["cd \"$SCRATCH\" && git clone -q src dst && cd dst && git reset -q --hard HEAD~1 && echo dirty > a"], probe=GIT_PROBE)
sc("git.latest update test", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
""", setup=GIT_SETUP + ["cd \"$SCRATCH\" && git clone -q src dst && cd dst && git reset -q --hard HEAD~1"], probe=GIT_PROBE, test=True)
sc("git.latest local changes force_reset", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
    - force_reset: True
""", setup=GIT_SETUP + ["cd \"$SCRATCH\" && git clone -q src dst && cd dst && git reset -q --hard HEAD~1 && echo dirty > a"], probe=GIT_PROBE)
sc("git.latest rev branch", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
    - rev: dev
""", setup=GIT_SETUP + ["cd \"$SCRATCH/src\" && git branch dev HEAD~1"], probe=GIT_PROBE + GIT_BRANCH)
sc("git.latest rev branch with branch", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
    - rev: dev
    - branch: dev
""", setup=GIT_SETUP + ["cd \"$SCRATCH/src\" && git branch dev HEAD~1"], probe=GIT_PROBE + GIT_BRANCH)
sc("git.latest rev sha", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
    - rev: caed703c9b665de70bcc94d028fb4324890a8eae
""", setup=GIT_SETUP, probe=GIT_PROBE + GIT_BRANCH)
sc("git.latest rev tag probe", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
    - rev: v1
""", setup=GIT_SETUP, probe=GIT_PROBE + GIT_BRANCH)
sc("git.latest new remote commit", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
""", setup=GIT_SETUP + ["cd \"$SCRATCH\" && git clone -q src dst && cd src && echo three > c && git add c && GIT_AUTHOR_DATE='2020-01-03T00:00:00Z' GIT_COMMITTER_DATE='2020-01-03T00:00:00Z' git commit -q -m three"],
   probe=GIT_PROBE + GIT_BRANCH)
sc("git.latest rewritten upstream force_reset", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
    - force_reset: True
""", setup=GIT_SETUP + ["cd \"$SCRATCH\" && git clone -q src dst && cd src && git reset -q --hard HEAD~1 && echo three > c && git add c && GIT_AUTHOR_DATE='2020-01-03T00:00:00Z' GIT_COMMITTER_DATE='2020-01-03T00:00:00Z' git commit -q -m three"],
   probe=GIT_PROBE + GIT_BRANCH)
sc("git.latest new tag upstream", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
""", setup=GIT_SETUP + ["cd \"$SCRATCH\" && git clone -q src dst && cd src && echo three > c && git add c && GIT_AUTHOR_DATE='2020-01-03T00:00:00Z' GIT_COMMITTER_DATE='2020-01-03T00:00:00Z' git commit -q -m three && git tag v3"],
   probe=GIT_PROBE + GIT_BRANCH)
sc("git.latest bad remote", """
{{ d }}/nosrc:
  git.latest:
    - target: {{ d }}/dst
""", probe=GIT_PROBE)
sc("git.latest target nonempty", """
{{ d }}/src:
  git.latest:
    - target: {{ d }}/dst
""", setup=GIT_SETUP + ["mkdir -p \"$SCRATCH/dst\" && touch \"$SCRATCH/dst/x\""], probe=GIT_PROBE)

TAR = ("mkdir -p \"$SCRATCH/build/app/sub\" && echo v1 > \"$SCRATCH/build/app/V\" && echo s > \"$SCRATCH/build/app/sub/s\" && "
       "tar -C \"$SCRATCH/build\" --owner=0 --group=0 --mtime=2020-01-01 -czf \"$SCRATCH/app.tar.gz\" app && "
       "(cd \"$SCRATCH/build\" && TZ=UTC touch -d 2020-01-01 app app/V app/sub app/sub/s && python3 -m zipfile -c ../app.zip app)")
AR_PROBE = ["cd \"$SCRATCH\" && find out 2>/dev/null | sort | xargs -r stat -c '%n %U %a'"]
sc("archive.extracted tar", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
""", setup=[TAR], probe=AR_PROBE)
sc("archive.extracted tar again", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
""", setup=[TAR], probe=AR_PROBE, pre=[["state.sls", "main"]])
sc("archive.extracted tar test", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
""", setup=[TAR], probe=AR_PROBE, test=True)
sc("archive.extracted zip", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.zip
""", setup=[TAR], probe=AR_PROBE)
sc("archive.extracted enforce_toplevel", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
    - enforce_toplevel: False
    - options: --strip-components=1
""", setup=[TAR], probe=AR_PROBE)
sc("archive.extracted strip again", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
    - enforce_toplevel: False
    - options: --strip-components=1
""", setup=[TAR], probe=AR_PROBE, pre=[["state.sls", "main"]])
sc("archive.extracted strip test", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
    - enforce_toplevel: False
    - options: --strip 1
""", setup=[TAR], probe=AR_PROBE, test=True)
TXZ = "cd \"$SCRATCH/build\" && tar --owner=0 --group=0 --mtime=2020-01-01 -cJf ../app.tar.xz app"
sc("archive.extracted xz options", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.xz
    - options: J
    - trim_output: 2
""", setup=[TAR, TXZ], probe=AR_PROBE)
sc("archive.extracted xz native", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.xz
    - trim_output: True
""", setup=[TAR, TXZ], probe=AR_PROBE)
sc("archive.extracted tar options fail", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
    - options: --no-such-option
""", setup=[TAR], probe=AR_PROBE)
sc("archive.extracted zip options", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.zip
    - options: -o
    - trim_output: 2
""", setup=[TAR], probe=AR_PROBE)
sc("archive.extracted zip use_cmd_unzip false", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.zip
    - options: -o
    - use_cmd_unzip: False
""", setup=[TAR], probe=AR_PROBE)
sc("archive.extracted password tar", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
    - password: x
""", setup=[TAR], probe=AR_PROBE)
sc("archive.extracted overwrite", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
    - overwrite: True
""", setup=[TAR], probe=AR_PROBE, pre=[["state.sls", "main"]])
sc("archive.extracted clean", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
    - clean: True
""", setup=[TAR, "mkdir -p \"$SCRATCH/out/app\" && echo x > \"$SCRATCH/out/app/extra\""], probe=AR_PROBE)
sc("archive.extracted clean_parent", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
    - clean_parent: True
""", setup=[TAR, "mkdir -p \"$SCRATCH/out/app\" && echo x > \"$SCRATCH/out/other\""], probe=AR_PROBE)
sc("archive.extracted if_missing", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
    - if_missing: {{ d }}/app.zip
""", setup=[TAR], probe=AR_PROBE)
AR_HASH = "sha256sum \"$SCRATCH/app.tar.gz\" | cut -d' ' -f1 > \"$SCRATCH/app.sum\""
# run by salt-call/brine from the workspace top (no $SCRATCH there)
AR_REBUILD = ("cd scratch && echo v2 > build/app/V && tar -C build --owner=0 --group=0 --mtime=2020-01-01 "
              "-czf app.tar.gz app && sha256sum app.tar.gz | cut -d' ' -f1 > app.sum")
AR_HASH_STATE = """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
    - source_hash: {{ salt['cmd.run']('cat ' ~ d ~ '/app.sum') }}
    - source_hash_update: True
"""
sc("archive.extracted source_hash_update same", AR_HASH_STATE, setup=[TAR, AR_HASH], probe=AR_PROBE,
   pre=[["state.sls", "main"]])
sc("archive.extracted source_hash_update changed", AR_HASH_STATE, setup=[TAR, AR_HASH], probe=AR_PROBE + [
   "cd \"$SCRATCH\" && cat out/app/V"], pre=[["state.sls", "main"], ["cmd.run", AR_REBUILD, "python_shell=True"]])
sc("archive.extracted source_hash_update no hash", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.gz
    - source_hash_update: True
""", setup=[TAR], probe=AR_PROBE)
sc("archive.extracted unreadable", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/junk.tar
""", setup=["printf 'not an archive\\n' > \"$SCRATCH/junk.tar\""], probe=AR_PROBE)
TZST = "cd \"$SCRATCH/build\" && tar --owner=0 --group=0 --mtime=2020-01-01 -cf - app | zstd -q > ../app.tar.zst"
sc("archive.extracted list_options zstd", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/app.tar.zst
    - archive_format: tar
    - list_options: zstd -dc
    - options: --zstd
""", setup=[TAR, TZST], probe=AR_PROBE)
sc("archive.extracted missing", """
{{ d }}/out:
  archive.extracted:
    - source: {{ d }}/none.tar.gz
""", probe=AR_PROBE)

sc("kmod.present", """
brth7nomod:
  kmod.present: []
""")
sc("kmod.present test", """
brth7nomod:
  kmod.present: []
""", test=True)
sc("kmod.absent", """
brth7nomod:
  kmod.absent: []
""")

sc("kmod.absent test", """
brth7nomod:
  kmod.absent: []
""", test=True)
sc("kmod.present mods persist", """
brth7mods:
  kmod.present:
    - mods: [brth7a, brth7b]
    - persist: True
""")
sc("kmod.absent persist", """
brth7nomod:
  kmod.absent:
    - persist: True
""")

SVC_CFG = {"disable_modules": ["systemd_service"]}
sc("service.enabled offline", """
cron:
  service.enabled: []
""", test=True)
sc("service.disabled offline", """
cron:
  service.disabled: []
""", test=True)
sc("service.enabled debian test", """
cron:
  service.enabled: []
""", test=True, config=SVC_CFG)
sc("service.disabled missing debian", """
brth7nosvc:
  service.disabled: []
""", config=SVC_CFG)

CMDP = [CAT]
variants("cmd.run creates", """
touch {{ d }}/made:
  cmd.run:
    - creates: {{ d }}/made
""", probe=[STAT])
sc("cmd.run unless true", """
echo hi:
  cmd.run:
    - unless: /bin/true
""")
sc("cmd.run unless list", """
echo hi:
  cmd.run:
    - unless:
      - /bin/false
      - /bin/true
""")
sc("cmd.run onlyif false", """
echo hi:
  cmd.run:
    - onlyif: /bin/false
""")
sc("cmd.run onlyif list", """
echo hi:
  cmd.run:
    - onlyif:
      - /bin/true
      - /bin/false
""")
sc("cmd.run onlyif test", """
echo hi:
  cmd.run:
    - onlyif: /bin/true
""", test=True)
sc("cmd.run runas cwd env", """
id -un; pwd; echo $FOO:
  cmd.run:
    - runas: brth7u1
    - cwd: /tmp
    - env:
      - FOO: bar
""", setup=CLEAN_IDS + [MK_USER1], teardown=CLEAN_IDS)
sc("cmd.run runas missing", """
id -un:
  cmd.run:
    - runas: brth7nouser
""")
sc("cmd.run fail", """
echo out; echo err >&2; exit 3:
  cmd.run: []
""")
sc("cmd.run stateful", """
'echo; echo changed=yes comment=\\"all good\\"':
  cmd.run:
    - stateful: True
""")
sc("cmd.run stateful json", """
'echo {\\"changed\\": false, \\"comment\\": \\"nothing\\"}':
  cmd.run:
    - stateful: True
""")
sc("cmd.run cwd missing", """
pwd:
  cmd.run:
    - cwd: {{ d }}/nodir
""")
sc("cmd.run creates list", """
echo hi:
  cmd.run:
    - creates:
      - {{ d }}/a
      - {{ d }}/b
""", setup=["touch \"$SCRATCH/a\""])
sc("cmd.run success_retcodes", """
exit 2:
  cmd.run:
    - success_retcodes: [2]
""")
sc("cmd.run shell python", """
print(1+1):
  cmd.run:
    - shell: /usr/bin/python3
""")
sc("cmd.script", """
brth7script:
  cmd.script:
    - source: salt://files/s.sh
    - args: one two
""")
sc("cmd.wait no watch", """
echo waited:
  cmd.wait: []
""")

ENV_PROBE = []
sc("environ.setenv", """
BRTH7VAR:
  environ.setenv:
    - value: hello
""")
sc("environ.setenv dict", """
brth7env:
  environ.setenv:
    - value:
        BRTH7A: a
        BRTH7B: b
""")
sc("environ.setenv false unset", """
BRTH7VAR:
  environ.setenv:
    - value: False
""")
sc("environ.setenv false_unsets", """
BRTH7VAR:
  environ.setenv:
    - value: False
    - false_unsets: True
""")
sc("environ.setenv existing same", """
HOME:
  environ.setenv:
    - value: {{ salt['environ.get']('HOME') }}
""")
sc("environ.setenv test", """
BRTH7VAR:
  environ.setenv:
    - value: hello
""", test=True)

# ---------------------------------------------------------------- batch 2

sc("file.managed show_changes false", """
{{ d }}/a.conf:
  file.managed:
    - contents: new
    - show_changes: False
""", setup=["printf old > \"$SCRATCH/a.conf\""], probe=FILE_PROBE)
sc("file.managed source list fallback", """
{{ d }}/a.conf:
  file.managed:
    - source:
      - salt://files/nope.conf
      - salt://files/b.conf
""", probe=FILE_PROBE)
sc("file.managed template pillar grains", """
{{ d }}/a.conf:
  file.managed:
    - contents: "{{ grains['os'] }} {{ salt['pillar.get']('x', 'dflt') }}"
""", probe=FILE_PROBE)
sc("file.managed contents and source", """
{{ d }}/a.conf:
  file.managed:
    - contents: x
    - source: salt://files/b.conf
""", probe=FILE_PROBE)
sc("file.managed no source no contents", """
{{ d }}/empty.conf:
  file.managed: []
""", probe=FILE_PROBE)
sc("file.managed no source existing", """
{{ d }}/empty.conf:
  file.managed:
    - mode: '0600'
""", setup=["echo keep > \"$SCRATCH/empty.conf\""], probe=FILE_PROBE)
sc("file.managed relative name", """
relative/file.conf:
  file.managed:
    - contents: x
""")
sc("file.managed mode test", """
{{ d }}/o.conf:
  file.managed:
    - contents: hi
    - mode: '0600'
""", setup=["printf hi > \"$SCRATCH/o.conf\""], probe=FILE_PROBE, test=True)
sc("file.managed owner change", """
{{ d }}/o.conf:
  file.managed:
    - contents: hi
    - user: brth7u1
""", setup=CLEAN_IDS + [MK_USER1, "printf hi > \"$SCRATCH/o.conf\""], probe=FILE_PROBE, teardown=CLEAN_IDS)
sc("file.managed owner change test", """
{{ d }}/o.conf:
  file.managed:
    - contents: hi
    - user: brth7u1
    - group: brth7u1
""", setup=CLEAN_IDS + [MK_USER1, "printf hi > \"$SCRATCH/o.conf\""], probe=FILE_PROBE, teardown=CLEAN_IDS, test=True)
sc("file.managed attrs contents_newline false", """
{{ d }}/n.conf:
  file.managed:
    - contents: no newline
    - contents_newline: False
""", probe=FILE_PROBE)
sc("file.managed dir_mode makedirs test", """
{{ d }}/x/y/z.conf:
  file.managed:
    - contents: deep
    - makedirs: True
""", probe=FILE_PROBE, test=True)
sc("file.directory user change", """
{{ d }}/dd:
  file.directory:
    - user: brth7u1
    - group: brth7u1
    - mode: 700
""", setup=CLEAN_IDS + [MK_USER1, "mkdir \"$SCRATCH/dd\""], probe=[STAT], teardown=CLEAN_IDS)
sc("file.directory mode change test", """
{{ d }}/dd:
  file.directory:
    - mode: 700
""", setup=["mkdir \"$SCRATCH/dd\""], probe=[STAT], test=True)
sc("file.directory missing user", """
{{ d }}/dd:
  file.directory:
    - user: brth7nouser
""", probe=[STAT])
sc("file.directory symlink force", """
{{ d }}/dd:
  file.directory:
    - force: True
""", setup=["ln -s /tmp \"$SCRATCH/dd\""], probe=[STAT])
sc("file.directory symlink allow_symlink", """
{{ d }}/dd:
  file.directory: []
""", setup=["mkdir \"$SCRATCH/real\" && ln -s real \"$SCRATCH/dd\""], probe=[STAT])
sc("file.symlink test", """
{{ d }}/ln:
  file.symlink:
    - target: {{ d }}/tgt
""", setup=["touch \"$SCRATCH/tgt\" \"$SCRATCH/ln\""], probe=[STAT], test=True)
sc("file.symlink over dir force", """
{{ d }}/ln:
  file.symlink:
    - target: {{ d }}/tgt
    - force: True
""", setup=["touch \"$SCRATCH/tgt\" && mkdir -p \"$SCRATCH/ln/x\""], probe=[STAT])
sc("file.absent file test", """
{{ d }}/gone:
  file.absent: []
""", setup=["touch \"$SCRATCH/gone\""], probe=[STAT], test=True)
sc("file.replace multiline flags", """
{{ d }}/f.txt:
  file.replace:
    - pattern: 'alpha\\nbeta'
    - repl: 'AB'
    - flags: [MULTILINE]
""", setup=[LINES], probe=[CAT])
sc("file.replace test", """
{{ d }}/f.txt:
  file.replace:
    - pattern: beta
    - repl: BETA
    - show_changes: False
""", setup=[LINES], probe=[CAT])
sc("file.line ensure before", """
{{ d }}/f.txt:
  file.line:
    - content: pre-gamma
    - mode: ensure
    - before: gamma
""", setup=[LINES], probe=[CAT])
sc("file.line ensure present", """
{{ d }}/f.txt:
  file.line:
    - content: beta
    - mode: ensure
    - after: alpha
""", setup=[LINES], probe=[CAT])
sc("file.line insert after", """
{{ d }}/f.txt:
  file.line:
    - content: after-alpha
    - mode: insert
    - after: alpha
""", setup=[LINES], probe=[CAT])
sc("file.line test", """
{{ d }}/f.txt:
  file.line:
    - content: BETA
    - match: ^beta
    - mode: replace
""", setup=[LINES], probe=[CAT], test=True)
sc("file.blockreplace append_newline false", """
{{ d }}/b.txt:
  file.blockreplace:
    - marker_start: '# START'
    - marker_end: '# END'
    - content: x
    - append_newline: False
""", setup=[BLOCK], probe=[CAT])
sc("file.blockreplace show_changes false", """
{{ d }}/b.txt:
  file.blockreplace:
    - marker_start: '# START'
    - marker_end: '# END'
    - content: y
    - show_changes: False
""", setup=[BLOCK], probe=[CAT])
sc("file.append test", """
{{ d }}/f.txt:
  file.append:
    - text: new line
""", setup=[LINES], probe=[CAT], test=True)
sc("file.append missing test", """
{{ d }}/nofile.txt:
  file.append:
    - text: new line
""", probe=[CAT], test=True)
sc("file.comment test", """
{{ d }}/f.txt:
  file.comment:
    - regex: ^gamma
""", setup=[LINES], probe=[CAT], test=True)
sc("file.comment backup false", """
{{ d }}/f.txt:
  file.comment:
    - regex: ^gamma
    - backup: False
""", setup=[LINES], probe=[STAT])
sc("file.uncomment not commented", """
{{ d }}/f.txt:
  file.uncomment:
    - regex: beta
""", setup=[LINES], probe=[CAT])
sc("file.copy preserve", """
{{ d }}/dst.txt:
  file.copy:
    - source: {{ d }}/f.txt
    - preserve: True
""", setup=[LINES, "chmod 600 \"$SCRATCH/f.txt\""], probe=FILE_PROBE)
sc("file.copy test", """
{{ d }}/dst.txt:
  file.copy:
    - source: {{ d }}/f.txt
""", setup=[LINES], probe=FILE_PROBE, test=True)
sc("file.rename test", """
{{ d }}/renamed.txt:
  file.rename:
    - source: {{ d }}/f.txt
""", setup=[LINES], probe=[STAT], test=True)
sc("file.rename makedirs", """
{{ d }}/z/renamed.txt:
  file.rename:
    - source: {{ d }}/f.txt
    - makedirs: True
""", setup=[LINES], probe=[STAT])
sc("file.touch test existing", """
{{ d }}/touched:
  file.touch: []
""", setup=["touch \"$SCRATCH/touched\""], probe=[STAT], test=True)
sc("file.keyvalue test", """
{{ d }}/kv.conf:
  file.keyvalue:
    - key: a
    - value: 2
""", setup=[KV], probe=[CAT], test=True)
sc("file.keyvalue already", """
{{ d }}/kv.conf:
  file.keyvalue:
    - key: a
    - value: 1
""", setup=[KV], probe=[CAT])
sc("file.keyvalue separator spaces", """
{{ d }}/kv.conf:
  file.keyvalue:
    - key: b
    - value: 3
    - separator: ' = '
""", setup=[KV], probe=[CAT])
sc("cron.present dayweek change", """
/bin/true brth7:
  cron.present:
    - user: brth7u1
    - minute: 1
    - dayweek: 1-5
""", setup=CRON_USER + ["printf '# Lines below here are managed by Salt, do not edit\\n1 * * * * /bin/true brth7\\n' | crontab -u brth7u1 -"],
   probe=CRON_PROBE, teardown=CRON_TD)
sc("cron.present uncomment", """
/bin/true brth7:
  cron.present:
    - user: brth7u1
    - minute: 1
""", setup=CRON_USER + ["printf '# Lines below here are managed by Salt, do not edit\\n#DISABLED#1 * * * * /bin/true brth7\\n' | crontab -u brth7u1 -"],
   probe=CRON_PROBE, teardown=CRON_TD)
sc("cron.present test update", """
/bin/true brth7:
  cron.present:
    - user: brth7u1
    - minute: 2
""", setup=CRON_USER + ["printf '# Lines below here are managed by Salt, do not edit\\n1 * * * * /bin/true brth7\\n' | crontab -u brth7u1 -"],
   probe=CRON_PROBE, teardown=CRON_TD, test=True)
sc("cron.present unmanaged existing", """
/bin/true brth7:
  cron.present:
    - user: brth7u1
    - minute: 1
""", setup=CRON_USER + ["printf 'MAILTO=x\\n1 * * * * /bin/true brth7\\n' | crontab -u brth7u1 -"],
   probe=CRON_PROBE, teardown=CRON_TD)
sc("cron.absent special", """
/bin/true brth7:
  cron.absent:
    - user: brth7u1
    - special: '@daily'
""", setup=CRON_USER + ["printf '# Lines below here are managed by Salt, do not edit\\n@daily /bin/true brth7\\n' | crontab -u brth7u1 -"],
   probe=CRON_PROBE, teardown=CRON_TD)
sc("user.present shell missing", """
brth7u1:
  user.present:
    - shell: /bin/brth7noshell
    - createhome: False
""", **USERS)
sc("user.present home no createhome change", """
brth7u1:
  user.present:
    - home: /home/brth7elsewhere
    - createhome: False
""", setup=CLEAN_IDS + [MK_GROUPS, MK_USER1], probe=USER_PROBE + ["ls -d /home/brth7elsewhere 2>&1; true"], teardown=CLEAN_IDS)
sc("user.present groups replace", """
brth7u1:
  user.present:
    - groups: [brth7g2]
""", setup=CLEAN_IDS + [MK_GROUPS, MK_USER1, "usermod -aG brth7g1 brth7u1"], probe=USER_PROBE, teardown=CLEAN_IDS)
sc("user.present already", """
brth7u1:
  user.present:
    - uid: 47701
    - gid: 47701
    - shell: /bin/sh
""", setup=CLEAN_IDS + [MK_GROUPS, MK_USER1], probe=USER_PROBE, teardown=CLEAN_IDS)
sc("user.present password change", """
brth7u1:
  user.present:
    - password: '$6$other$xyz'
""", setup=CLEAN_IDS + [MK_GROUPS, MK_USER1, "usermod -p '$6$salt$abc' brth7u1"], probe=USER_PROBE, teardown=CLEAN_IDS)
sc("user.present uid taken", """
brth7u1:
  user.present:
    - uid: 0
    - createhome: False
""", **USERS)
sc("user.absent test", """
brth7u1:
  user.absent: []
""", setup=CLEAN_IDS + [MK_USER1], probe=USER_PROBE, teardown=CLEAN_IDS, test=True)
sc("group.present members change", """
brth7g1:
  group.present:
    - members: [brth7u2]
""", setup=CLEAN_IDS + [MK_USER1, MK_GROUPS, "useradd -M brth7u2 && usermod -aG brth7g1 brth7u1"], probe=GROUP_PROBE, teardown=CLEAN_IDS)
sc("group.present members test", """
brth7g1:
  group.present:
    - members: [brth7u1]
""", setup=CLEAN_IDS + [MK_USER1, MK_GROUPS], probe=GROUP_PROBE, teardown=CLEAN_IDS, test=True)
sc("group.present gid taken", """
brth7g3:
  group.present:
    - gid: 0
""", **GROUPS)
sc("cmd.run env dict", """
echo $BRTH7A-$BRTH7B:
  cmd.run:
    - env:
        BRTH7A: a
        BRTH7B: b
""")
sc("cmd.run umask", """
touch {{ d }}/um && stat -c %a {{ d }}/um:
  cmd.run:
    - umask: '077'
""")
sc("cmd.run hide_output", """
echo secret:
  cmd.run:
    - hide_output: True
""")
sc("cmd.run unless string fails test", """
echo hi:
  cmd.run:
    - unless: /bin/false
""", test=True)
sc("cmd.run creates test", """
touch {{ d }}/made:
  cmd.run:
    - creates: {{ d }}/made
""", setup=["touch \"$SCRATCH/made\""], test=True)
sc("cmd.run timeout", """
sleep 5:
  cmd.run:
    - timeout: 1
""")
sc("cmd.run timeout ignored", """
sleep 5; echo x:
  cmd.run:
    - timeout: 1
    - ignore_timeout: True
""")
sc("cmd.script timeout", """
sleep-script:
  cmd.script:
    - source: salt://files/s.sh
    - args: 5; sleep
    - timeout: 1
""")
sc("cmd.run names", """
run-many:
  cmd.run:
    - names:
      - echo one
      - exit 1
""")
sc("cmd.run stateful bad", """
echo not-key-value:
  cmd.run:
    - stateful: True
""")
sc("cmd.run runas test", """
id -un:
  cmd.run:
    - runas: brth7u1
""", setup=CLEAN_IDS + [MK_USER1], teardown=CLEAN_IDS, test=True)
sc("environ.setenv update_minion", """
BRTH7VAR:
  environ.setenv:
    - value: x
    - update_minion: True
""")
sc("sysctl.present change config", """
%s:
  sysctl.present:
    - value: {{ salt['cmd.run']('sysctl -n %s') }}
    - config: {{ d }}/sysctl.conf
""" % (SYSCTL, SYSCTL), setup=["echo \"%s = 7\" > \"$SCRATCH/sysctl.conf\"" % SYSCTL], probe=[CAT])
sc("host.present test clean", """
brth7a.example:
  host.present:
    - ip: 127.0.7.4
    - clean: True
""", setup=[HOSTS_CLEAN, "echo '127.0.7.1 brth7a.example' >> /etc/hosts"], probe=HOSTS_PROBE, teardown=[HOSTS_CLEAN], test=True)
sc("host.present comment change", """
brth7a.example:
  host.present:
    - ip: 127.0.7.1
    - comment: new note
""", setup=[HOSTS_CLEAN, "echo '127.0.7.1 brth7a.example # old note' >> /etc/hosts"], probe=HOSTS_PROBE, teardown=[HOSTS_CLEAN])
sc("host.present add alias existing ip", """
brth7b.example:
  host.present:
    - ip: 127.0.7.1
""", setup=[HOSTS_CLEAN, "echo '127.0.7.1 brth7a.example' >> /etc/hosts"], probe=HOSTS_PROBE, teardown=[HOSTS_CLEAN])
sc("host.only test", """
127.0.7.6:
  host.only:
    - hostnames: [brth7x.example]
""", setup=[HOSTS_CLEAN, "echo '127.0.7.6 brth7old' >> /etc/hosts"], probe=HOSTS_PROBE, teardown=[HOSTS_CLEAN], test=True)

FILES = {
    "files/b.conf": "from salt source\n",
    "files/t.j2": "hello {{ who }} {{ n }} {{ grains['os'] }}\n",
    "files/s.sh": "#!/bin/sh\necho args: \"$@\"\n",
}

# ---------------------------------------------------------------- round 2 (brtw3, uids 47800-47899)
# Packages: hello, tree, figlet, dos2unix (one dependency-free package each);
# lighttpd is installed when missing and purged again afterwards.

W3_PKGS = "hello tree figlet dos2unix"
W3_PKG_RESET = ["apt-mark unhold %s >/dev/null 2>&1; apt-get -o DPkg::Lock::Timeout=300 -y -q purge %s >/dev/null 2>&1; true"
                % (W3_PKGS, W3_PKGS)]
W3_PKG_PROBE = ["for p in %s; do s=$(dpkg-query -W -f='${db:Status-Status} ${Version}' $p 2>/dev/null); "
                "case \"$s\" in ''|not-installed*|config-files*) echo \"$p: absent\";; *) echo \"$p: $s\";; esac; done" % W3_PKGS]


def w3_inst(*pkgs):
    return "apt-get -o DPkg::Lock::Timeout=300 -y -q install --no-install-recommends %s >/dev/null 2>&1" % " ".join(pkgs)


W3P = dict(setup=W3_PKG_RESET, probe=W3_PKG_PROBE, teardown=W3_PKG_RESET, timeout=400)


def w3_pkg(name, sls, pre_installed=(), tests=True, **kw):
    """A pkg scenario, its test=True twin, starting with pre_installed installed."""
    setup = W3_PKG_RESET + ([w3_inst(*pre_installed)] if pre_installed else []) + list(kw.pop("extra_setup", []))
    args = dict(setup=setup, probe=W3_PKG_PROBE, teardown=W3_PKG_RESET, timeout=400)
    args.update(kw)
    sc(name, sls, **args)
    if tests:
        sc(name + " test", sls, test=True, **args)


w3_pkg("pkg.installed w3 version exact", """
hello:
  pkg.installed:
    - version: '2.10-3'
""")
w3_pkg("pkg.installed w3 version ge", """
hello:
  pkg.installed:
    - version: '>=2.10'
""")
w3_pkg("pkg.installed w3 version ge unsatisfiable", """
hello:
  pkg.installed:
    - version: '>=99.0'
""")
w3_pkg("pkg.installed w3 version eq prefix", """
hello:
  pkg.installed:
    - version: '=2.10-3'
""")
w3_pkg("pkg.installed w3 version wrong", """
hello:
  pkg.installed:
    - version: '1.0-1'
""")
w3_pkg("pkg.installed w3 version already", """
hello:
  pkg.installed:
    - version: '2.10-3'
""", pre_installed=["hello"])
w3_pkg("pkg.installed w3 pkgs versions", """
w3pkgs:
  pkg.installed:
    - pkgs:
      - hello: '2.10-3'
      - tree: '>=2.0'
      - figlet
""")
w3_pkg("pkg.installed w3 pkgs some installed", """
w3pkgs:
  pkg.installed:
    - pkgs: [hello, tree]
""", pre_installed=["hello"])
w3_pkg("pkg.installed w3 pkgs all installed", """
w3pkgs:
  pkg.installed:
    - pkgs: [hello, tree]
""", pre_installed=["hello", "tree"])
w3_pkg("pkg.installed w3 pkgs one missing", """
w3pkgs:
  pkg.installed:
    - pkgs: [hello, brtw3-no-such-package]
""")
w3_pkg("pkg.installed w3 pkgs wrong version", """
w3pkgs:
  pkg.installed:
    - pkgs:
      - hello: '9.9-9'
      - tree
""")
w3_pkg("pkg.installed w3 refresh", """
hello:
  pkg.installed:
    - refresh: True
""", tests=False)
w3_pkg("pkg.installed w3 skip_suggestions missing", """
brtw3-no-such-package:
  pkg.installed:
    - skip_suggestions: True
""")
w3_pkg("pkg.installed w3 missing", """
brtw3-no-such-package:
  pkg.installed: []
""")
w3_pkg("pkg.installed w3 install_recommends false", """
hello:
  pkg.installed:
    - install_recommends: False
""")
w3_pkg("pkg.installed w3 sources deb", """
hello:
  pkg.installed:
    - sources:
      - hello: {{ d }}/hello_2.10-3_amd64.deb
""", extra_setup=["cd \"$SCRATCH\" && apt-get download hello=2.10-3 >/dev/null 2>&1"])
w3_pkg("pkg.installed w3 sources deb already", """
hello:
  pkg.installed:
    - sources:
      - hello: {{ d }}/hello_2.10-3_amd64.deb
""", pre_installed=["hello"], extra_setup=["cd \"$SCRATCH\" && apt-get download hello=2.10-3 >/dev/null 2>&1"])
w3_pkg("pkg.installed w3 sources missing file", """
hello:
  pkg.installed:
    - sources:
      - hello: {{ d }}/nope.deb
""")
w3_pkg("pkg.installed w3 reinstall", """
hello:
  pkg.installed:
    - reinstall: True
""", pre_installed=["hello"])
w3_pkg("pkg.installed w3 allow_updates", """
hello:
  pkg.installed:
    - version: '2.10-3'
    - allow_updates: True
""", pre_installed=["hello"])
w3_pkg("pkg.installed w3 allow_updates fresh", """
hello:
  pkg.installed:
    - version: '>=2.0'
    - allow_updates: True
""")
w3_pkg("pkg.installed w3 names", """
w3names:
  pkg.installed:
    - names: [hello, tree]
""", pre_installed=["tree"])
w3_pkg("pkg.removed w3 several", """
w3rm:
  pkg.removed:
    - pkgs: [hello, tree, figlet]
""", pre_installed=["hello", "tree"])
w3_pkg("pkg.removed w3 not installed", """
hello:
  pkg.removed: []
""")
w3_pkg("pkg.removed w3 one", """
hello:
  pkg.removed: []
""", pre_installed=["hello"])
w3_pkg("pkg.removed w3 version mismatch", """
hello:
  pkg.removed:
    - version: '1.0-1'
""", pre_installed=["hello"])
w3_pkg("pkg.purged w3 several", """
w3purge:
  pkg.purged:
    - pkgs: [hello, tree, dos2unix]
""", pre_installed=["hello", "tree"])
w3_pkg("pkg.purged w3 config-files", """
hello:
  pkg.purged: []
""", pre_installed=["hello"], extra_setup=["apt-get -o DPkg::Lock::Timeout=300 -y -q remove hello >/dev/null 2>&1"])
w3_pkg("pkg.purged w3 not installed", """
hello:
  pkg.purged: []
""")
w3_pkg("pkg.latest w3 pkgs", """
w3latest:
  pkg.latest:
    - refresh: False
    - pkgs: [hello, tree]
""", pre_installed=["tree"])
w3_pkg("pkg.latest w3 pkgs all current", """
w3latest:
  pkg.latest:
    - refresh: False
    - pkgs: [hello, tree]
""", pre_installed=["hello", "tree"])
w3_pkg("pkg.latest w3 pkgs one missing", """
w3latest:
  pkg.latest:
    - refresh: False
    - pkgs: [hello, brtw3-no-such-package]
""")
w3_pkg("pkg.installed w3 watch cmd", """
hello:
  pkg.installed: []
echo pkg changed:
  cmd.run:
    - onchanges:
      - pkg: hello
""")

# services: lighttpd's SysV script via debian_service, and systemd_service offline.
W3_LH_IN = ["dpkg-query -W -f='${db:Status-Status}' lighttpd 2>/dev/null | grep -qx installed || { "
            "dpkg-query -W -f='${db:Status-Status} ${Package}\\n' | awk '$1==\"installed\"{print $2}' | sort > \"$CONF/w3-before\" && "
            "apt-get -o DPkg::Lock::Timeout=300 -y -q install --no-install-recommends lighttpd >/dev/null 2>&1 && "
            "dpkg-query -W -f='${db:Status-Status} ${Package}\\n' | awk '$1==\"installed\"{print $2}' | sort | comm -13 \"$CONF/w3-before\" - > \"$CONF/w3-installed\"; }",
            "rm -f /etc/lighttpd/conf-available/99-brtw3.conf"]
W3_LH_OUT = ["rm -f /etc/lighttpd/conf-available/99-brtw3.conf", "service lighttpd stop >/dev/null 2>&1 || true",
             "update-rc.d lighttpd defaults >/dev/null 2>&1; true",
             "[ ! -s \"$CONF/w3-installed\" ] || apt-get -o DPkg::Lock::Timeout=300 -y -q purge $(cat \"$CONF/w3-installed\") >/dev/null 2>&1; true"]
W3_STOP = "service lighttpd stop >/dev/null 2>&1; true"
W3_START = "service lighttpd restart >/dev/null 2>&1; pgrep -o -f /usr/sbin/lighttpd > \"$CONF/w3-pid\""
W3_DISABLE = "update-rc.d lighttpd disable >/dev/null 2>&1"
W3_ENABLE = "update-rc.d lighttpd enable >/dev/null 2>&1"
W3_SVC_PROBE = ["service lighttpd status >/dev/null 2>&1 && echo running || echo stopped",
                "ls /etc/rc2.d/ | grep lighttpd | cut -c1",
                "[ ! -e \"$CONF/w3-pid\" ] || { [ \"$(pgrep -o -f /usr/sbin/lighttpd)\" != \"$(cat \"$CONF/w3-pid\")\" ] && echo restarted || echo same-pid; }"]


def w3_svc(name, sls, start=(), tests=True, config=SVC_CFG, **kw):
    args = dict(setup=W3_LH_IN + list(start), probe=W3_SVC_PROBE, teardown=W3_LH_OUT, config=config, timeout=300)
    args.update(kw)
    sc(name, sls, **args)
    if tests:
        sc(name + " test", sls, test=True, **args)


w3_svc("service.running w3 enable", """
lighttpd:
  service.running:
    - enable: True
""", start=[W3_STOP, W3_DISABLE])
w3_svc("service.running w3 enable already", """
lighttpd:
  service.running:
    - enable: True
""", start=[W3_ENABLE, W3_START])
w3_svc("service.running w3 enable false", """
lighttpd:
  service.running:
    - enable: False
""", start=[W3_STOP, W3_ENABLE])
w3_svc("service.running w3 running disable", """
lighttpd:
  service.running:
    - enable: False
""", start=[W3_ENABLE, W3_START])
w3_svc("service.running w3 already", """
lighttpd:
  service.running: []
""", start=[W3_START])
w3_svc("service.dead w3 enable false", """
lighttpd:
  service.dead:
    - enable: False
""", start=[W3_ENABLE, W3_START])
w3_svc("service.dead w3 already", """
lighttpd:
  service.dead: []
""", start=[W3_STOP])
w3_svc("service.dead w3 running", """
lighttpd:
  service.dead: []
""", start=[W3_START])
w3_svc("service.dead w3 enable true", """
lighttpd:
  service.dead:
    - enable: True
""", start=[W3_STOP, W3_DISABLE])
w3_svc("service.enabled w3", """
lighttpd:
  service.enabled: []
""", start=[W3_DISABLE])
w3_svc("service.enabled w3 already", """
lighttpd:
  service.enabled: []
""", start=[W3_ENABLE])
w3_svc("service.disabled w3", """
lighttpd:
  service.disabled: []
""", start=[W3_ENABLE])
w3_svc("service.disabled w3 already", """
lighttpd:
  service.disabled: []
""", start=[W3_DISABLE])
W3_CONF = """/etc/lighttpd/conf-available/99-brtw3.conf:
  file.managed:
    - contents: |
        # brtw3
"""
w3_svc("service.running w3 watch reload", W3_CONF + """
lighttpd:
  service.running:
    - reload: True
    - watch:
      - file: /etc/lighttpd/conf-available/99-brtw3.conf
""", start=[W3_START])
w3_svc("service.running w3 watch stopped", W3_CONF + """
lighttpd:
  service.running:
    - watch:
      - file: /etc/lighttpd/conf-available/99-brtw3.conf
""", start=[W3_STOP])
w3_svc("service.running w3 watch no change", W3_CONF + """
lighttpd:
  service.running:
    - watch:
      - file: /etc/lighttpd/conf-available/99-brtw3.conf
""", start=[W3_START, "printf '# brtw3\\n' > /etc/lighttpd/conf-available/99-brtw3.conf"])
w3_svc("service.running w3 listen", W3_CONF + """
lighttpd:
  service.running:
    - listen:
      - file: /etc/lighttpd/conf-available/99-brtw3.conf
""", start=[W3_START])
w3_svc("service.running w3 watch_in full_restart", W3_CONF + """
    - watch_in:
      - service: lighttpd
lighttpd:
  service.running:
    - full_restart: True
""", start=[W3_START])
w3_svc("service.dead w3 watch", W3_CONF + """
lighttpd:
  service.dead:
    - watch:
      - file: /etc/lighttpd/conf-available/99-brtw3.conf
""", start=[W3_START])
w3_svc("service.running w3 offline watch", W3_CONF + """
lighttpd:
  service.running:
    - enable: True
    - watch:
      - file: /etc/lighttpd/conf-available/99-brtw3.conf
""", start=[W3_STOP], config={})
w3_svc("service.dead w3 offline", """
lighttpd:
  service.dead:
    - enable: False
""", start=[W3_STOP], config={})
w3_svc("service.running w3 missing", """
brtw3nosvc:
  service.running:
    - enable: True
""")

# users and groups
W3_RM_USERS = "for u in brtw3u1 brtw3u2; do userdel -r $u >/dev/null 2>&1; userdel -f $u >/dev/null 2>&1; rm -rf /home/$u /home/${u}new; done; true"
W3_RM_GROUPS = "for g in brtw3u1 brtw3u2 brtw3g1 brtw3g2 brtw3g3; do groupdel $g >/dev/null 2>&1; done; true"
W3_IDS = [W3_RM_USERS, W3_RM_GROUPS]
W3_MK_GROUPS = "groupadd -g 47811 brtw3g1 && groupadd -g 47812 brtw3g2"
W3_MK_USER1 = ("groupadd -g 47801 brtw3u1 && useradd -u 47801 -g brtw3u1 -m -s /bin/sh -c 'W3 One,1,2,3,x' brtw3u1 && "
               "echo 'brtw3u1:$6$w3salt$oldhash' | chpasswd -e")
W3_USER_PROBE = ["getent passwd brtw3u1 brtw3u2 | cut -d: -f1,3,4,5,6,7", "id -nG brtw3u1 2>&1; true",
                 "getent shadow brtw3u1 | cut -d: -f1,2,8", "ls -d /home/brtw3u1 /home/brtw3u1new 2>&1; true",
                 "getent group brtw3u1 brtw3g1 brtw3g2 brtw3g3"]


def w3_user(name, sls, setup=(W3_MK_GROUPS, W3_MK_USER1), tests=True, probe=(), **kw):
    args = dict(setup=W3_IDS + list(setup), probe=W3_USER_PROBE + list(probe), teardown=W3_IDS)
    args.update(kw)
    sc(name, sls, **args)
    if tests:
        sc(name + " test", sls, test=True, **args)


w3_user("user.present w3 uid gid change", """
brtw3u1:
  user.present:
    - uid: 47802
    - gid: 47811
    - allow_uid_change: True
    - allow_gid_change: True
""")
w3_user("user.present w3 uid change not allowed", """
brtw3u1:
  user.present:
    - uid: 47802
    - gid: brtw3g1
""")
w3_user("user.present w3 groups keep", """
brtw3u1:
  user.present:
    - groups: [brtw3g2]
    - remove_groups: False
""", setup=(W3_MK_GROUPS, W3_MK_USER1, "usermod -aG brtw3g1 brtw3u1"))
w3_user("user.present w3 groups replace", """
brtw3u1:
  user.present:
    - groups: [brtw3g2]
""", setup=(W3_MK_GROUPS, W3_MK_USER1, "usermod -aG brtw3g1 brtw3u1"))
w3_user("user.present w3 gecos change", """
brtw3u1:
  user.present:
    - fullname: W3 Changed
    - roomnumber: '11'
    - workphone: '2'
""")
w3_user("user.present w3 gecos same", """
brtw3u1:
  user.present:
    - fullname: W3 One
    - roomnumber: '1'
    - workphone: '2'
    - homephone: '3'
    - other: x
""")
w3_user("user.present w3 password enforce false", """
brtw3u1:
  user.present:
    - password: '$6$w3salt$newhash'
    - enforce_password: False
""")
w3_user("user.present w3 password enforce", """
brtw3u1:
  user.present:
    - password: '$6$w3salt$newhash'
""")
w3_user("user.present w3 password same", """
brtw3u1:
  user.present:
    - password: '$6$w3salt$oldhash'
""")
w3_user("user.present w3 password plain hash_password", """
brtw3u1:
  user.present:
    - password: secret
    - hash_password: True
""", tests=False, probe=["getent shadow brtw3u1 | cut -d: -f2 | cut -c1-3"])
w3_user("user.present w3 expire change", """
brtw3u1:
  user.present:
    - expire: 20500
""")
w3_user("user.present w3 expire date string", """
brtw3u1:
  user.present:
    - expire: '2030-01-02'
""")
w3_user("user.present w3 home move createhome", """
brtw3u1:
  user.present:
    - home: /home/brtw3u1new
    - createhome: True
""")
w3_user("user.present w3 home no move createhome", """
brtw3u1:
  user.present:
    - home: /home/brtw3u1new
    - createhome: True
""", setup=(W3_MK_GROUPS, "groupadd -g 47801 brtw3u1 && useradd -u 47801 -g brtw3u1 -M -s /bin/sh brtw3u1"))
w3_user("user.present w3 fresh full", """
brtw3u1:
  user.present:
    - uid: 47801
    - usergroup: True
    - fullname: W3 Fresh
    - shell: /bin/bash
    - groups: [brtw3g1, brtw3g2]
    - password: '$6$w3salt$freshhash'
    - expire: 20600
""", setup=(W3_MK_GROUPS,))
w3_user("user.present w3 usergroup gid exists", """
brtw3u1:
  user.present:
    - uid: 47801
    - gid: 47801
""", setup=(W3_MK_GROUPS, "groupadd -g 47801 brtw3u1"))
w3_user("user.absent w3 purge force", """
brtw3u1:
  user.absent:
    - purge: True
    - force: True
""")
w3_user("user.absent w3 no purge", """
brtw3u1:
  user.absent: []
""")
w3_user("user.absent w3 group kept", """
brtw3u1:
  user.absent:
    - purge: True
""", setup=(W3_MK_GROUPS, W3_MK_USER1, "usermod -aG brtw3g1 brtw3u1"))
w3_user("group.present w3 gid change members", """
brtw3g1:
  group.present:
    - gid: 47819
    - members: [brtw3u1]
""")
w3_user("group.present w3 new addusers", """
brtw3g3:
  group.present:
    - gid: 47813
    - addusers: [brtw3u1]
""")
w3_user("group.present w3 delusers missing", """
brtw3g1:
  group.present:
    - delusers: [brtw3u1, brtw3nouser]
""", setup=(W3_MK_GROUPS, W3_MK_USER1, "usermod -aG brtw3g1 brtw3u1"))
w3_user("group.present w3 members empty", """
brtw3g1:
  group.present:
    - members: []
""", setup=(W3_MK_GROUPS, W3_MK_USER1, "usermod -aG brtw3g1 brtw3u1"))
w3_user("group.present w3 addusers already", """
brtw3g1:
  group.present:
    - addusers: [brtw3u1]
""", setup=(W3_MK_GROUPS, W3_MK_USER1, "usermod -aG brtw3g1 brtw3u1"))
w3_user("group.present w3 members and addusers", """
brtw3g1:
  group.present:
    - members: [brtw3u1]
    - addusers: [brtw3u1]
""")

# files
B_SHA = "654eeb76cd0b206c1d805e66ed95f6008a80ab6ca0828f8c8428cd1e8c05dd99"
FILES.update({
    "files/b.conf.sha256": "%s  b.conf\n" % B_SHA,
    "files/rec/a.txt": "a\n",
    "files/rec/skip.bak": "bak\n",
    "files/rec/sub/b.conf": "b {{ grains['os'] }}\n",
    "files/rec/sub/deep/c.txt": "c\n",
})
sc("file.managed w3 source_hash", """
{{ d }}/h.conf:
  file.managed:
    - source: salt://files/b.conf
    - source_hash: sha256=%s
""" % B_SHA, probe=FILE_PROBE)
sc("file.managed w3 source_hash bare", """
{{ d }}/h.conf:
  file.managed:
    - source: salt://files/b.conf
    - source_hash: %s
""" % B_SHA, probe=FILE_PROBE)
sc("file.managed w3 source_hash file", """
{{ d }}/h.conf:
  file.managed:
    - source: salt://files/b.conf
    - source_hash: salt://files/b.conf.sha256
""", probe=FILE_PROBE)
sc("file.managed w3 source_hash local source", """
{{ d }}/h.conf:
  file.managed:
    - source: {{ d }}/src.txt
    - source_hash: md5=b615d13966b9c626ea95a06bdc96b7e8
""", setup=["printf 'from salt source\\n' > \"$SCRATCH/src.txt\""], probe=FILE_PROBE)
sc("file.managed w3 source_hash test", """
{{ d }}/h.conf:
  file.managed:
    - source: salt://files/b.conf
    - source_hash: sha256=%s
""" % B_SHA, probe=FILE_PROBE, test=True)
sc("file.managed w3 skip_verify", """
{{ d }}/h.conf:
  file.managed:
    - source: salt://files/b.conf
    - skip_verify: True
""", probe=FILE_PROBE)
sc("file.managed w3 contents_pillar", """
{{ d }}/p.conf:
  file.managed:
    - contents_pillar: w3:text
""", argv=["state.sls", "main", "pillar={\"w3\": {\"text\": \"from pillar\\nline 2\"}}"], probe=FILE_PROBE)
sc("file.managed w3 contents_pillar missing", """
{{ d }}/p.conf:
  file.managed:
    - contents_pillar: w3:nope
""", probe=FILE_PROBE)
sc("file.managed w3 follow_symlinks false", """
{{ d }}/link.conf:
  file.managed:
    - contents: via link
    - follow_symlinks: False
""", setup=["echo old > \"$SCRATCH/target.conf\" && ln -s target.conf \"$SCRATCH/link.conf\""], probe=FILE_PROBE)
sc("file.managed w3 follow_symlinks mode", """
{{ d }}/link.conf:
  file.managed:
    - contents: via link
    - mode: '0600'
""", setup=["echo old > \"$SCRATCH/target.conf\" && ln -s target.conf \"$SCRATCH/link.conf\""], probe=FILE_PROBE)
for _n, _cmd in (("pass", "grep -q ok"), ("fail", "grep -q nope")):
    sc("file.managed w3 check_cmd " + _n, """
{{ d }}/chk.conf:
  file.managed:
    - contents: ok
    - check_cmd: %s
""" % _cmd, setup=["echo old > \"$SCRATCH/chk.conf\""], probe=FILE_PROBE)
    sc("file.managed w3 check_cmd tmp_ext " + _n, """
{{ d }}/chk.conf:
  file.managed:
    - contents: ok
    - tmp_ext: .conf
    - check_cmd: %s
""" % _cmd, probe=FILE_PROBE)
sc("file.managed w3 check_cmd test", """
{{ d }}/chk.conf:
  file.managed:
    - contents: ok
    - check_cmd: grep -q nope
""", probe=FILE_PROBE, test=True)
sc("file.managed w3 dir_mode makedirs", """
{{ d }}/x/y/z.conf:
  file.managed:
    - contents: deep
    - makedirs: True
    - dir_mode: '0750'
    - mode: '0640'
""", probe=FILE_PROBE)
sc("file.managed w3 attrs", """
{{ d }}/at.conf:
  file.managed:
    - contents: attrs
    - attrs: i
""", probe=FILE_PROBE + ["lsattr -d \"$SCRATCH/at.conf\" 2>&1 | cut -c1-22"],
   teardown=["chattr -i \"$SCRATCH/at.conf\" 2>/dev/null; true"])
REC_PROBE = FILE_PROBE
variants("file.recurse w3 basic", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/rec
""", probe=REC_PROBE)
sc("file.recurse w3 clean", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/rec
    - clean: True
""", setup=["mkdir -p \"$SCRATCH/rec/old\" && echo x > \"$SCRATCH/rec/old/x\" && echo y > \"$SCRATCH/rec/y.txt\""], probe=REC_PROBE)
sc("file.recurse w3 clean test", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/rec
    - clean: True
""", setup=["mkdir -p \"$SCRATCH/rec/old\" && echo x > \"$SCRATCH/rec/old/x\" && echo y > \"$SCRATCH/rec/y.txt\""], probe=REC_PROBE, test=True)
sc("file.recurse w3 include_pat", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/rec
    - include_pat: '*.txt'
""", probe=REC_PROBE)
sc("file.recurse w3 include_pat regex", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/rec
    - include_pat: 'E@sub/.*'
""", probe=REC_PROBE)
sc("file.recurse w3 exclude_pat", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/rec
    - exclude_pat: '*.bak'
""", probe=REC_PROBE)
sc("file.recurse w3 exclude_pat clean", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/rec
    - exclude_pat: 'E@.*\\.bak$'
    - clean: True
""", setup=["mkdir -p \"$SCRATCH/rec\" && echo y > \"$SCRATCH/rec/y.txt\" && echo keep > \"$SCRATCH/rec/skip.bak\""], probe=REC_PROBE)
sc("file.recurse w3 modes", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/rec
    - file_mode: '0640'
    - dir_mode: '0750'
""", probe=REC_PROBE)
sc("file.recurse w3 modes change", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/rec
    - file_mode: '0600'
""", pre=[["state.sls", "main"]], setup=[], probe=REC_PROBE)
sc("file.recurse w3 template", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/rec
    - template: jinja
    - include_empty: True
""", probe=REC_PROBE)
sc("file.recurse w3 missing source", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/nope
""", probe=REC_PROBE)
sc("file.recurse w3 maxdepth", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/rec
    - maxdepth: 1
""", probe=REC_PROBE)
sc("file.recurse w3 keep_symlinks user", """
{{ d }}/rec:
  file.recurse:
    - source: salt://files/rec
    - user: nobody
    - group: nogroup
""", probe=REC_PROBE)

# cron
W3_CRON_SETUP = [W3_RM_USERS, W3_RM_GROUPS, "groupadd -g 47801 brtw3u1 && useradd -u 47801 -g brtw3u1 -M brtw3u1"]
W3_CRON_TD = ["crontab -r -u brtw3u1 >/dev/null 2>&1 || true", W3_RM_USERS, W3_RM_GROUPS]
W3_CRON_PROBE = ["crontab -l -u brtw3u1"]
W3_HDR = "# Lines below here are managed by Salt, do not edit\\n"


def w3_cron(name, sls, tab=None, tests=True):
    setup = list(W3_CRON_SETUP)
    if tab is not None:
        setup.append("printf '%s' | crontab -u brtw3u1 -" % tab)
    args = dict(setup=setup, probe=W3_CRON_PROBE, teardown=W3_CRON_TD)
    sc(name, sls, **args)
    if tests:
        sc(name + " test", sls, test=True, **args)


w3_cron("cron.present w3 special identifier", """
/bin/true w3:
  cron.present:
    - user: brtw3u1
    - special: '@daily'
    - identifier: w3daily
""")
w3_cron("cron.present w3 special change", """
/bin/true w3:
  cron.present:
    - user: brtw3u1
    - special: '@weekly'
""", tab=W3_HDR + "@daily /bin/true w3\\n")
w3_cron("cron.present w3 special to timed", """
/bin/true w3:
  cron.present:
    - user: brtw3u1
    - minute: 5
    - hour: 1
""", tab=W3_HDR + "@daily /bin/true w3\\n")
w3_cron("cron.present w3 special same", """
/bin/true w3:
  cron.present:
    - user: brtw3u1
    - special: '@daily'
""", tab=W3_HDR + "@daily /bin/true w3\\n")
w3_cron("cron.present w3 identifier comment", """
w3job:
  cron.present:
    - name: /bin/echo w3
    - user: brtw3u1
    - identifier: w3job
    - comment: nightly echo
    - minute: 0
    - hour: 3
""")
w3_cron("cron.present w3 identifier name change", """
/bin/echo w3 new:
  cron.present:
    - user: brtw3u1
    - identifier: w3job
    - minute: 0
    - hour: 3
""", tab=W3_HDR + "# nightly echo SALT_CRON_IDENTIFIER:w3job\\n0 3 * * * /bin/echo w3\\n")
w3_cron("cron.present w3 comment change", """
/bin/echo w3:
  cron.present:
    - user: brtw3u1
    - identifier: w3job
    - comment: other text
    - minute: 0
    - hour: 3
""", tab=W3_HDR + "# nightly echo SALT_CRON_IDENTIFIER:w3job\\n0 3 * * * /bin/echo w3\\n")
w3_cron("cron.present w3 commented existing", """
/bin/echo w3:
  cron.present:
    - user: brtw3u1
    - identifier: w3job
    - commented: True
    - minute: 0
    - hour: 3
""", tab=W3_HDR + "# SALT_CRON_IDENTIFIER:w3job\\n0 3 * * * /bin/echo w3\\n")
w3_cron("cron.present w3 special commented", """
/bin/echo w3:
  cron.present:
    - user: brtw3u1
    - special: '@reboot'
    - commented: True
    - comment: at boot
""")
w3_cron("cron.absent w3 identifier", """
w3job:
  cron.absent:
    - name: /bin/echo other
    - user: brtw3u1
    - identifier: w3job
""", tab=W3_HDR + "# SALT_CRON_IDENTIFIER:w3job\\n0 3 * * * /bin/echo w3\\n")

# cmd requisite chains
W3_CMD_PROBE = [CAT]
sc("cmd.run w3 onchanges changed", """
{{ d }}/f.conf:
  file.managed:
    - contents: one
echo changed >> {{ d }}/log:
  cmd.run:
    - onchanges:
      - file: {{ d }}/f.conf
""", probe=W3_CMD_PROBE)
sc("cmd.run w3 onchanges unchanged", """
{{ d }}/f.conf:
  file.managed:
    - contents: one
echo changed >> {{ d }}/log:
  cmd.run:
    - onchanges:
      - file: {{ d }}/f.conf
""", setup=["printf one > \"$SCRATCH/f.conf\""], probe=W3_CMD_PROBE)
sc("cmd.run w3 onchanges test", """
{{ d }}/f.conf:
  file.managed:
    - contents: one
echo changed >> {{ d }}/log:
  cmd.run:
    - onchanges:
      - file: {{ d }}/f.conf
""", probe=W3_CMD_PROBE, test=True)
sc("cmd.wait w3 watch", """
{{ d }}/f.conf:
  file.managed:
    - contents: one
echo watched >> {{ d }}/log:
  cmd.wait:
    - watch:
      - file: {{ d }}/f.conf
""", probe=W3_CMD_PROBE)
sc("cmd.run w3 watch unchanged", """
{{ d }}/f.conf:
  file.managed:
    - contents: one
echo watched >> {{ d }}/log:
  cmd.run:
    - watch:
      - file: {{ d }}/f.conf
""", setup=["printf one > \"$SCRATCH/f.conf\""], probe=W3_CMD_PROBE)
sc("cmd.run w3 watch chain", """
{{ d }}/f.conf:
  file.managed:
    - contents: one
first:
  cmd.run:
    - name: echo first >> {{ d }}/log
    - onchanges:
      - file: {{ d }}/f.conf
second:
  cmd.run:
    - name: echo second >> {{ d }}/log
    - onchanges:
      - cmd: first
third:
  cmd.wait:
    - name: echo third >> {{ d }}/log
    - watch:
      - cmd: second
""", probe=W3_CMD_PROBE)
for _t in (False, True):
    sc("cmd.run w3 prereq" + (" test" if _t else ""), """
{{ d }}/f.conf:
  file.managed:
    - contents: new
before:
  cmd.run:
    - name: cp {{ d }}/f.conf {{ d }}/f.conf.before 2>/dev/null; echo before >> {{ d }}/log
    - prereq:
      - file: {{ d }}/f.conf
""", setup=["printf old > \"$SCRATCH/f.conf\""], probe=W3_CMD_PROBE, test=_t)
sc("cmd.run w3 prereq unchanged", """
{{ d }}/f.conf:
  file.managed:
    - contents: new
before:
  cmd.run:
    - name: echo before >> {{ d }}/log
    - prereq:
      - file: {{ d }}/f.conf
""", setup=["printf new > \"$SCRATCH/f.conf\""], probe=W3_CMD_PROBE)
sc("cmd.run w3 prereq_in fail", """
{{ d }}/f.conf:
  file.managed:
    - contents: new
    - prereq_in:
      - cmd: before
before:
  cmd.run:
    - name: exit 3
""", setup=["printf old > \"$SCRATCH/f.conf\""], probe=W3_CMD_PROBE)
sc("cmd.run w3 onfail", """
bad:
  cmd.run:
    - name: exit 2
rescue:
  cmd.run:
    - name: echo rescued >> {{ d }}/log
    - onfail:
      - cmd: bad
skipped:
  cmd.run:
    - name: echo skipped >> {{ d }}/log
    - onfail:
      - cmd: rescue
""", probe=W3_CMD_PROBE)
sc("cmd.run w3 onchanges_any", """
{{ d }}/a.conf:
  file.managed:
    - contents: a
{{ d }}/b.conf:
  file.managed:
    - contents: b
echo any >> {{ d }}/log:
  cmd.run:
    - onchanges_any:
      - file: {{ d }}/a.conf
      - file: {{ d }}/b.conf
""", setup=["printf a > \"$SCRATCH/a.conf\""], probe=W3_CMD_PROBE)
sc("cmd.run w3 watch failing", """
{{ d }}/f.conf:
  file.managed:
    - source: salt://files/nope
echo watched >> {{ d }}/log:
  cmd.run:
    - watch:
      - file: {{ d }}/f.conf
""", probe=W3_CMD_PROBE)

# round 2, batch 2
w3_user("user.present w3 new password enforce", """
brtw3u1:
  user.present:
    - uid: 47801
    - password: '$6$w3salt$freshhash'
    - enforce_password: False
    - createhome: False
""", setup=(W3_MK_GROUPS,))
w3_user("user.present w3 optional_groups existing", """
brtw3u1:
  user.present:
    - groups: [brtw3g1]
    - optional_groups: [brtw3g2, brtw3nogroup]
""")
w3_user("user.present w3 gid missing", """
brtw3u1:
  user.present:
    - gid: brtw3nogroup
""", setup=(W3_MK_GROUPS,))
w3_user("user.present w3 shell home fullname", """
brtw3u1:
  user.present:
    - shell: /bin/bash
    - home: /srv/brtw3u1
    - fullname: ''
""", teardown=W3_IDS + ["rm -rf /srv/brtw3u1"])
w3_user("user.present w3 nologin system shell", """
brtw3u1:
  user.present:
    - uid: 47803
    - gid: 47811
    - shell: /usr/sbin/nologin
    - home: /nonexistent
    - createhome: False
    - usergroup: False
""", setup=(W3_MK_GROUPS,))
w3_user("group.absent w3 with members", """
brtw3g1:
  group.absent: []
""", setup=(W3_MK_GROUPS, W3_MK_USER1, "usermod -aG brtw3g1 brtw3u1"))
w3_user("group.present w3 members replace", """
brtw3g1:
  group.present:
    - members: [brtw3u2]
""", setup=(W3_MK_GROUPS, W3_MK_USER1, "useradd -u 47804 -M brtw3u2", "usermod -aG brtw3g1 brtw3u1"))
w3_user("user.absent w3 missing", """
brtw3u2:
  user.absent:
    - purge: True
""")
w3_cron("cron.absent w3 special", """
/bin/echo w3:
  cron.absent:
    - user: brtw3u1
    - special: '@hourly'
""", tab=W3_HDR + "@hourly /bin/echo w3\\n")
w3_cron("cron.present w3 two jobs", """
job-a:
  cron.present:
    - name: /bin/echo a
    - user: brtw3u1
    - minute: 1
job-b:
  cron.present:
    - name: /bin/echo b
    - user: brtw3u1
    - special: '@monthly'
""")
w3_cron("cron.present w3 range step", """
/bin/echo w3:
  cron.present:
    - user: brtw3u1
    - minute: '0,30'
    - hour: '8-17'
    - dayweek: '1-5'
""", tab=W3_HDR + "0,30 8-17 * * 1-5 /bin/echo w3\\n")
sc("file.managed w3 source list hash", """
{{ d }}/h.conf:
  file.managed:
    - source:
      - salt://files/nope.conf
      - salt://files/b.conf
    - source_hash: sha256=%s
    - user: root
    - group: root
    - mode: '0644'
""" % B_SHA, probe=FILE_PROBE)
sc("file.managed w3 source_hash change", """
{{ d }}/h.conf:
  file.managed:
    - source: salt://files/b.conf
    - source_hash: sha256=%s
""" % B_SHA, setup=["echo old > \"$SCRATCH/h.conf\""], probe=FILE_PROBE)
sc("file.managed w3 contents_pillar test", """
{{ d }}/p.conf:
  file.managed:
    - contents_pillar: w3:text
""", argv=["state.sls", "main", "pillar={\"w3\": {\"text\": \"from pillar\"}}"], probe=FILE_PROBE, test=True)
sc("file.managed w3 template context pillar", """
{{ d }}/t.conf:
  file.managed:
    - source: salt://files/t.j2
    - template: jinja
    - context:
        who: {{ pillar.get('w3', {}).get('who', 'x') }}
        n: 7
""", argv=["state.sls", "main", "pillar={\"w3\": {\"who\": \"pillar\"}}"], probe=FILE_PROBE)

w3_svc("service.running w3 watch force reload", W3_CONF + """
lighttpd:
  service.running:
    - reload: True
    - force: True
    - watch:
      - file: /etc/lighttpd/conf-available/99-brtw3.conf
""", start=[W3_START])
w3_svc("service.running w3 watch onchanges enable", W3_CONF + """
lighttpd:
  service.running:
    - enable: True
    - onchanges:
      - file: /etc/lighttpd/conf-available/99-brtw3.conf
""", start=[W3_STOP, W3_DISABLE])


def write_case(top, scen, idx):
    """Write one scenario as a conformance case dir; returns its path."""
    cdir = os.path.join(top, "c%03d" % idx)
    states = os.path.join(cdir, "states")
    os.makedirs(os.path.join(states, "files"))
    os.makedirs(os.path.join(cdir, "pillar"))
    with open(os.path.join(states, "main.sls"), "w") as fh:
        fh.write(scen["sls"])
    for rel, text in FILES.items():
        os.makedirs(os.path.dirname(os.path.join(states, rel)), exist_ok=True)
        with open(os.path.join(states, rel), "w") as fh:
            fh.write(text)
    data = {"description": scen["name"], "argv": scen["argv"], "timeout": scen["timeout"],
            "setup": scen["setup"], "probe": scen["probe"], "teardown": scen["teardown"]}
    if scen["config"]:
        data["config"] = scen["config"]
    if scen["pre"]:
        data["pre"] = scen["pre"]
    if scen["match"]:
        data["match"] = scen["match"]
    if not (data["setup"] or data["probe"] or data["teardown"]):
        data["teardown"] = ["true"]  # keep it a system case: run one at a time
    with open(os.path.join(cdir, "case.json"), "w") as fh:
        json.dump(data, fh, indent=2)
    return cdir


def run_one(caselib, prefix, cdir):
    case = caselib.load_case(cdir)
    norm, res, _ = caselib.run_case(prefix, case)
    if norm is None:
        why = res.error or ("timed out" if res.timed_out else "no JSON (exit %s)" % res.retcode)
        tail = (res.stdout.strip() + "\n" + res.stderr.strip()).strip().splitlines()[-6:]
        return None, why + "".join("\n| " + l for l in tail)
    return norm, None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--brine", default="/tmp/brine", help="brine binary (run as BRINE call ...)")
    ap.add_argument("--salt", default="/opt/saltoracle/bin/salt-call", help="salt-call of a Salt 3006")
    ap.add_argument("--conformance", default=os.path.join(here, "..", "..", "..", "shared", "conformance"),
                    help="dir holding caselib.py")
    ap.add_argument("-k", "--filter", default="", help="only scenarios whose name matches this regex")
    ap.add_argument("--strict-order", action="store_true", help="also compare JSON key order")
    ap.add_argument("-v", "--verbose", action="store_true", help="print both outputs on a difference")
    ap.add_argument("--list", action="store_true", help="list scenario names and exit")
    ap.add_argument("--start", type=int, default=0, help="skip the first N scenarios (of all, before -k)")
    ap.add_argument("--tmp", default=None, help="parent dir for temp case dirs")
    args = ap.parse_args()

    chosen = [s for s in SCENARIOS[args.start:] if re.search(args.filter, s["name"])]
    if args.list:
        for s in chosen:
            print(s["name"])
        return 0
    if os.geteuid() != 0:
        print("error: needs root (scenarios change the machine)", file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.abspath(args.conformance))
    import caselib  # noqa: E402

    if args.tmp:
        os.makedirs(args.tmp, exist_ok=True)
        tempfile.tempdir = args.tmp
    top = tempfile.mkdtemp(prefix="statediff-")
    salt, err1 = caselib.resolve_prefix([args.salt])
    brine, err2 = caselib.resolve_prefix([args.brine, "call"])
    if err1 or err2:
        print("error: %s" % (err1 or err2), file=sys.stderr)
        return 2
    same = differ = 0
    try:
        for i, scen in enumerate(chosen):
            cdir = write_case(top, scen, i)
            want, werr = run_one(caselib, salt, cdir)
            got, gerr = run_one(caselib, brine, cdir)
            if werr or gerr:
                lines = ["salt: " + (werr or "ok"), "brine: " + (gerr or "ok")]
                if not werr and not gerr:
                    lines = []
                d = lines or []
            else:
                d = []
            if want is not None and got is not None:
                d = caselib.diff(want, got, ordered=args.strict_order)
            elif not d:
                d = ["one side gave no output"]
            if d:
                differ += 1
                print("DIFF %s" % scen["name"])
                for line in d[:40]:
                    print("    " + line)
                if args.verbose and want is not None and got is not None:
                    print("    --- salt\n" + caselib.dumps(want) + "    --- brine\n" + caselib.dumps(got))
            else:
                same += 1
                print("same %s" % scen["name"])
            sys.stdout.flush()
    finally:
        shutil.rmtree(top, ignore_errors=True)
    print("%d same, %d differ" % (same, differ))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
