"""The SSRF case table: security.md section 3 (address categories) and section 4 (parser pitfalls), with verdicts.

Each case is a URL, the fake DNS every case shares (ssrf_core.FAKE_DNS), optional operator-allowed CIDRs, and the
expected verdict: ALLOW or the rule name the refusal must carry. tests/net/test_guard.py runs one test per case;
bench/ssrf_table.py prints the per-category summary.
"""

from __future__ import annotations

from ipaddress import IPv4Address

from .ssrf_core import ALLOW, Case, cases_in, range_cases, teredo, transition_cases, url_for

METADATA = "cloud metadata (always denied)"
_METADATA_CASES = [
    *cases_in(
        METADATA,
        [
            (ip, url_for(ip), "cloud_metadata")
            for ip in [
                "169.254.169.254",
                "169.254.170.2",
                "169.254.170.23",
                "169.254.42.42",
                "168.63.129.16",
                "100.100.100.200",
                "192.0.0.192",
                "fd00:ec2::254",
                "fd00:ec2::23",
                "fd20:ce::254",
                "fd00:42::42",
            ]
        ],
    ),
    *cases_in(
        METADATA,
        [
            ("mapped 169.254.169.254", "http://[::ffff:169.254.169.254]/", "cloud_metadata"),
            ("mapped hex ::ffff:a9fe:a9fe", "http://[::ffff:a9fe:a9fe]/", "cloud_metadata"),
            ("compatible ::a9fe:a9fe", "http://[::a9fe:a9fe]/", "cloud_metadata"),
            ("NAT64 Azure wireserver", "http://[64:ff9b::a83f:8110]/", "cloud_metadata"),
            ("local NAT64 /96", "http://[64:ff9b:1::a9fe:a9fe]/", "cloud_metadata"),
            ("6to4 2002:a9fe:a9fe::", "http://[2002:a9fe:a9fe::]/", "cloud_metadata"),
            ("Teredo client", f"http://[{teredo(IPv4Address('169.254.169.254'))}]/", "cloud_metadata"),
            ("RFC 6052 /40 network-specific prefix", "http://[2a00:1450:40a9:fea9:fe::]/", "cloud_metadata"),
            ("decimal 2852039166", "http://2852039166/", "cloud_metadata"),
            ("name metadata.google.internal", "http://metadata.google.internal/", "cloud_metadata"),
            ("name resolving to Alibaba", "http://alibaba-meta.example/", "cloud_metadata"),
            ("name resolving to NAT64 metadata", "http://nat64-meta.example/", "cloud_metadata"),
        ],
    ),
    *cases_in(
        METADATA, [("allow 169.254/16: metadata", "http://169.254.169.254/", "cloud_metadata")], ("169.254.0.0/16",)
    ),
    *cases_in(
        METADATA, [("allow 0.0.0.0/0: Azure wireserver", "http://168.63.129.16/", "cloud_metadata")], ("0.0.0.0/0",)
    ),
    *cases_in(METADATA, [("allow fc00::/7: AWS IPv6", "http://[fd00:ec2::254]/", "cloud_metadata")], ("fc00::/7",)),
    *cases_in(
        METADATA, [("allow 100.64/10: Alibaba", "http://100.100.100.200/", "cloud_metadata")], ("100.64.0.0/10",)
    ),
    *cases_in(METADATA, [("allow 192.0.0/24: Oracle", "http://192.0.0.192/", "cloud_metadata")], ("192.0.0.0/24",)),
]

_EXTRA_ADDRESS_CASES = cases_in(
    "other special ranges",
    [
        ("6to4 relay anycast 192.88.99.1", "http://192.88.99.1/", "6to4_relay"),
        ("IETF IPv6 2001:2::1 (benchmarking)", "http://[2001:2::1]/", "ietf_protocol"),
        ("IPv6 outside 2000::/3: 4000::1", "http://[4000::1]/", "reserved"),
        ("IPv6 outside 2000::/3: 64:ff9c::1", "http://[64:ff9c::1]/", "reserved"),
        ("ISATAP carrying 10.0.0.1", "http://[2001:4860:1::5efe:a00:1]/", "private"),
    ],
)

