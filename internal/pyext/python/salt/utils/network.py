"""
salt.utils.network for brine: address arithmetic and the host's
interfaces/addresses, as Salt 3006's (the subset custom modules use).

interfaces() reads ``ip link show`` and ``ip addr show`` (iproute2), as
Salt does on Linux, and returns Salt's structure::

    {"eth0": {"up": True, "hwaddr": "52:54:00:12:34:56",
              "inet": [{"address": "192.0.2.2", "netmask": "255.255.255.0",
                        "broadcast": "192.0.2.255", "label": "eth0"}],
              "inet6": [{"address": "fe80::1", "prefixlen": "64",
                         "scope": "link"}],
              "secondary": [...]}}

Without ``ip`` it returns {} (Salt falls back to ifconfig; brine does not).
"""

import ipaddress
import itertools
import logging
import random
import re
import socket
import subprocess
from collections.abc import Mapping, Sequence
from string import ascii_letters, digits

import salt.utils.args
import salt.utils.path

log = logging.getLogger(__name__)


# ------------------------------------------------------------- host names


def sanitize_host(host):
    """host with only the characters RFC 952/1123 allow (at most 255)."""
    allowed = ascii_letters + digits + ".-_"
    return "".join(c for c in host[0:255] if c in allowed)


def isportopen(host, port):
    """connect_ex() result for host:port (0 when open); False for a bad port."""
    if not 1 <= int(port) <= 65535:
        return False
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        return sock.connect_ex((sanitize_host(host), int(port)))
    finally:
        sock.close()


def host_to_ips(host):
    """The IP addresses host resolves to, or None."""
    ips = []
    try:
        for family, _, _, _, sockaddr in socket.getaddrinfo(host, 0, socket.AF_UNSPEC, socket.SOCK_STREAM):
            if family in (socket.AF_INET, socket.AF_INET6):
                ips.append(sockaddr[0])
    except Exception:  # pylint: disable=broad-except
        return None
    return ips or None


def get_socket(addr, type=socket.SOCK_STREAM, proto=0):  # noqa: A002 - Salt's name
    """A socket of the family of addr (IPv4 or IPv6)."""
    version = ipaddress.ip_address(addr).version
    family = socket.AF_INET if version == 4 else socket.AF_INET6
    return socket.socket(family, type, proto)


def get_fqhostname():
    """The fully qualified host name (socket.getfqdn, else the host name)."""
    fqdn = None
    try:
        addrinfo = socket.getaddrinfo(socket.gethostname(), 0, socket.AF_UNSPEC,
                                      socket.SOCK_STREAM, socket.SOL_TCP, socket.AI_CANONNAME)
        for info in addrinfo:
            if len(info) > 3 and info[3]:
                fqdn = info[3]
                break
    except (OSError, UnicodeError):
        pass
    return fqdn or socket.getfqdn()


def ip_to_host(ip):
    """The host name of ip (reverse lookup), or None."""
    try:
        hostname, _, _ = socket.gethostbyaddr(ip)
    except Exception as exc:  # pylint: disable=broad-except
        log.debug("salt.utils.network.ip_to_host(%r) failed: %s", ip, exc)
        hostname = None
    return hostname


def is_reachable_host(entity_name):
    """True if entity_name resolves."""
    try:
        return bool(socket.getaddrinfo(entity_name, 0, 0, 0, 0))
    except socket.gaierror:
        return False


def is_fqdn(hostname):
    """True if hostname is a fully qualified domain name."""
    compliant = re.compile(r"(?!-)[A-Z\d\-\_]{1,63}(?<!-)$", re.IGNORECASE)
    return (
        "." in hostname
        and len(hostname) < 0xFF
        and all(compliant.match(x) for x in hostname.rstrip(".").split("."))
    )


# --------------------------------------------------------------- addresses


def is_ip(ip_addr):
    """True for a valid IPv4 or IPv6 address."""
    return is_ipv4(ip_addr) or is_ipv6(ip_addr)


