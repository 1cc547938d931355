#!/usr/bin/env python3
"""Differential sweep: brine's read-only execution functions against Salt.

Runs each case below through `salt-call --local --out json` and through
`brine call --local --out json` with the same minion config (own root_dir,
file_client: local, file and pillar roots holding a small fixture tree)
and prints a table: same / diff, and for each difference a unified diff
of the two normalised outputs (key order kept, so an order difference
shows). Exit codes are compared too.

Nothing here runs in CI: it needs a Salt 3006 install (the default is
/opt/saltoracle/bin/salt-call) and a brine binary. Only read-only
functions are listed; the fixture files live in a fresh temp directory.

Usage (from the repository root):

    go build -o /tmp/brine ./cmd/brine
    python3 tools/saltdiff/saltdiff.py --brine /tmp/brine [-k REGEX] [-v]

Normalising: timestamps, PIDs and versions differ legitimately, so a case
may say how to compare ("types": only the shape and leaf types; "keys":
top-level keys and leaf types; "sorted": lists compared as sorted; "drop":
paths removed from both sides). Everything else is compared exactly:
a key brine has and Salt does not is a difference.
"""

import argparse
import collections
import concurrent.futures
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile


class Case:
    def __init__(self, func, *args, mode="exact", drop=(), note="", name=None):
        self.func = func
        self.args = [str(a) for a in args]
        self.mode = mode
        self.drop = drop
        self.note = note
        self.name = name or " ".join([func] + self.args)


F = "{fx}"  # replaced by the fixture directory