NUMERIC = "parser: numeric IPv4 forms"
_NUMERIC_CASES = cases_in(
    NUMERIC,
    [
        ("decimal 2130706433", "http://2130706433/", "loopback"),
        ("octal 017700000001", "http://017700000001/", "loopback"),
        ("hex 0x7f000001", "http://0x7f000001/", "loopback"),
        ("hex short 0x7f.1", "http://0x7f.1/", "loopback"),
        ("hex dotted 0x7f.0x0.0x0.0x1", "http://0x7f.0x0.0x0.0x1/", "loopback"),
        ("upper-case hex 0X7F.1", "http://0X7F.1/", "loopback"),
        ("short 127.1", "http://127.1/", "loopback"),
        ("short 127.0.1", "http://127.0.1/", "loopback"),
        ("octal short 0177.1", "http://0177.1/", "loopback"),
        ("zero 0", "http://0/", "this_network"),
        ("hex zero 0x0", "http://0x0/", "this_network"),
        ("mixed 0251.0376.43518", "http://0251.0376.43518/", "cloud_metadata"),
        ("hex 0xa9fea9fe", "http://0xa9fea9fe/", "cloud_metadata"),
        ("short 10.1", "http://10.1/", "private"),
        ("short 192.168.257", "http://192.168.257/", "private"),
        ("trailing dot 127.0.0.1.", "http://127.0.0.1./", "loopback"),
        ("octal dotted 0177.0.0.1 (httpx refuses)", "http://0177.0.0.1/", "invalid_url"),
        ("padded 0251.00376.000251.0000376", "http://0251.00376.000251.0000376/", "invalid_url"),
        ("five parts 1.2.3.4.5", "http://1.2.3.4.5/", "invalid_host"),
        ("over 32 bits 4294967296", "http://4294967296/", "invalid_host"),
        ("empty hex 0x.1.1.1", "http://0x.1.1.1/", "invalid_host"),
        ("bad octal 08.1", "http://08.1/", "invalid_host"),
        ("part over 255 256.1", "http://256.1/", "invalid_host"),
        ("last part too big 1.16777216", "http://1.16777216/", "invalid_host"),
        ("numeric last label example.123", "http://example.123/", "invalid_host"),
        ("public decimal 134744072", "http://134744072/", ALLOW),
        ("public hex 0x08080808", "http://0x08080808/", ALLOW),
        ("public short 1.16777215", "http://1.16777215/", ALLOW),
    ],
)

UNICODE = "parser: unicode digits and dots"
_UNICODE_CASES = cases_in(
    UNICODE,
    [
        ("circled digits", "http://①②⑦.⓪.⓪.①/", "invalid_url"),
        ("fullwidth digits", "http://１２７.０.０.１/", "invalid_url"),
        ("mathematical bold digits", "http://𝟏𝟐𝟕.0.0.1/", "invalid_url"),
        ("circled letters localhost", "http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/", "invalid_url"),
        ("fullwidth letters LOCALHOST", "http://ＬＯＣＡＬＨＯＳＴ/", "invalid_url"),
        ("zero-width space in host", "http://127.0.0.1\u200b/", "invalid_url"),
        ("ideographic full stops", "http://127。0。0。1/", "loopback"),
        ("halfwidth ideographic full stops", "http://127｡0｡0｡1/", "loopback"),
        ("fullwidth full stops", "http://127．0．0．1/", "loopback"),
        ("ideographic dot in a name", "http://internal。example/", "private"),
        ("IDN name resolving public", "http://münchen.example/", ALLOW),
    ],
)