def is_ipv4(ip_addr):
    """True for a valid IPv4 address."""
    try:
        return ipaddress.ip_address(ip_addr).version == 4
    except ValueError:
        return False


def is_ipv6(ip_addr):
    """True for a valid IPv6 address."""
    try:
        return ipaddress.ip_address(ip_addr).version == 6
    except ValueError:
        return False


def is_loopback(ip_addr):
    """True for a loopback address."""
    try:
        return ipaddress.ip_address(ip_addr).is_loopback
    except ValueError:
        return False


def is_subnet(cidr):
    """True for an IPv4 or IPv6 network in CIDR notation."""
    return is_ipv4_subnet(cidr) or is_ipv6_subnet(cidr)


def is_ipv4_subnet(cidr):
    """True for an IPv4 network with a '/' (host bits must be zero)."""
    try:
        return "/" in cidr and bool(ipaddress.IPv4Network(cidr))
    except Exception:  # pylint: disable=broad-except
        return False


def is_ipv6_subnet(cidr):
    """True for an IPv6 network with a '/' (host bits must be zero)."""
    try:
        return "/" in cidr and bool(ipaddress.IPv6Network(cidr))
    except Exception:  # pylint: disable=broad-except
        return False


def _ipv4_to_bits(ipaddr):
    return "".join(bin(int(x))[2:].rjust(8, "0") for x in ipaddr.split("."))


def natural_ipv4_netmask(ip_addr, fmt="prefixlen"):
    """The classful mask of an IPv4 address: '/8', '/16' or '/24'
    (fmt='netmask': '255.0.0.0', ...)."""
    bits = _ipv4_to_bits(ip_addr)
    if bits.startswith("11"):
        mask = "24"
    elif bits.startswith("1"):
        mask = "16"
    else:
        mask = "8"
    if fmt == "netmask":
        return cidr_to_ipv4_netmask(mask)
    return "/" + mask


def rpad_ipv4_network(ip_addr):
    """'10.209' -> '10.209.0.0'."""
    return ".".join(itertools.islice(itertools.chain(ip_addr.split("."), "0000"), 0, 4))


def cidr_to_ipv4_netmask(cidr_bits):
    """24 (or '24') -> '255.255.255.0'; '' outside 1..32 or not a number."""
    try:
        cidr_bits = int(cidr_bits)
    except ValueError:
        return ""
    if not 1 <= cidr_bits <= 32:
        return ""
    octets = []
    for _ in range(4):
        if cidr_bits >= 8:
            octets.append("255")
            cidr_bits -= 8
        else:
            octets.append("{:d}".format(256 - 2 ** (8 - cidr_bits)))
            cidr_bits = 0
    return ".".join(octets)


def get_net_start(ipaddr, netmask):
    """The network address of ipaddr/netmask."""
    return str(ipaddress.ip_network("{}/{}".format(ipaddr, netmask), strict=False).network_address)


def get_net_size(mask):
    """'255.255.255.0' -> 24 (the prefix length of a dotted netmask)."""
    bits = "".join(bin(int(octet))[2:].zfill(8) for octet in mask.split("."))
    return len(bits.rstrip("0"))


def calc_net(ipaddr, netmask=None):
    """The network of ipaddr (CIDR, or with netmask) in CIDR notation:
    calc_net('192.168.1.7', '255.255.255.0') -> '192.168.1.0/24'."""
    if netmask is not None:
        ipaddr = "{}/{}".format(ipaddr, netmask)
    return str(ipaddress.ip_network(ipaddr, strict=False))


