"""
salt.utils.validate.net for brine: validation of MAC/IP addresses and
netmasks, as Salt 3006's.
"""

import re
import socket

_MAC_RE = re.compile(
    r"""
    (^([0-9A-F]{1,2}[-]){5}([0-9A-F]{1,2})$
    |^([0-9A-F]{1,2}[:]){5}([0-9A-F]{1,2})$
    |^([0-9A-F]{1,2}[.]){5}([0-9A-F]{1,2})$)
    """,
    re.VERBOSE | re.IGNORECASE,
)


def mac(addr):
    """True for a MAC address (six groups of hex separated by - : or .)."""
    return _MAC_RE.match(addr) is not None


def _ip_addr(addr, family):
    mask_max = 128 if family == socket.AF_INET6 else 32
    if not isinstance(addr, str):
        return False
    if "/" not in addr:
        addr = "{}/{}".format(addr, mask_max)
    ip, mask = addr.rsplit("/", 1)
    try:
        socket.inet_pton(family, ip)
    except OSError:
        return False
    try:
        mask = int(mask)
    except ValueError:
        return False
    return 1 <= mask <= mask_max


def ipv4_addr(addr):
    """True for an IPv4 address, optionally with a /1../32 prefix length."""
    return _ip_addr(addr, socket.AF_INET)


def ipv6_addr(addr):
    """True for an IPv6 address, optionally with a /1../128 prefix length."""
    return _ip_addr(addr, socket.AF_INET6)


def ip_addr(addr):
    """ipv4_addr(addr) or ipv6_addr(addr)."""
    return ipv4_addr(addr) or ipv6_addr(addr)


def netmask(mask):
    """True for a dotted IPv4 netmask.

    As in Salt, the check is that the mask is an IPv4 address whose octets,
    compared as *strings*, do not increase: '255.255.255.0' and
    '255.255.128.0' pass, but so does '255.255.255.1', and '255.255.64.0'
    fails ('64' sorts above '255' as text)."""
    if not isinstance(mask, str):
        return False
    octets = mask.split(".")
    if len(octets) != 4:
        return False
    return ipv4_addr(mask) and octets == sorted(octets, reverse=True)
