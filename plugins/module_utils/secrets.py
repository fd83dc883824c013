# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one rule for what is secret: option names that look secret, the password inside a
URL (rabbit://user:PASSWORD@host, mysql+pymysql://user:PASSWORD@host/db,
https://host/?password=PASSWORD, in every form oslo.config and oslo.messaging take: several
hosts with or without credentials, IPv6 hosts with a zone, percent-encoded names), and the
value of a "name:value" pair whose name looks secret (oslo.cache's backend_argument =
password:PASSWORD).

Every module masks through these functions, in results, diffs and the values
Ansible removes from its output and logs (-vvv included).
"""

from __future__ import annotations

import re

from ansible.module_utils.basic import AnsibleModule

MASK = "********"

# password, admin_password, application_credential_secret, token, passcode,
# memcache_secret_key, fixed_key, client_key, key, hmac_keys, kek, apikey: a name that
# holds a credential.
SECRET_NAME = re.compile(
    r"passw|pass(code|phrase)|pwd|secret|token|credential|api_?key|(^|[_.-])kek($|[_.-])|(^|[_.-])keys?$",
    re.IGNORECASE,
)

URL_START = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://")
# A host: a name (percent-encoded, RFC 3986's unreserved characters), an IPv4 address, or an
# IPv6 address in brackets with an optional zone ("%eth0", or "%25eth0" as RFC 6874 writes it).
HOST = r"(?:[A-Za-z0-9._~%\-]+|\[[0-9A-Fa-f:.]+(?:%[A-Za-z0-9._~%\-]+)?\])(?::\d+)?"
# The credentials part of a URL (netloc) runs to its last "@host[:port]", and on through the
# hosts listed after it without credentials (kazoo://u:PW@zk1:2181,zk2:2181): a password
# may hold "@", "/", "," or a space. oslo.messaging's transport_url lists further hosts as
# ,user:password@host or ,host.
# The host may be empty: mysql+pymysql://nova:PW@/nova?unix_socket=..., rabbit://u:PW@/.
AUTHORITY = re.compile(r"(?P<authority>[^:/@\s,]*:.*@(?:%s)?(?:,%s)*)(?=[/?#\s]|$)" % (HOST, HOST))
HOST_ENTRY = re.compile(r",?(?:(?P<user>[^:/@\s,]*):(?P<password>.*?)@)?%s(?=,|$)" % HOST)
# oslo.cache's backend_argument and the like: "name:value", the value secret when the name is.
NAMED_PAIR = re.compile(
    r"^(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*)(?P<separator>\s*:\s*)(?P<value>.*\S)\s*$"
)
# A query parameter whose name says secret: ?password=..., &ssl_key_password=...; its value
# runs to the next parameter (a space in it is no end).
QUERY_SECRET = re.compile(r"(?P<prefix>[?&;](?P<name>[^=&#;?\s]+)=)(?P<value>[^&#;\n]*)")


def is_secret_name(name):
    return bool(SECRET_NAME.search(str(name)))


def _merged(spans):
    merged = []
    for begin, end in sorted(span for span in spans if span[1] > span[0]):
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((begin, end))
    return merged


def _no_password(authority):
    return authority.index(":") + 1 == authority.rindex("@")


def _url_spans(line):
    """((start, end) of each password inside the URLs of LINE, as shown masked;
    (start, end) of each whole credentials part read as several hosts): one line."""
    shown, whole = [], []
    urls = list(URL_START.finditer(line))
    for index, url in enumerate(urls):
        # A URL ends where the next one starts: its credentials cannot reach into it,
        # unless its password holds "scheme://" itself (no space between: the widest
        # reading is the URL).
        start, stop = url.end(), urls[index + 1].start() if index + 1 < len(urls) else len(line)
        widest = AUTHORITY.match(line, start)
        match = AUTHORITY.match(line, start, stop)
        if not match or (
            widest
            and (
                not any(c.isspace() for c in line[match.end() : widest.end()])
                or _no_password(match.group("authority"))
            )
        ):
            match = widest
        if not match:
            continue
        if widest and widest.end() > match.end():
            # what the line allows as one password is secret whole too
            whole.append(
                (
                    start + widest.group("authority").index(":") + 1,
                    start + widest.group("authority").rindex("@"),
                )
            )
        authority = match.group("authority")
        first_password, last_at = start + authority.index(":") + 1, start + authority.rindex("@")
        entries = list(HOST_ENTRY.finditer(authority))
        if (
            entries
            and entries[0].start() == 0
            and entries[0].group("password") is not None
            and entries[-1].end() == len(authority)
            and all(one.end() == two.start() for one, two in zip(entries, entries[1:]))
        ):
            shown.extend(
                (start + e.start("password"), start + e.end("password"))
                for e in entries
                if e.group("password") is not None
            )
            if len(entries) > 1:
                # one password holding ",user:...@host" reads the same: it is secret whole too
                whole.append((first_password, last_at))
        else:  # credentials that do not read as hosts: masked from the first ":" to the last "@"
            shown.append((first_password, last_at))
    for match in QUERY_SECRET.finditer(line):
        if is_secret_name(match.group("name")):
            value_end = match.end("value")
            while value_end > match.start("value") and line[value_end - 1].isspace():
                value_end -= 1
            shown.append((match.start("value"), value_end))
    return _merged(shown), whole


def url_passwords(text):
    """The passwords inside the URLs of TEXT (userinfo and secret query parameters),
    read every way the text allows: each host's and the whole credentials part of
    several hosts; a value holding a space also up to the space."""
    found = []
    for line in str(text).splitlines():
        shown, whole = _url_spans(line)
        for begin, end in shown + whole:
            found.append(line[begin:end])
            if " " in line[begin:end]:
                found.append(line[begin:end].split(" ", 1)[0])
    return [value for value in dict.fromkeys(found) if value]


def mask_url_passwords(text):
    """TEXT with the password of every URL in it replaced by the mask."""
    lines = str(text).split("\n")
    for number, line in enumerate(lines):
        for begin, end in reversed(_url_spans(line)[0]):
            line = line[:begin] + MASK + line[end:]
        lines[number] = line
    return "\n".join(lines)


def _secret_pair(line):
    """The match of LINE as "name:value" whose name looks secret, or None."""
    match = NAMED_PAIR.match(line)
    return match if match and is_secret_name(match.group("name")) else None


def mask_pair_values(text):
    """TEXT with the value of every "secret-name:value" line replaced by the mask."""
    lines = str(text).split("\n")
    for number, line in enumerate(lines):
        match = _secret_pair(line)
        if match:
            lines[number] = line[: match.start("value")] + MASK
    return "\n".join(lines)


def masked_value(name, value):
    """VALUE as it may be shown: masked whole under a secret name; otherwise the value of a
    "secret-name:value" pair and the passwords of its URLs masked; None stays None."""
    if value is None:
        return None
    if is_secret_name(name):
        return MASK
    return mask_url_passwords(mask_pair_values(value))


def secrets_in(value, name=""):
    """Every secret string inside VALUE (a dict, list or string, as module options
    come): values under secret names, and passwords inside URLs."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from secrets_in(item, key)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from secrets_in(item, name)
    elif value is not None and not isinstance(value, bool):
        text = str(value)
        if not text:
            return
        if is_secret_name(name):
            yield text
            return
        for line in text.splitlines():
            match = _secret_pair(line)
            if match:
                yield match.group("value")
        yield from url_passwords(text)


class SecretMaskingModule(AnsibleModule):
    """AnsibleModule that also masks the secrets inside the options named in
    MASKED_OPTIONS (a cloud dict, INI settings), before it logs the invocation and
    in every result: such an option cannot be no_log as a whole, or a cloud's name
    or a whole configuration would vanish from the output."""

    def __init__(self, *args, masked_options=(), **kwargs):
        self._masked_options = tuple(masked_options)
        super().__init__(*args, **kwargs)
        self._mask_secret_options()

    def _load_params(self):
        # Before Ansible's argument check, which prints the whole invocation when it
        # fails (a misspelt option, a wrong type): every secret the raw arguments hold,
        # under whatever name they came.
        super()._load_params()
        self.no_log_values.update(secrets_in(self.params))

    def _mask_secret_options(self):
        for name in self._masked_options:
            self.no_log_values.update(secrets_in(self.params.get(name)))

    def _log_invocation(self):
        self._mask_secret_options()
        super()._log_invocation()
