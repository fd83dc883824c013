"""What the secrets tests draw: URLs in the forms oslo.config and oslo.messaging accept."""

from hypothesis import strategies as st

# The URL forms oslo.config and oslo.messaging accept (issue 50): no host, or one to three hosts
# (names, percent-encoded names, IPv4, IPv6 with or without a zone), with or without ports, the
# credentials on the first host only or on every host; percent-encoded user names.
HOSTS = [
    "rabbit-1",
    "zk%2D2.example",
    "rabbit~3",
    "10.0.0.4",
    "[::1]",
    "[fe80::1%eth0]",
    "[fe80::1%25eth0]",
]


@st.composite
def url_forms(draw):
    """A URL whose every {pw} is where the password goes."""
    scheme = draw(st.sampled_from(["rabbit", "kafka", "kazoo", "etcd3+http", "mysql+pymysql"]))
    user = draw(st.sampled_from(["openstack", "ci%40nder", "u%3Ax", ""]))
    # No host at all (a local socket, the library's default host): mysql+pymysql://u:PW@/db.
    hosts = draw(st.one_of(st.just([""]), st.lists(st.sampled_from(HOSTS), min_size=1, max_size=3)))
    ports = draw(st.booleans()) and hosts != [""]
    every_host_credentials = draw(st.booleans())
    tail = draw(st.sampled_from(["", "/", "/vhost", "/db?charset=utf8"]))
    entries = [
        ("%s:{pw}@" % user if index == 0 or every_host_credentials else "")
        + host
        + (":%d" % (5672 + index) if ports else "")
        for index, host in enumerate(hosts)
    ]
    return "%s://%s%s" % (scheme, ",".join(entries), tail)