def hex2ip(hex_ip, invert=False):
    """An address from its hex form (as in /proc/net/tcp; invert=True for
    the little-endian order found there); the input on failure."""
    if len(hex_ip) == 32:
        groups = []
        for i in range(0, 32, 8):
            part = hex_ip[i : i + 8]
            b = [part[x : x + 2] for x in range(0, 8, 2)]
            if invert:
                groups.append("{}{}:{}{}".format(b[3], b[2], b[1], b[0]))
            else:
                groups.append("{}{}:{}{}".format(b[0], b[1], b[2], b[3]))
        try:
            address = ipaddress.IPv6Address(":".join(groups))
        except ipaddress.AddressValueError as exc:
            log.error("hex2ip - ipv6 address error: %s", exc)
            return hex_ip
        if address.ipv4_mapped:
            return str(address.ipv4_mapped)
        return address.compressed
    try:
        hip = int(hex_ip, 16)
    except ValueError:
        return hex_ip
    parts = [hip >> 24 & 255, hip >> 16 & 255, hip >> 8 & 255, hip & 255]
    if invert:
        parts.reverse()
    return "{}.{}.{}.{}".format(*parts)


def mac2eui64(mac, prefix=None):
    """The EUI-64 of a MAC address, or with prefix the IPv6 address/len."""
    eui64 = re.sub(r"[.:-]", "", mac).lower()
    eui64 = eui64[0:6] + "fffe" + eui64[6:]
    eui64 = hex(int(eui64[0:2], 16) | 2)[2:].zfill(2) + eui64[2:]
    if prefix is None:
        return ":".join(re.findall(r".{4}", eui64))
    try:
        net = ipaddress.ip_network(prefix, strict=False)
        return "{}/{}".format(net[int(eui64, 16)], net.prefixlen)
    except Exception:  # pylint: disable=broad-except
        return None


def gen_mac(prefix="AC:DE:48"):
    """A random MAC address with the given OUI prefix."""
    return "{}:{:02X}:{:02X}:{:02X}".format(
        prefix, random.randint(0, 0xFF), random.randint(0, 0xFF), random.randint(0, 0xFF)
    )


def mac_str_to_bytes(mac_str):
    """'08:00:27:13:69:77' (or without separators) -> 6 bytes."""
    if len(mac_str) == 17:
        mac_str = mac_str.replace(mac_str[2], "")
    elif len(mac_str) != 12:
        raise ValueError("Invalid MAC address")
    return bytes(int(mac_str[s : s + 2], 16) for s in range(0, 12, 2))


def ip_bracket(addr, strip=False):
    """An IPv6 address wrapped in [] (strip=True removes them)."""
    addr = ipaddress.ip_address(str(addr).lstrip("[").rstrip("]"))
    return ("[{}]" if addr.version == 6 and not strip else "{}").format(addr)


def ipwrap(data):
    """data (a string or a list) with IPv6 addresses wrapped in []."""
    if isinstance(data, (list, tuple)):
        return [ip_bracket(e) if is_ipv6(e) else e for e in data]
    return ip_bracket(data) if is_ipv6(data) else data


def parse_host_port(host_port):
    """(host, port) from 'host', 'host:port', '[v6]:port', 'v6' (port None
    when absent); ValueError for a bad port or host name."""
    host, port = None, None
    rest = host_port[:]
    if rest[0] == "[":
        if "]" in host_port:
            host, rest = rest.lstrip("[").rsplit("]", 1)
            host = ipaddress.IPv6Address(host).compressed
            if rest[:1] == ":":
                port = int(rest.lstrip(":"))
            elif len(rest) > 1:
                raise ValueError('found ambiguous "{}" port in "{}"'.format(rest, host_port))
    elif rest.count(":") == 1:
        host, _, port = rest.partition(":")
        try:
            port = int(port)
        except ValueError:
            msg = 'host_port "{}" port value "{}" is not an integer.'.format(host_port, port)
            log.error(msg)
            raise ValueError(msg)
    else:
        host = rest
    try:
        host = ipaddress.ip_address(host).compressed
    except ValueError:
        if host != sanitize_host(host):
            log.error('bad hostname: "%s"', host)
            raise ValueError('bad hostname: "{}"'.format(host))
    return host, port


def filter_by_networks(values, networks):
    """The IPs of values (a list, or a dict of lists) inside any of the
    networks; all of them when networks is None."""
    if networks is None:
        return values
    nets = [ipaddress.ip_network(n) for n in networks]

    def keep(ips):
        return [ip for ip in ips for net in nets if ipaddress.ip_address(ip) in net]

    if isinstance(values, Mapping):
        return {k: keep(v) for k, v in values.items()}
    if isinstance(values, Sequence):
        return keep(values)
    raise ValueError("Do not know how to filter a {}".format(type(values)))