CASES = [
    # test
    Case("test.true"), Case("test.false"), Case("test.ping"),
    Case("test.echo", "hello"), Case("test.arg", "1", "a", "b=2"),
    Case("test.arg_type", "1", "a", "1.5", "True"),
    Case("test.arg_repr", "1", "a"), Case("test.arg_clean", "1", "x=2"),
    Case("test.kwarg", "a=1", "b=x"), Case("test.fib", "10", mode="fib"),
    Case("test.collatz", "7", mode="fib"), Case("test.retcode", "3"),
    Case("test.outputter", "x"), Case("test.tty", "/dev/null"),
    Case("test.provider", "pkg"), Case("test.providers"),
    Case("test.conf_test"), Case("test.try", "test.echo", "x"),
    Case("test.assertion", "True"), Case("test.assertion", "False"),
    Case("test.exception", "boom"), Case("test.not_loaded"),
    Case("test.rand_str", mode="types"), Case("test.random_hash", mode="types"),
    Case("test.version", mode="types"),
    # sys
    Case("sys.list_modules", mode="skip"), Case("sys.argspec", "test.echo"),
    Case("sys.argspec", "file.read"), Case("sys.argspec", "pkg.version"),
    Case("sys.list_renderers", mode="sorted"),
    Case("sys.list_state_functions", "file", mode="skip"),
    Case("sys.state_argspec", "file.managed"),
    # grains
    Case("grains.get", "os"), Case("grains.get", "os_family"),
    Case("grains.get", "osfinger"), Case("grains.get", "kernel"),
    Case("grains.get", "nosuch", "dflt"), Case("grains.item", "os", "osrelease"),
    Case("grains.ls", mode="sorted"), Case("grains.get", "ipv4"),
    Case("grains.get", "locale_info"), Case("grains.get", "ps"),
    Case("grains.get", "zfs_support"), Case("grains.get", "zfs_feature_flags"),
    Case("grains.get", "cpu_model"), Case("grains.get", "mem_total"),
    Case("grains.get", "num_cpus"), Case("grains.get", "fqdn"),
    Case("grains.get", "dns"), Case("grains.get", "ip_interfaces"),
    Case("grains.get", "hwaddr_interfaces"), Case("grains.get", "virtual"),
    Case("grains.get", "init"), Case("grains.get", "systemd"),
    Case("grains.get", "lsb_distrib_codename"), Case("grains.get", "osarch"),
    Case("grains.get", "kernelparams"), Case("grains.get", "selinux"),
    Case("grains.has_value", "os"), Case("grains.equals", "os", "Debian"),
    Case("grains.filter_by", '{"Debian": 1, "RedHat": 2}'),
    # config, pillar, match, defaults, slsutil
    Case("config.get", "file_client"), Case("config.get", "id"),
    Case("config.get", "nosuch", "d"), Case("config.option", "file_roots"),
    Case("config.valid_fileproto", "salt://x"), Case("config.manage_mode", "0644"),
    Case("config.dot_vals", "file"), Case("config.backup_mode"),
    Case("pillar.items"), Case("pillar.get", "app:port"),
    Case("pillar.get", "nosuch", "d"), Case("pillar.item", "app"),
    Case("pillar.keys", "app"), Case("pillar.ls"), Case("pillar.raw"),
    Case("pillar.file_exists", "top.sls"), Case("pillar.obfuscate"),
    Case("match.glob", "w7*"), Case("match.list", "a,w7minion"),
    Case("match.pcre", "w7.*"), Case("match.grain", "os:Debian"),
    Case("match.pillar", "app:port:8080"), Case("match.compound", "G@os:Debian and w7*"),
    Case("match.ipcidr", "127.0.0.0/8"), Case("match.filter_by", '{"w7*": 1, "*": 2}'),
    Case("match.search_by", '{"a": ["w7*"], "b": ["x"]}'),
    Case("defaults.merge", '{"a": 1}', '{"b": 2}'), Case("defaults.deepcopy", '{"a": [1]}'),
    Case("defaults.update", '{"a": 1}', '{"a": 2}'),
    Case("slsutil.merge", '{"a": 1}', '{"b": 2}'), Case("slsutil.boolstr", "True"),
    Case("slsutil.file_exists", "web/init.sls"), Case("slsutil.dir_exists", "web"),
    Case("slsutil.path_exists", "web"), Case("slsutil.findup", "web", "init.sls"),
    Case("slsutil.renderer", "salt://web/init.sls"),
    Case("slsutil.serialize", "json", "obj={\"a\": 1}"),
    Case("slsutil.deserialize", "yaml", "a: 1"), Case("slsutil.banner"),
    # cp
    Case("cp.list_master"), Case("cp.list_master_dirs"), Case("cp.list_master_symlinks"),
    Case("cp.list_states"), Case("cp.envs"), Case("cp.list_minion", mode="types"),
    Case("cp.hash_file", "salt://web/init.sls"), Case("cp.get_file_str", "salt://web/init.sls"),
    Case("cp.is_cached", "salt://web/init.sls"),
    # data
    Case("data.items"), Case("data.get", "nosuch"), Case("data.keys"), Case("data.has_key", "x"),
    # file readers
    Case("file.file_exists", F + "/a.txt"), Case("file.directory_exists", F),
    Case("file.read", F + "/a.txt"), Case("file.contains", F + "/a.txt", "beta"),
    Case("file.contains_regex", F + "/a.txt", "^al"), Case("file.search", F + "/a.txt", "gam"),
    Case("file.grep", F + "/a.txt", "beta"), Case("file.get_mode", F + "/a.txt"),
    Case("file.get_user", F + "/a.txt"), Case("file.get_group", F + "/a.txt"),
    Case("file.get_uid", F + "/a.txt"), Case("file.get_gid", F + "/a.txt"),
    Case("file.get_hash", F + "/a.txt"), Case("file.get_sum", F + "/a.txt"),
    Case("file.stats", F + "/a.txt", mode="stats"), Case("file.lstat", F + "/a.txt", mode="stats"),
    Case("file.readdir", F), Case("file.find", F, "type=f", mode="sorted"),
    Case("file.is_link", F + "/link"), Case("file.readlink", F + "/link"),
    Case("file.is_fifo", F + "/a.txt"), Case("file.is_blkdev", F + "/a.txt"),
    Case("file.is_chrdev", "/dev/null"), Case("file.get_devmm", "/dev/null"),
    Case("file.basename", "/a/b.txt"), Case("file.dirname", "/a/b.txt"),
    Case("file.join", "/a", "b", "c"), Case("file.normpath", "/a/./b/../c"),
    Case("file.pardir"), Case("file.seek_read", F + "/a.txt", "5", "2"),
    Case("file.user_to_uid", "root"), Case("file.uid_to_user", "0"),
    Case("file.group_to_gid", "root"), Case("file.gid_to_group", "0"),
    Case("file.access", F + "/a.txt", "f"), Case("file.path_exists_glob", F + "/*.txt"),
    Case("file.list_backups", F + "/a.txt"), Case("file.lsattr", F + "/a.txt"),
    Case("file.check_hash", F + "/a.txt", "md5=00000000000000000000000000000000"),
    Case("file.extract_hash", F + "/sums", "sha256", "a.txt"),
    Case("file.diskusage", F), Case("file.sed_contains", F + "/a.txt", "beta"),
    Case("file.statvfs", F, mode="types"),
    Case("file.read", F + "/nosuch"), Case("file.get_mode", F + "/nosuch"),
    # archive, git
    Case("archive.list", F + "/t.tar"), Case("archive.list", F + "/t.tar", "verbose=True"),
    Case("archive.is_encrypted", F + "/t.tar"),
    Case("git.current_branch", F + "/repo"), Case("git.list_branches", F + "/repo"),
    Case("git.list_tags", F + "/repo"), Case("git.revision", F + "/repo"),
    Case("git.status", F + "/repo"), Case("git.remotes", F + "/repo"),
    Case("git.config_get", "user.name", "cwd=" + F + "/repo"),
    Case("git.describe", F + "/repo"), Case("git.is_worktree", F + "/repo"),
    Case("git.rev_parse", F + "/repo", "HEAD"), Case("git.symbolic_ref", F + "/repo", "HEAD"),
    Case("git.list_worktrees", F + "/repo"), Case("git.version", mode="types"),
    # network
    Case("network.interfaces"), Case("network.ip_addrs"), Case("network.ip_addrs6"),
    Case("network.subnets"), Case("network.subnets6"), Case("network.hw_addr", "lo"),
    Case("network.interface", "lo"), Case("network.interface_ip", "lo"),
    Case("network.get_hostname"), Case("network.get_fqdn"),
    Case("network.default_route"), Case("network.routes"),
    Case("network.calc_net", "10.1.2.3/24"), Case("network.convert_cidr", "10.1.2.3/24"),
    Case("network.in_subnet", "127.0.0.0/8"), Case("network.ip_in_subnet", "10.1.2.3", "10.0.0.0/8"),
    Case("network.is_loopback", "127.0.0.1"), Case("network.is_private", "10.0.0.1"),
    Case("network.iphexval", "10.0.0.1"), Case("network.reverse_ip", "10.1.2.3"),
    Case("network.ip_networks"), Case("network.ifacestartswith", "127"),
    Case("network.get_bufsize", "lo"), Case("network.get_route", "127.0.0.1"),
    Case("network.fqdns"),
    # disk, status
    Case("disk.usage", mode="types"), Case("disk.inodeusage", mode="types"),
    Case("disk.percent", "/", mode="types"), Case("disk.fstype", "/", mode="types"),
    Case("disk.blkid", mode="keys"), Case("disk.get_fstype_from_path", "/", mode="types"),
    Case("status.loadavg", mode="types"), Case("status.nproc"), Case("status.cpuinfo", mode="keys"),
    Case("status.meminfo", mode="keys"), Case("status.uptime", mode="keys"),
    Case("status.version"), Case("status.cpustats", mode="keys"),
    Case("status.diskstats", mode="keys"), Case("status.netdev", mode="keys"),
    Case("status.vmstats", mode="keys"), Case("status.netstats", mode="keys"),
    Case("status.pid", "nosuchprocessname"), Case("status.diskusage", "/", mode="types"),
    Case("status.time", "%Y", mode="types"),
    # packages, services
    Case("pkg.version", "bash"), Case("pkg.version", "bash", "coreutils"),
    Case("pkg.version", "nosuchpkg"), Case("pkg.list_pkgs", mode="same_keys"),
    Case("pkg.info_installed", "bash"), Case("pkg.info_installed", "bash", "attr=version,arch"),
    Case("pkg.version_cmp", "1.0", "1.1"), Case("pkg.normalize_name", "bash:amd64"),
    Case("pkg.parse_arch", "bash:amd64"), Case("pkg.owner", "/bin/bash"),
    Case("pkg.file_list", "bash", mode="sorted"), Case("pkg.list_repos", mode="keys"),
    Case("pkg.get_selections", "bash"), Case("pkg.list_downloaded"),
    Case("pkg.services_need_restart", mode="types"),
    Case("lowpkg.info", "bash"), Case("lowpkg.file_list", "bash", mode="sorted"),
    Case("lowpkg.list_pkgs", "bash"),
    Case("service.available", "cron"), Case("service.missing", "nosuch"),
    Case("service.status", "cron"), Case("service.enabled", "cron"),
    Case("service.disabled", "cron"), Case("service.get_all", mode="sorted"),
    Case("service.get_enabled", mode="sorted"), Case("service.get_disabled", mode="sorted"),
    Case("service.get_static", mode="sorted"), Case("service.masked", "cron"),
    Case("service.execs", mode="keys"), Case("service.offline"),
    Case("service.show", "cron", mode="keys"),
    # users
    Case("user.info", "root"), Case("user.info", "nosuchuser"), Case("user.list_groups", "root"),
    Case("user.primary_group", "root"), Case("user.list_users", mode="sorted"),
    Case("user.get_loginclass", "root"), Case("group.info", "root"), Case("group.info", "nosuch"),
    Case("group.members", "root"), Case("shadow.info", "root", mode="shadow"),
    Case("shadow.default_hash"), Case("shadow.list_users", mode="sorted"),
    # system
    Case("locale.get_locale"), Case("locale.list_avail", mode="sorted"),
    Case("locale.avail", "en_US.UTF-8"), Case("timezone.get_zone"),
    Case("timezone.get_offset"), Case("timezone.get_zonecode"), Case("timezone.get_hwclock"),
    Case("timezone.zone_compare", "UTC"), Case("kmod.lsmod", mode="keys"),
    Case("kmod.mod_list"), Case("kmod.is_loaded", "nosuchmod"), Case("kmod.available", mode="sorted"),
    Case("sysctl.get", "kernel.ostype"), Case("sysctl.get", "net.ipv4.ip_forward"),
    Case("sysctl.default_config"),
    Case("cron.list_tab", "root"), Case("cron.raw_cron", "root"),
    Case("hosts.list_hosts"), Case("hosts.get_ip", "localhost"), Case("hosts.get_alias", "127.0.0.1"),
    Case("hosts.has_pair", "127.0.0.1", "localhost"),
    Case("dnsutil.parse_hosts"), Case("dnsutil.check_ip", "10.0.0.1"),
    Case("dnsutil.check_ip", "300.0.0.1"), Case("dnsutil.A", "localhost"),
    Case("random.get_str", "10", mode="types"), Case("random.rand_int", mode="types"),
    Case("random.hash", "x"), Case("random.str_encode", "x"), Case("random.seed", "10", "hash=x"),
    Case("random.sample", "[1,2,3]", "2", mode="types"), Case("random.shuffle", "[1,2,3]", mode="sorted"),
    Case("environ.get", "HOME"), Case("environ.has_value", "HOME"), Case("environ.item", "HOME"),
    Case("system.get_computer_desc"), Case("system.get_computer_name"),
    Case("system.has_settable_hwclock"),
    Case("debconf.show", "tzdata"), Case("alternatives.show_current", "editor"),
    Case("alternatives.check_exists", "editor", "/usr/bin/nosuch"),
    Case("alternatives.display", "editor"), Case("alternatives.show_link", "editor"),
    Case("ssh.user_keys", "root", mode="keys"), Case("ssh.host_keys", mode="keys"),
    Case("pip.version", mode="types"), Case("at.atq"),
    Case("mount.active", mode="keys"), Case("mount.fstab"), Case("mount.swaps"),
    Case("mount.is_mounted", "/"), Case("mount.get_mount_from_path", "/"),
    Case("ini.get_ini", F + "/x.ini"), Case("ini.get_option", F + "/x.ini", "s", "k"),
    Case("iptables.version", mode="types"), Case("nftables.version", mode="types"),
    Case("cmd.which", "sh"), Case("cmd.has_exec", "sh"), Case("cmd.shells"),
    Case("cmd.run", "echo hi"), Case("cmd.retcode", "false"),
    Case("virtualenv.get_site_packages", "/nosuch"),
    Case("saltutil.list_extmods"), Case("saltutil.running"),
    Case("nosuchmod.func"), Case("test.echo"),
]