IPV6_FORMS = "parser: IPv6 literal forms and brackets"
_IPV6_CASES = cases_in(
    IPV6_FORMS,
    [
        ("expanded loopback", "http://[0:0:0:0:0:0:0:1]/", "loopback"),
        ("zero-padded loopback", "http://[0000::1]/", "loopback"),
        ("unspecified 0::0", "http://[0::0]/", "unspecified"),
        ("upper-case FE80::1", "http://[FE80::1]/", "link_local"),
        ("mapped 127.0.0.1", "http://[::ffff:127.0.0.1]/", "loopback"),
        ("mapped hex ::ffff:7f00:1", "http://[::ffff:7f00:1]/", "loopback"),
        ("mapped expanded", "http://[0:0:0:0:0:ffff:7f00:1]/", "loopback"),
        ("zone id %25eth0", "http://[fe80::1%25eth0]/", "ipv6_zone_id"),
        ("raw zone id %eth0", "http://[fe80::1%eth0]/", "ipv6_zone_id"),
        ("zone id on a public address", "http://[2001:4860:4860::8888%251]/", "ipv6_zone_id"),
        ("empty zone id", "http://[::1%]/", "invalid_url"),
        ("empty brackets", "http://[]/", "invalid_url"),
        ("IPvFuture", "http://[v1.x]/", "invalid_url"),
        ("bracketed IPv4", "http://[127.0.0.1]/", "invalid_url"),
        ("text before brackets", "http://prefix.[::1]/", "invalid_url"),
        ("text after brackets", "http://[::1]x/", "invalid_url"),
        ("double port", "http://[::1]:80:80/", "invalid_url"),
        ("unbracketed IPv6", "http://::1/", "invalid_url"),
    ],
)

DIFFERENTIALS = "parser: differentials"
_DIFFERENTIAL_CASES = cases_in(
    DIFFERENTIALS,
    [
        ("leading blank", " http://127.0.0.1/", "whitespace"),
        ("no slashes http:127.0.0.1", "http:127.0.0.1/", "empty_host"),
        ("one slash http:/127.0.0.1", "http:/127.0.0.1/", "empty_host"),
        ("backslashes http:\\\\127.0.0.1", "http:\\\\127.0.0.1\\", "empty_host"),
        ("space and @ smuggling", "http://1.1.1.1 &@127.2.2.2# @127.3.3.3/", "whitespace"),
        ("@ after fragment", "http://127.0.0.1#@public.example/", "loopback"),
        ("@ after query", "http://127.0.0.1?@public.example/", "loopback"),
        ("backslash before @ (WHATWG host public)", "http://public.example\\@127.0.0.1/", "userinfo"),
        ("backslash before @ (httpx host public)", "http://127.0.0.1\\@public.example/", "userinfo"),
        ("percent-encoded dots", "http://127%2e0%2e0%2e1/", "invalid_host"),
        ("percent-encoded digits", "http://%31%32%37.0.0.1/", "invalid_host"),
        ("percent-encoded NUL", "http://exa%00mple.com/", "invalid_host"),
    ],
)

DNS = "DNS: names resolving to internal addresses"
_DNS_CASES = cases_in(
    DNS,
    [
        ("10/8", "http://internal.example/", "private"),
        ("172.16/12", "http://corp.example/", "private"),
        ("192.168/16", "http://home.example/", "private"),
        ("127.0.0.1", "http://loop.example/", "loopback"),
        ("127.0.0.1.nip.io", "http://127.0.0.1.nip.io/", "loopback"),
        ("localtest.me", "http://localtest.me/", "loopback"),
        ("::1", "http://v6loop.example/", "loopback"),
        ("ULA", "http://ula.example/", "unique_local"),
        ("IPv6 link-local", "http://linklocal.example/", "link_local"),
        ("IPv4-mapped answer", "http://mapped.example/", "private"),
        ("CGNAT", "http://cgnat.example/", "cgnat"),
        ("0.0.0.0", "http://zero.example/", "this_network"),
        ("fake-IP proxy 198.18/15", "http://fakeip.example/", "benchmarking"),
        ("localhost (answered locally)", "http://localhost/", "loopback"),
        ("LOCALHOST. with dot", "http://LOCALHOST./", "loopback"),
        ("sub.localhost", "http://app.localhost:3000/", "loopback"),
    ],
)

MIXED = "DNS: mixed public and private answers"
_MIXED_CASES = cases_in(
    MIXED,
    [
        ("public then loopback", "http://rebind.example/", "loopback"),
        ("private then public", "http://private-first.example/", "private"),
        ("public IPv4 then ULA", "http://mixed-v6.example/", "unique_local"),
        ("public IPv6 then metadata", "http://mixed-meta.example/", "cloud_metadata"),
    ],
)

