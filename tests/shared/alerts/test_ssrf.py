import ipaddress

import pytest

from shared.alerts.ssrf import Allowlist, BlockedUrl, check_url, forbidden_reason

NONE = Allowlist.parse("")


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://localhost:8080/hook",
        "http://2130706433/",  # decimal
        "http://0x7f000001/",  # hex
        "http://0177.0.0.1/",  # octal
        "http://127.1/",  # short form
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",  # IPv4-mapped IPv6
        "http://[::ffff:169.254.169.254]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://100.100.100.200/",
        "http://10.1.2.3/",
        "http://172.16.0.1/",
        "http://192.168.1.1/",
        "http://100.64.0.1/",  # carrier-grade NAT
        "http://0.0.0.0/",
        "http://224.0.0.1/",  # multicast
        "http://240.0.0.1/",  # reserved
        "http://[2002:7f00:1::]/",  # 6to4 carrying 127.0.0.1
        "http://[fec0::1]/",  # deprecated site-local (fec0::/10)
        "http://[feff:ffff::1]/",  # its last address
    ],
)
def test_special_addresses_are_refused_in_any_spelling(url):
    with pytest.raises(BlockedUrl, match="not allowed"):
        check_url(url, NONE)


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://8.8.8.8/", "scheme"),
        ("file:///etc/passwd", "scheme"),
        ("http://user:secret@8.8.8.8/", "credentials"),
        ("http:///nohost", "no host"),
        ("http://does-not-exist.invalid/", "does not resolve"),
        ("http://8.8.8.8:0/", "invalid port: 0"),  # never read as the default port 80
        ("https://8.8.8.8:00/hook", "invalid port: 0"),
    ],
)
def test_malformed_or_unresolvable_urls_are_refused(url, reason):
    with pytest.raises(BlockedUrl, match=reason):
        check_url(url, NONE)


def test_public_address_passes_and_the_checked_address_is_pinned():
    target = check_url(
        "https://hooks.example.com:8443/in?x=1", NONE, resolver=lambda h, p: ["93.184.216.34"]
    )
    assert target.pinned_url == "https://93.184.216.34:8443/in?x=1"
    assert target.host_header == "hooks.example.com:8443"
    assert target.host == "hooks.example.com"


def test_any_bad_address_among_several_refuses_the_name():
    with pytest.raises(BlockedUrl, match="10.0.0.5"):
        check_url(
            "http://mixed.example/", NONE, resolver=lambda h, p: ["93.184.216.34", "10.0.0.5"]
        )


def test_allowlist_admits_named_hosts_and_networks_only():
    allow = Allowlist.parse("127.0.0.1/32, receiver.internal")
    assert check_url("http://127.0.0.1:9000/", allow).address == "127.0.0.1"
    internal = check_url("http://receiver.internal/", allow, resolver=lambda h, p: ["10.9.9.9"])
    assert internal.address == "10.9.9.9"
    with pytest.raises(BlockedUrl):
        check_url("http://127.0.0.2/", allow)
    with pytest.raises(BlockedUrl):
        check_url("http://169.254.169.254/", allow)


def test_reasons_name_the_kind_of_address():
    assert forbidden_reason(ipaddress.ip_address("169.254.169.254")) == "cloud metadata"
    assert forbidden_reason(ipaddress.ip_address("127.0.0.1")) == "loopback"
    assert forbidden_reason(ipaddress.ip_address("8.8.8.8")) is None