# -------------------------------------------------------------- interfaces


def _run(argv):
    try:
        out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False).stdout
    except OSError:
        return ""
    return out.decode("utf-8", "replace")


def _parse_ip_output(out):
    """Interfaces from the text of `ip link show` + `ip addr show`."""
    ret = {}
    head = re.compile(r"^\d+:\s+([\w.\-]+)(?:@([\w.\-]+))?:\s+<([^>]*)>")
    current = None
    for line in out.splitlines():
        m = head.match(line)
        if m:
            name, parent, flags = m.groups()
            current = ret.setdefault(name, {})
            current["up"] = "UP" in flags.split(",")
            if parent:
                current["parent"] = parent
            continue
        if current is None:
            continue
        cols = line.split()
        if len(cols) < 2:
            continue
        kind, value = cols[0], cols[1]
        if kind.startswith("link/"):
            current["hwaddr"] = value
            continue
        if kind not in ("inet", "inet6"):
            continue
        ip, _, cidr = value.partition("/")
        addr = {"address": ip}
        if kind == "inet":
            addr["netmask"] = cidr_to_ipv4_netmask(int(cidr or 32))
            addr["broadcast"] = cols[cols.index("brd") + 1] if "brd" in cols else None
            addr["label"] = cols[-1]
        else:
            addr["prefixlen"] = cidr or "128"
            addr["scope"] = cols[cols.index("scope") + 1] if "scope" in cols else None
        if "secondary" in cols:
            addr["type"] = kind
            current.setdefault("secondary", []).append(addr)
        else:
            current.setdefault(kind, []).append(addr)
    return ret


def linux_interfaces():
    """The interfaces of a Linux host, from iproute2 ({} without `ip`)."""
    ip_path = salt.utils.path.which("ip")
    if not ip_path:
        log.warning("brine: 'ip' (iproute2) not found, no interface data")
        return {}
    return _parse_ip_output(_run([ip_path, "link", "show"]) + "\n" + _run([ip_path, "addr", "show"]))


def interfaces():
    """Information about every interface of the host (see the module
    docstring)."""
    return linux_interfaces()


def _get_iface_info(iface):
    info = interfaces()
    if iface in info:
        return info, False
    msg = 'Interface "{}" not in available interfaces: "{}"'.format(iface, '", "'.join(info))
    log.error(msg)
    return None, msg


def hw_addr(iface):
    """The MAC address of iface (an error text if there is no such iface)."""
    info, error = _get_iface_info(iface)
    if error is False:
        return info.get(iface, {}).get("hwaddr", "")
    return error


def interface(iface):
    """The inet entries of iface (an error text if there is no such iface)."""
    info, error = _get_iface_info(iface)
    if error is False:
        return info.get(iface, {}).get("inet", "")
    return error


def interface_ip(iface):
    """The first IPv4 address of iface ('' if none)."""
    info, error = _get_iface_info(iface)
    if error is False:
        inet = info.get(iface, {}).get("inet", None)
        return inet[0].get("address", "") if inet else ""
    return error


def _subnets(proto="inet", interfaces_=None):
    if interfaces_ is None:
        ifaces = interfaces()
    elif isinstance(interfaces_, list):
        ifaces = {k: v for k, v in interfaces().items() if k in interfaces_}
    else:
        ifaces = {interfaces_: interfaces().get(interfaces_, {})}
    if proto == "inet":
        key, default = "netmask", 32
    elif proto == "inet6":
        key, default = "prefixlen", 128
    else:
        log.error("Invalid proto %s calling subnets()", proto)
        return None
    ret = set()
    for info in ifaces.values():
        addrs = list(info.get(proto, []))
        addrs.extend(a for a in info.get("secondary", []) if a.get("type") == proto)
        for a in addrs:
            intf = ipaddress.ip_interface("{}/{}".format(a["address"], a.get(key, default)))
            if not intf.is_loopback:
                ret.add(intf.network)
    return [str(n) for n in sorted(ret)]