SCHEMES = "schemes"
_SCHEME_CASES = cases_in(
    SCHEMES,
    [
        ("ftp", "ftp://public.example/", "scheme"),
        ("file", "file:///etc/passwd", "scheme"),
        ("gopher", "gopher://public.example:70/_x", "scheme"),
        ("dict", "dict://127.0.0.1:11211/stat", "scheme"),
        ("ws", "ws://public.example/", "scheme"),
        ("javascript", "javascript:alert(1)", "scheme"),
        ("data", "data:text/html,x", "scheme"),
        ("protocol-relative", "//public.example/", "scheme"),
        ("no scheme", "public.example/path", "scheme"),
        ("upper-case HTTPS", "HTTPS://public.example/", ALLOW),
        ("mixed-case HtTp", "HtTp://public.example/", ALLOW),
    ],
)

USERINFO = "userinfo"
_USERINFO_CASES = cases_in(
    USERINFO,
    [
        ("user:password", "http://user:pw@public.example/", "userinfo"),
        ("user only", "http://user@public.example/", "userinfo"),
        ("empty user and password", "http://:@public.example/", "userinfo"),
        ("bare @", "http://@public.example/", "userinfo"),
        ("public name as user", "http://public.example@127.0.0.1/", "userinfo"),
    ],
)

CONTROL = "control characters and whitespace"
_CONTROL_CASES = cases_in(
    CONTROL,
    [
        ("NUL in path", "http://public.example/\x00", "control_character"),
        ("tab in host", "http://public.\texample/", "control_character"),
        ("newline in host", "http://public.example\n.evil/", "control_character"),
        ("CRLF header injection", "http://public.example/\r\nX-Injected: 1", "control_character"),
        ("DEL", "http://public.example/\x7f", "control_character"),
        ("C1 NEL", "http://public.example/\x85", "control_character"),
        ("trailing blank", "http://public.example/ ", "whitespace"),
        ("blank in path", "http://public.example/a b", "whitespace"),
        ("no-break space", "http://public.example/\xa0", "whitespace"),
        ("ideographic space", "http://public.example/\u3000", "whitespace"),
        ("line separator", "http://public.example/\u2028", "whitespace"),
        ("lone surrogate", "http://public.example/\ud800", "invalid_url"),
    ],
)

MALFORMED = "empty and malformed hosts"
_MALFORMED_CASES = cases_in(
    MALFORMED,
    [
        ("no host", "http:///path", "empty_host"),
        ("port only", "http://:8080/", "empty_host"),
        ("nothing after //", "http://", "empty_host"),
        ("empty label", "http://public..example/", "invalid_host"),
        ("leading dot", "http://.public.example/", "invalid_host"),
        ("two trailing dots", "http://public.example../", "invalid_host"),
        ("label over 63", f"http://{'a' * 64}.example/", "invalid_host"),
        ("URL over 8192 characters", f"http://public.example/{'a' * 9000}", "url_too_long"),
        ("unresolvable name", "http://nx.example/", "unavailable:not_found"),
    ],
)

PORTS = "ports"
_PORT_CASES = cases_in(
    PORTS,
    [
        ("8080", "http://public.example:8080/", ALLOW),
        ("https 8443", "https://public.example:8443/", ALLOW),
        ("explicit default 80", "http://public.example:80/", ALLOW),
        ("1", "http://public.example:1/", ALLOW),
        ("65535", "http://public.example:65535/", ALLOW),
        ("0", "http://public.example:0/", "invalid_port"),
        ("65536", "http://public.example:65536/", "invalid_port"),
        ("99999", "http://public.example:99999/", "invalid_port"),
        ("negative -1", "http://public.example:-1/", "invalid_port"),
        ("signed +80", "http://public.example:+80/", "invalid_port"),
        ("underscore 8_0", "http://public.example:8_0/", "invalid_port"),
        ("Arabic-Indic digits", "http://public.example:٨٠/", "invalid_port"),
        ("empty port means default", "http://public.example:/", ALLOW),
        ("leading zero 080", "http://public.example:080/", ALLOW),
        ("loopback on 8080", "http://127.0.0.1:8080/", "loopback"),
        ("IPv6 loopback on 443", "http://[::1]:443/", "loopback"),
    ],
)