def write_fixture(fx):
    os.makedirs(fx + "/roots/web", exist_ok=True)
    os.makedirs(fx + "/pillar", exist_ok=True)
    with open(fx + "/a.txt", "w") as f:
        f.write("alpha\nbeta\ngamma\n")
    os.symlink(fx + "/a.txt", fx + "/link")
    with open(fx + "/sums", "w") as f:
        f.write("ff" * 32 + "  a.txt\n")
    with open(fx + "/x.ini", "w") as f:
        f.write("[s]\nk = v\nn = 1\n")
    with tarfile.open(fx + "/t.tar", "w") as t:
        t.add(fx + "/a.txt", arcname="d/a.txt")
        t.add(fx + "/sums", arcname="sums")
    with open(fx + "/roots/top.sls", "w") as f:
        f.write("base:\n  '*':\n    - web\n")
    with open(fx + "/roots/web/init.sls", "w") as f:
        f.write("web-file:\n  file.managed:\n    - name: /tmp/x\n    - contents: {{ pillar['app']['port'] }}\n")
    with open(fx + "/pillar/top.sls", "w") as f:
        f.write("base:\n  '*':\n    - app\n")
    with open(fx + "/pillar/app.sls", "w") as f:
        f.write("app:\n  port: 8080\n  name: web\n")
    repo = fx + "/repo"
    os.makedirs(repo)
    env = dict(os.environ, GIT_AUTHOR_DATE="2020-01-01T00:00:00Z",
               GIT_COMMITTER_DATE="2020-01-01T00:00:00Z")
    for cmd in (["init", "-q", "-b", "main"], ["config", "user.name", "T"],
                ["config", "user.email", "t@x"]):
        subprocess.run(["git", "-C", repo] + cmd, check=True, env=env)
    with open(repo + "/f", "w") as f:
        f.write("x\n")
    subprocess.run(["git", "-C", repo, "add", "f"], check=True, env=env)
    subprocess.run(["git", "-C", repo, "commit", "-qm", "one"], check=True, env=env)
    subprocess.run(["git", "-C", repo, "tag", "v1"], check=True, env=env)


