#!/usr/bin/env python3
"""Record Python's answers for brine's exec module tests.

Run from this directory: python3 gen_golden.py > golden.json
Each case is [function, [args...], repr(result)] computed the way Salt
3006's modules compute them (ipaddress, crypt, test.fib, test.collatz).
"""
import crypt
import ipaddress
import json
import warnings

warnings.simplefilter("ignore")
cases = []


def add(fun, args, result):
    cases.append([fun, args, repr(result)])


def err(fun, args, exc):
    cases.append([fun, args, "!" + str(exc)])


for c in ["10.1.2.3/24", "10.1.2.3/255.255.0.0", "10.1.2.3/0.0.0.255", "10.1.2.3", "192.168.0.1/32",
          "0.0.0.0/0", "2001:db8::1/64", "2001:db8::1", "fe80::1:2/10", "10.0.0.0/33", "bogus",
          "10.0.0.1/255.0.255.0", "::1/129", "10.0.0.1/024"]:
    try:
        n = ipaddress.ip_network(c, strict=False)
        add("network.calc_net", [c], str(n))
        add("network.convert_cidr", [c], {"network": str(n.network_address), "netmask": str(n.netmask),
                                          "broadcast": str(n.broadcast_address)})
    except ValueError as e:
        err("network.calc_net", [c], e)
for ip, mask in [("172.16.5.9", "255.240.0.0"), ("172.16.5.9", "12"), ("2001:db8::5", "48")]:
    add("network.calc_net", [ip, mask], str(ipaddress.ip_network("{}/{}".format(ip, mask), strict=False)))
for a in ["10.0.0.1", "100.64.0.1", "172.31.255.255", "172.32.0.1", "192.168.1.1", "8.8.8.8", "127.0.0.1",
          "169.254.1.1", "0.0.0.0", "255.255.255.255", "192.0.2.5", "::1", "fe80::1", "fc00::1", "2001:db8::1",
          "2606:4700::1111", "::", "::ffff:10.0.0.1"]:
    ip = ipaddress.ip_address(a)
    add("network.is_private", [a], ip.is_private)
    add("network.is_loopback", [a], ip.is_loopback)
    add("network.reverse_ip", [a], ip.reverse_pointer)
for ip, cidr in [("10.1.2.3", "10.0.0.0/8"), ("10.1.2.3", "10.2.0.0/16"), ("2001:db8::1", "2001:db8::/32"),
                 ("10.1.2.3", "2001:db8::/32")]:
    add("network.ip_in_subnet", [ip, cidr], ipaddress.ip_address(ip) in ipaddress.ip_network(cidr))

for pw, salt, alg in [("secret", "abcdefgh12345678", "sha512"), ("secret", "abcdefgh12345678", "sha256"),
                      ("pässwörd", "0123456789abcdefXYZ", "sha512"), ("secret", "rounds=6000$saltsalt", "sha512"),
                      ("secret", "abcdefgh", "md5"), ("a much longer password than sixteen", "xy$z", "md5"),
                      ("", "saltsalt", "md5")]:
    ident = {"sha512": "6", "sha256": "5", "md5": "1"}[alg]
    add("shadow.gen_password", [pw, salt, alg], crypt.crypt(pw, "${}${}".format(ident, salt)))
for pw, salt in [("x", "04$abcdefghijklmnopqrstuv"), ("", "05$zzzzzzzzzzzzzzzzzzzzzz"), ("a" * 80, "04$ABCDEFGHIJKLMNOPQRSTUV"),
                 ("pässwörd", "04$0123456789./abcdefABCD"), ("x", "abcdefghijklmnopqrstuv"), ("x", "03$abcdefghijklmnopqrstuv")]:
    add("shadow.gen_password", [pw, salt, "blowfish"], crypt.crypt(pw, "$2b$" + salt))
for pw, salt in [("password", "ab"), ("password", "abcdef"), ("", "./"), ("longer than eight", "Zz"),
                 ("pässwörd", "9x"), ("password", "a"), ("password", "!!")]:
    add("shadow.gen_password", [pw, salt, "crypt"], crypt.crypt(pw, salt))


def fib(num):
    if num < 2:
        return num
    prev, curr, i = 0, 1, 1
    while i < num:
        prev, curr = curr, prev + curr
        i += 1
    return curr


for n in [0, 1, 2, 10, 90, 100, 300]:
    add("test.fib", [n], fib(n))


def collatz(start):
    steps = []
    while start != 1:
        steps.append(start)
        if start > 1:
            if start % 2 == 0:
                start = start / 2
            else:
                start = start * 3 + 1
    return steps


for n in [1, 2, 6, 7, 27, 2 ** 60 + 1]:
    add("test.collatz", [n], collatz(n))

json.dump(cases, __import__("sys").stdout, indent=1, ensure_ascii=False)
print()