PUBLIC = "must allow: public addresses and names"
_PUBLIC_CASES = cases_in(
    PUBLIC,
    [
        ("8.8.8.8", "http://8.8.8.8/", ALLOW),
        ("1.1.1.1 https", "https://1.1.1.1/", ALLOW),
        ("93.184.216.34 with path and query", "http://93.184.216.34/a/b?c=d#e", ALLOW),
        ("2001:4860:4860::8888", "http://[2001:4860:4860::8888]/", ALLOW),
        ("2606:4700:4700::1111", "https://[2606:4700:4700::1111]:8443/", ALLOW),
        ("name resolving public", "https://public.example/page", ALLOW),
        ("upper-case name with trailing dot", "https://PUBLIC.EXAMPLE./", ALLOW),
        ("name with IPv4 and IPv6 answers", "https://dual.example/", ALLOW),
        ("name behind DNS64", "https://nat64.example/", ALLOW),
        ("underscore label", "https://a_b.public.example/", ALLOW),
    ],
)

EDGES_OUTSIDE = "must allow: just outside denied ranges"
_OUTSIDE_CASES = cases_in(
    EDGES_OUTSIDE,
    [
        (ip, url_for(ip), ALLOW)
        for ip in [
            "1.0.0.0",
            "9.255.255.255",
            "11.0.0.0",
            "100.63.255.255",
            "100.128.0.0",
            "126.255.255.255",
            "128.0.0.0",
            "169.253.255.255",
            "169.255.0.0",
            "172.15.255.255",
            "172.32.0.0",
            "192.0.1.0",
            "192.0.3.0",
            "192.167.255.255",
            "192.169.0.0",
            "198.17.255.255",
            "198.20.0.0",
            "198.51.99.255",
            "198.51.101.0",
            "203.0.112.255",
            "203.0.114.0",
            "223.255.255.255",
            "2001:200::1",
            "2001:db7:ffff::1",
            "2001:db9::1",
            "2003::1",
        ]
    ],
)

OPERATOR = "operator allow-list"
_OPERATOR_CASES = [
    *cases_in(
        OPERATOR,
        [
            ("intranet name in 10/8", "http://intranet.example/", ALLOW),
            ("intranet literal in 10/8", "http://10.1.2.3:8080/", ALLOW),
            ("NAT64 of an allowed 10/8 address", "http://[64:ff9b::a00:1]/", ALLOW),
            ("192.168/16 still private", "http://192.168.1.1/", "private"),
            ("6to4 of allowed 10/8 still tunnelled", "http://[2002:a00:1::]/", "6to4"),
        ],
        ("10.0.0.0/8",),
    ),
    *cases_in(OPERATOR, [("fake web on 127.0.0.1:8080", "http://127.0.0.1:8080/", ALLOW)], ("127.0.0.1/32",)),
    *cases_in(OPERATOR, [("localhost with only IPv4 loopback", "http://localhost/", "loopback")], ("127.0.0.0/8",)),
    *cases_in(OPERATOR, [("localhost with both loopbacks", "http://localhost:8000/", ALLOW)], ("127.0.0.0/8", "::1")),
    *cases_in(OPERATOR, [("ULA fd00::/8", "http://[fd00::5]/", ALLOW)], ("fd00::/8",)),
    *cases_in(OPERATOR, [("link-local non-metadata", "http://169.254.1.1/", ALLOW)], ("169.254.0.0/16",)),
]

CASES: tuple[Case, ...] = (
    *range_cases(),
    *transition_cases(),
    *_METADATA_CASES,
    *_EXTRA_ADDRESS_CASES,
    *_NUMERIC_CASES,
    *_UNICODE_CASES,
    *_IPV6_CASES,
    *_DIFFERENTIAL_CASES,
    *_DNS_CASES,
    *_MIXED_CASES,
    *_SCHEME_CASES,
    *_USERINFO_CASES,
    *_CONTROL_CASES,
    *_MALFORMED_CASES,
    *_PORT_CASES,
    *_PUBLIC_CASES,
    *_OUTSIDE_CASES,
    *_OPERATOR_CASES,
)
