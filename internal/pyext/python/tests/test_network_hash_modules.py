import hashlib
import os
import tempfile
import unittest
from unittest import mock

import salt.modules.file as smf
import salt.utils.hashutils as sh
import salt.utils.network as sn
import salt.utils.validate.net as vn

IP_OUTPUT = """1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00
2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP mode DEFAULT group default qlen 1000
    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff
3: br0.10@br0: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN mode DEFAULT group default qlen 1000
    link/ether 52:54:00:aa:bb:cc brd ff:ff:ff:ff:ff:ff

1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00
    inet 127.0.0.1/8 scope host lo
       valid_lft forever preferred_lft forever
    inet6 ::1/128 scope host
       valid_lft forever preferred_lft forever
2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP group default qlen 1000
    link/ether 52:54:00:12:34:56 brd ff:ff:ff:ff:ff:ff
    inet 10.0.0.5/24 brd 10.0.0.255 scope global eth0
       valid_lft forever preferred_lft forever
    inet 10.0.0.6/24 brd 10.0.0.255 scope global secondary eth0:1
       valid_lft forever preferred_lft forever
    inet6 2001:db8::5/64 scope global
       valid_lft forever preferred_lft forever
    inet6 fe80::5054:ff:fe12:3456/64 scope link
       valid_lft forever preferred_lft forever
3: br0.10@br0: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN group default qlen 1000
    link/ether 52:54:00:aa:bb:cc brd ff:ff:ff:ff:ff:ff
"""

IFACES = sn._parse_ip_output(IP_OUTPUT)