def write_conf(d, fx, root):
    os.makedirs(d, exist_ok=True)
    with open(d + "/minion", "w") as f:
        f.write("file_client: local\nid: w7minion\nroot_dir: %s\n"
                "file_roots:\n  base:\n    - %s/roots\n"
                "pillar_roots:\n  base:\n    - %s/pillar\n" % (root, fx, fx))


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -1, "", "timeout"


def parse(out):
    try:
        return json.loads(out, object_pairs_hook=collections.OrderedDict)
    except ValueError:
        return None


def typeshape(v):
    if isinstance(v, dict):
        return collections.OrderedDict((k, typeshape(x)) for k, x in v.items())
    if isinstance(v, list):
        return [typeshape(x) for x in v[:1]]
    return type(v).__name__


def sortlists(v):
    if isinstance(v, dict):
        return collections.OrderedDict((k, sortlists(x)) for k, x in v.items())
    if isinstance(v, list):
        return sorted((sortlists(x) for x in v), key=lambda x: json.dumps(x, sort_keys=True))
    return v


STAT_VOLATILE = {"atime", "ctime", "mtime"}


VOLATILE_KEYS = {"__pub_pid", "__pub_jid", "pid"}


def scrub(v):
    """Replace what differs from run to run (PIDs, job ids) by its type."""
    if isinstance(v, dict):
        return collections.OrderedDict(
            (k, type(x).__name__ if k in VOLATILE_KEYS else scrub(x)) for k, x in v.items())
    if isinstance(v, list):
        return [scrub(x) for x in v]
    if isinstance(v, str):
        return re.sub(r"'__pub_(pid|jid)': '?\d+'?", r"'__pub_\1': N", v)
    return v