def subnets(interfaces=None):  # pylint: disable=redefined-outer-name
    """The IPv4 networks the host is in (loopback excluded)."""
    return _subnets("inet", interfaces_=interfaces)


def subnets6():
    """The IPv6 networks the host is in (loopback excluded)."""
    return _subnets("inet6")


def _get_ips(ifaces, proto="inet"):
    ret = []
    for info in ifaces.values():
        ret.extend(info.get(proto, []))
        ret.extend(a for a in info.get("secondary", []) if a.get("type") == proto)
    return ret


def _filter_interfaces(interface=None, interface_data=None):  # pylint: disable=redefined-outer-name
    import fnmatch

    ifaces = interface_data if isinstance(interface_data, dict) else interfaces()
    if interface is None:
        return ifaces
    pats = salt.utils.args.split_input(interface)
    return {k: v for k, v in ifaces.items() if any(fnmatch.fnmatch(k, p) for p in pats)}


def _ip_addrs(interface=None, include_loopback=False, interface_data=None, proto="inet"):  # pylint: disable=redefined-outer-name
    ret = set()
    for addr in _get_ips(_filter_interfaces(interface, interface_data), proto=proto):
        ip = ipaddress.ip_address(addr.get("address"))
        if not ip.is_loopback or include_loopback:
            ret.add(ip)
    return [str(a) for a in sorted(ret)]


def ip_addrs(interface=None, include_loopback=False, interface_data=None):  # pylint: disable=redefined-outer-name
    """The IPv4 addresses of the host, sorted (127.x only with
    include_loopback); interface (a name, glob or list) narrows them."""
    return _ip_addrs(interface, include_loopback, interface_data, "inet")


def ip_addrs6(interface=None, include_loopback=False, interface_data=None):  # pylint: disable=redefined-outer-name
    """The IPv6 addresses of the host, as ip_addrs()."""
    return _ip_addrs(interface, include_loopback, interface_data, "inet6")


def _ip_networks(interface=None, include_loopback=False, verbose=False, interface_data=None, proto="inet"):  # pylint: disable=redefined-outer-name
    ret = set()
    for addr in _get_ips(_filter_interfaces(interface, interface_data), proto=proto):
        ip = addr.get("address")
        net = addr.get("netmask" if proto == "inet" else "prefixlen")
        if ip and net:
            try:
                network = ipaddress.ip_network("{}/{}".format(ip, net), strict=False)
            except ValueError:
                continue
            if not network.is_loopback or include_loopback:
                ret.add(network)
    if not verbose:
        return [str(n) for n in sorted(ret)]
    return {
        str(n): {
            "address": str(n.network_address),
            "netmask": str(n.netmask),
            "num_addresses": n.num_addresses,
            "prefixlen": n.prefixlen,
        }
        for n in ret
    }


def ip_networks(interface=None, include_loopback=False, verbose=False, interface_data=None):  # pylint: disable=redefined-outer-name
    """The IPv4 networks of the host (verbose=True: a dict with details)."""
    return _ip_networks(interface, include_loopback, verbose, interface_data, "inet")


def ip_networks6(interface=None, include_loopback=False, verbose=False, interface_data=None):  # pylint: disable=redefined-outer-name
    """The IPv6 networks of the host (verbose=True: a dict with details)."""
    return _ip_networks(interface, include_loopback, verbose, interface_data, "inet6")


def in_subnet(cidr, addr=None):
    """True if addr (an address or a list of them; default: every address
    of the host) is inside the network cidr; False for a bad cidr."""
    try:
        cidr = ipaddress.ip_network(cidr)
    except ValueError:
        log.error("Invalid CIDR '%s'", cidr)
        return False
    if addr is None:
        addr = ip_addrs()
        addr.extend(ip_addrs6())
    elif not isinstance(addr, (list, tuple)):
        addr = (addr,)
    return any(ipaddress.ip_address(item) in cidr for item in addr)