class InterfaceTests(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(
            IFACES["eth0"],
            {
                "up": True,
                "hwaddr": "52:54:00:12:34:56",
                "inet": [{"address": "10.0.0.5", "netmask": "255.255.255.0", "broadcast": "10.0.0.255", "label": "eth0"}],
                "secondary": [{"address": "10.0.0.6", "netmask": "255.255.255.0", "broadcast": "10.0.0.255",
                               "label": "eth0:1", "type": "inet"}],
                "inet6": [{"address": "2001:db8::5", "prefixlen": "64", "scope": "global"},
                          {"address": "fe80::5054:ff:fe12:3456", "prefixlen": "64", "scope": "link"}],
            },
        )
        self.assertEqual(IFACES["br0.10"], {"up": False, "parent": "br0", "hwaddr": "52:54:00:aa:bb:cc"})
        self.assertEqual(IFACES["lo"]["inet"][0]["netmask"], "255.0.0.0")

    def test_addresses(self):
        self.assertEqual(sn.ip_addrs(interface_data=IFACES), ["10.0.0.5", "10.0.0.6"])
        self.assertEqual(sn.ip_addrs(interface_data=IFACES, include_loopback=True),
                         ["10.0.0.5", "10.0.0.6", "127.0.0.1"])
        self.assertEqual(sn.ip_addrs(interface="lo", interface_data=IFACES), [])
        self.assertEqual(sn.ip_addrs(interface="eth*", interface_data=IFACES), ["10.0.0.5", "10.0.0.6"])
        self.assertEqual(sn.ip_addrs6(interface_data=IFACES), ["2001:db8::5", "fe80::5054:ff:fe12:3456"])
        self.assertEqual(sn.ip_networks(interface_data=IFACES), ["10.0.0.0/24"])
        self.assertEqual(sn.ip_networks6(interface_data=IFACES), ["2001:db8::/64", "fe80::/64"])
        verbose = sn.ip_networks(interface_data=IFACES, verbose=True)
        self.assertEqual(verbose["10.0.0.0/24"]["num_addresses"], 256)
        with mock.patch.object(sn, "interfaces", return_value=IFACES):
            self.assertEqual(sn.subnets(), ["10.0.0.0/24"])
            self.assertEqual(sn.subnets6(), ["2001:db8::/64", "fe80::/64"])
            self.assertTrue(sn.in_subnet("10.0.0.0/8"))
            self.assertFalse(sn.in_subnet("192.168.0.0/16"))
            self.assertEqual(sn.hw_addr("eth0"), "52:54:00:12:34:56")
            self.assertEqual(sn.interface_ip("eth0"), "10.0.0.5")
            self.assertEqual(sn.interface("eth0")[0]["address"], "10.0.0.5")
            self.assertIn("not in available interfaces", sn.hw_addr("nope"))

    def test_live_host(self):
        # whatever this machine has: the call works and gives strings
        for addr in sn.ip_addrs(include_loopback=True) + sn.ip_addrs6(include_loopback=True):
            self.assertTrue(sn.is_ip(addr))


class AddressTests(unittest.TestCase):
    def test_in_subnet(self):
        self.assertTrue(sn.in_subnet("10.0.0.0/8", ["10.1.2.3"]))
        self.assertTrue(sn.in_subnet("10.0.0.0/8", "10.1.2.3"))
        self.assertFalse(sn.in_subnet("10.0.0.0/8", ["11.1.2.3"]))
        self.assertFalse(sn.in_subnet("10.0.0.1/8", ["10.1.2.3"]))  # invalid network (host bits)
        self.assertTrue(sn.in_subnet("2001:db8::/32", ["2001:db8::1"]))

    def test_arith(self):
        self.assertEqual(sn.calc_net("192.168.1.7", "255.255.255.0"), "192.168.1.0/24")
        self.assertEqual(sn.calc_net("192.168.1.7/16"), "192.168.0.0/16")
        self.assertEqual(sn.calc_net("2001:db8::1/64"), "2001:db8::/64")
        self.assertEqual(sn.get_net_start("192.168.1.7", "255.255.255.0"), "192.168.1.0")
        self.assertEqual(sn.get_net_size("255.255.255.0"), 24)
        self.assertEqual(sn.get_net_size("255.255.240.0"), 20)
        self.assertEqual(sn.cidr_to_ipv4_netmask(24), "255.255.255.0")
        self.assertEqual(sn.cidr_to_ipv4_netmask("20"), "255.255.240.0")
        self.assertEqual(sn.cidr_to_ipv4_netmask(32), "255.255.255.255")
        self.assertEqual(sn.cidr_to_ipv4_netmask(0), "")
        self.assertEqual(sn.cidr_to_ipv4_netmask("x"), "")
        self.assertEqual(sn.natural_ipv4_netmask("10.1.1.1"), "/8")
        self.assertEqual(sn.natural_ipv4_netmask("172.16.1.1"), "/16")
        self.assertEqual(sn.natural_ipv4_netmask("192.168.1.1", fmt="netmask"), "255.255.255.0")
        self.assertEqual(sn.rpad_ipv4_network("10.209"), "10.209.0.0")
        self.assertEqual(sn.hex2ip("0100007F", invert=True), "127.0.0.1")
        self.assertEqual(sn.hex2ip("7F000001"), "127.0.0.1")
        self.assertEqual(sn.hex2ip("zz"), "zz")
        # Salt ORs the universal/local bit in (RFC 4291 flips it): kept as is
        self.assertEqual(sn.mac2eui64("52:54:00:12:34:56"), "5254:00ff:fe12:3456")
        self.assertEqual(sn.mac2eui64("00:54:00:12:34:56"), "0254:00ff:fe12:3456")
        self.assertEqual(sn.mac2eui64("52:54:00:12:34:56", "fe80::/64"), "fe80::5254:ff:fe12:3456/64")
        self.assertEqual(sn.mac_str_to_bytes("08:00:27:13:69:77"), b"\x08\x00'\x13iw")
        self.assertEqual(sn.mac_str_to_bytes("080027136977"), b"\x08\x00'\x13iw")
        with self.assertRaises(ValueError):
            sn.mac_str_to_bytes("08:00")
        self.assertTrue(sn.gen_mac().startswith("AC:DE:48:"))

    def test_predicates(self):
        self.assertTrue(sn.is_ipv4("10.0.0.1"))
        self.assertFalse(sn.is_ipv4("10.0.0.256"))
        self.assertTrue(sn.is_ipv6("::1"))
        self.assertTrue(sn.is_ip("::1"))
        self.assertFalse(sn.is_ip("host"))
        self.assertTrue(sn.is_loopback("127.0.0.2"))
        self.assertFalse(sn.is_loopback("x"))
        self.assertTrue(sn.is_ipv4_subnet("10.0.0.0/8"))
        self.assertFalse(sn.is_ipv4_subnet("10.0.0.1/8"))
        self.assertFalse(sn.is_ipv4_subnet("10.0.0.0"))
        self.assertTrue(sn.is_subnet("2001:db8::/32"))
        self.assertTrue(sn.is_fqdn("host.example.com"))
        self.assertFalse(sn.is_fqdn("host"))
        self.assertFalse(sn.is_fqdn("-bad.example.com"))
        self.assertEqual(sn.sanitize_host("ho st!.ex"), "host.ex")
        self.assertEqual(sn.ip_bracket("::1"), "[::1]")
        self.assertEqual(sn.ip_bracket("[::1]", strip=True), "::1")
        self.assertEqual(sn.ip_bracket("10.0.0.1"), "10.0.0.1")
        self.assertEqual(sn.ipwrap(["::1", "10.0.0.1", "host"]), ["[::1]", "10.0.0.1", "host"])
        self.assertEqual(sn.parse_host_port("[::1]:80"), ("::1", 80))
        self.assertEqual(sn.parse_host_port("host:22"), ("host", 22))
        self.assertEqual(sn.parse_host_port("10.0.0.1"), ("10.0.0.1", None))
        self.assertEqual(sn.parse_host_port("2001:db8::1"), ("2001:db8::1", None))
        with self.assertRaises(ValueError):
            sn.parse_host_port("host:port")
        self.assertEqual(sn.filter_by_networks(["10.0.0.1", "11.0.0.1"], ["10.0.0.0/8"]), ["10.0.0.1"])
        self.assertEqual(sn.filter_by_networks({"e": ["10.0.0.1"]}, []), {"e": []})
        self.assertEqual(sn.filter_by_networks(["x"], None), ["x"])
        self.assertEqual(sn.host_to_ips("localhost") is None or "127.0.0.1" in sn.host_to_ips("localhost")
                         or "::1" in sn.host_to_ips("localhost"), True)
        self.assertFalse(sn.isportopen("127.0.0.1", 0))


class ValidateNetTests(unittest.TestCase):
    def test_validate(self):
        self.assertTrue(vn.mac("52:54:00:12:34:56"))
        self.assertTrue(vn.mac("52-54-00-12-34-56"))
        self.assertFalse(vn.mac("52:54:00:12:34"))
        self.assertTrue(vn.ipv4_addr("10.0.0.1"))
        self.assertTrue(vn.ipv4_addr("10.0.0.0/8"))
        self.assertFalse(vn.ipv4_addr("10.0.0.0/33"))
        self.assertFalse(vn.ipv4_addr("10.0.0.0/0"))
        self.assertFalse(vn.ipv4_addr("10.0.0"))
        self.assertFalse(vn.ipv4_addr(None))
        self.assertTrue(vn.ipv6_addr("::1/128"))
        self.assertTrue(vn.ip_addr("::1"))
        self.assertTrue(vn.netmask("255.255.255.0"))
        self.assertTrue(vn.netmask("255.255.128.0"))
        self.assertFalse(vn.netmask("24"))
        self.assertFalse(vn.netmask(24))
        # Salt's string-order quirk, kept as is
        self.assertFalse(vn.netmask("255.255.64.0"))
        self.assertTrue(vn.netmask("255.255.255.1"))


class HashutilsTests(unittest.TestCase):
    def test_digests(self):
        self.assertEqual(sh.md5_digest("abc"), hashlib.md5(b"abc").hexdigest())
        self.assertEqual(sh.sha1_digest(b"abc"), hashlib.sha1(b"abc").hexdigest())
        self.assertEqual(sh.sha256_digest("abc"), hashlib.sha256(b"abc").hexdigest())
        self.assertEqual(sh.sha512_digest("abc"), hashlib.sha512(b"abc").hexdigest())
        self.assertEqual(sh.base64_b64encode("abc"), "YWJj")
        self.assertEqual(sh.base64_b64decode("YWJj"), "abc")
        self.assertEqual(sh.base64_b64decode("/w=="), b"\xff")
        self.assertEqual(sh.base64_encodestring("abc"), "YWJj\n")
        self.assertEqual(sh.base64_decodestring("YWJj\n"), "abc")
        sig = sh.base64_b64encode(__import__("hmac").new(b"k", b"msg", hashlib.sha256).digest())
        self.assertTrue(sh.hmac_signature("msg", "k", sig))
        self.assertFalse(sh.hmac_signature("msg", "other", sig))
        self.assertEqual(len(sh.hmac_compute("msg", "k")), 64)
        self.assertEqual(len(sh.random_hash()), 32)

    def test_files(self):
        with tempfile.NamedTemporaryFile(delete=False) as fh:
            fh.write(b"content")
        try:
            self.assertEqual(sh.get_hash(fh.name), hashlib.sha256(b"content").hexdigest())
            self.assertEqual(sh.get_hash(fh.name, "md5"), hashlib.md5(b"content").hexdigest())
            with self.assertRaises(ValueError):
                sh.get_hash(fh.name, "nope")
            dc = sh.DigestCollector()
            dc.add(fh.name)
            self.assertEqual(dc.digest(), hashlib.sha256(b"content").hexdigest())
        finally:
            os.unlink(fh.name)


class ModulesFileTests(unittest.TestCase):
    def test_predicates(self):
        self.assertTrue(smf.directory_exists("/"))
        self.assertFalse(smf.directory_exists("/no/such/dir"))
        self.assertTrue(smf.file_exists(__file__))
        self.assertFalse(smf.file_exists("/"))
        with self.assertRaisesRegex(AttributeError, "__salt__\\['file.managed'\\]"):
            smf.managed  # noqa: B018


if __name__ == "__main__":
    unittest.main()


class CmdmodTests(unittest.TestCase):
    def test_run_all(self):
        import salt.modules.cmdmod as cmd

        ret = cmd.run_all("sh -c 'echo out; echo err >&2; exit 3'")
        self.assertEqual(ret["retcode"], 3)
        self.assertEqual(ret["stdout"], "out")
        self.assertEqual(ret["stderr"], "err")
        self.assertIsInstance(ret["pid"], int)
        self.assertEqual(cmd.run("sh -c 'echo out; echo err >&2'"), "out\nerr")
        self.assertEqual(cmd.run_stdout(["echo", "a b"]), "a b")
        self.assertEqual(cmd.run_stderr("sh -c 'echo e >&2'"), "e")
        self.assertEqual(cmd.retcode("false"), 1)
        self.assertEqual(cmd.retcode("sh -c 'exit 2'", success_retcodes=[2]), 0)
        # no shell unless python_shell=True
        self.assertEqual(cmd.run("echo $HOME"), "$HOME")
        self.assertEqual(cmd.run("echo $X", python_shell=True, env={"X": "y"}), "y")
        self.assertEqual(cmd.run("sh -c 'echo $LC_ALL$LC_CTYPE'"), "C")
        self.assertEqual(cmd.run("cat", stdin="in\n"), "in")
        self.assertEqual(cmd.run("pwd", cwd="/"), "/")
        self.assertEqual(cmd.run_all("echo x", rstrip=False)["stdout"], "x\n")
        self.assertEqual(cmd._run_all_quiet("true")["retcode"], 0)
        self.assertEqual(cmd._run_quiet("echo q"), "q")
        self.assertEqual(cmd._retcode_quiet("true"), 0)
        self.assertTrue(cmd.has_exec("sh"))
        from salt.exceptions import CommandExecutionError

        with self.assertRaisesRegex(CommandExecutionError, "Unable to run command"):
            cmd.run_all("/no/such/binary")
        with self.assertRaises(CommandExecutionError):
            cmd.run("true", cwd="relative")
        with self.assertRaises(CommandExecutionError):
            cmd.run("true", runas="nobody-such-user-x" if os.geteuid() else "nobody")
        self.assertEqual(cmd.run_all("sleep 5", timeout=0.2)["retcode"], 1)