def normalise(case, data):
    data = scrub(data)
    if case.mode == "types":
        return typeshape(data)
    if case.mode == "keys":
        if isinstance(data, dict):
            return collections.OrderedDict(
                (k, typeshape(v if not isinstance(v, dict) else next(iter(v.values()), None)))
                for k, v in data.items())
        return typeshape(data)
    if case.mode == "fib" and isinstance(data, list) and data:
        return data[:-1] + [typeshape(data[-1])]  # (result, seconds taken)
    if case.mode == "sorted":
        return sortlists(data)
    if case.mode == "same_keys" and isinstance(data, dict):
        return sorted(data)
    if case.mode == "stats" and isinstance(data, dict):
        return collections.OrderedDict(
            (k, (type(v).__name__ if k in STAT_VOLATILE else v)) for k, v in data.items())
    if case.mode == "shadow" and isinstance(data, dict):
        return collections.OrderedDict(
            (k, (type(v).__name__ if k == "passwd" else v)) for k, v in data.items())
    return data


def norm_text(s, fx, roots, fun):
    s = "\n".join(l for l in s.splitlines()
                  if "DeprecationWarning" not in l and not re.match(r"  import (crypt|spwd)$", l))
    # an exception Salt leaves to its global handler prints a traceback;
    # brine prints "Error running 'fun': message": compare the messages
    m = re.search(r"global exception handler:\n(\w+(?:\.\w+)*): ?(.*)", s)
    if m:
        s = "Error running '%s': %s" % (fun, m.group(2))
    # salt-call prints the function's docstring around invalid arguments:
    # brine its own doc; compare the message only
    m = re.search(r"Passed invalid arguments: .*", s)
    if m:
        s = m.group(0)
    s = s.replace(fx, "{fx}")
    for r in roots:
        s = s.replace(r, "{root}")
    s = re.sub(r"\[(ERROR|WARNING|INFO)\s*\]\s*", "[\\1] ", s)
    return s.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--salt-call", default="/opt/saltoracle/bin/salt-call")
    ap.add_argument("--brine", default="/tmp/brine")
    ap.add_argument("-k", default="", help="only cases whose name matches this regex")
    ap.add_argument("-j", type=int, default=2, help="parallel Salt calls")
    ap.add_argument("-v", action="store_true", help="print diffs of every differing case")
    ap.add_argument("--keep", action="store_true", help="keep the temp directory")
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="saltdiff-")
    fx = tmp + "/fx"
    os.makedirs(fx)
    write_fixture(fx)
    sconf, bconf = tmp + "/salt-conf", tmp + "/brine-conf"
    sroot, broot = tmp + "/salt-root", tmp + "/brine-root"
    write_conf(sconf, fx, sroot)
    write_conf(bconf, fx, broot)

    cases = [c for c in CASES if c.mode != "skip" and re.search(a.k, c.name)]

    def one(c):
        args = [x.replace(F, fx) for x in c.args]
        s = run([a.salt_call, "-c", sconf, "--local", "--out", "json", c.func] + args, 120)
        b = run([a.brine, "call", "-c", bconf, "--local", "--out", "json", c.func] + args, 120)
        return c, s, b

    rows = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as ex:
        for c, s, b in ex.map(one, cases):
            sj, bj = parse(s[1]), parse(b[1])
            if sj is not None and bj is not None:
                sv = json.dumps(normalise(c, sj), indent=1)
                bv = json.dumps(normalise(c, bj), indent=1)
            else:
                sv = norm_text(s[1] + "\n" + s[2] if sj is None else s[1], fx, [sroot], c.func)
                bv = norm_text(b[1] + "\n" + b[2] if bj is None else b[1], fx, [broot], c.func)
            sv, bv = sv.replace(fx, "{fx}"), bv.replace(fx, "{fx}")
            same = sv == bv and s[0] == b[0]
            rows.append((c, same, s[0], b[0], sv, bv))

    width = max(len(r[0].name) for r in rows)
    for c, same, sr, br, sv, bv in rows:
        status = "same" if same else "DIFF"
        print("%-*s  %-4s  rc salt=%d brine=%d%s" % (width, c.name.replace(F, ""), status, sr, br,
                                                      ("  (" + c.mode + ")") if c.mode != "exact" else ""))
    ndiff = sum(1 for r in rows if not r[1])
    print("\n%d cases, %d same, %d different" % (len(rows), len(rows) - ndiff, ndiff))
    if a.v:
        for c, same, sr, br, sv, bv in rows:
            if same:
                continue
            print("\n=== %s (rc salt=%d brine=%d)" % (c.name, sr, br))
            for line in difflib.unified_diff(sv.splitlines(), bv.splitlines(),
                                             "salt", "brine", lineterm="", n=2):
                print(line)
    if a.keep:
        print("kept", tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if ndiff else 0


if __name__ == "__main__":
    sys.exit(main())
