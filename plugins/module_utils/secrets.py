# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one rule for what is secret: option names that look secret, and the password
inside a URL (rabbit://user:PASSWORD@host, mysql+pymysql://user:PASSWORD@host/db).

Every module masks through these functions, in results, diffs and the values
Ansible removes from its output and logs (-vvv included).
"""

from __future__ import annotations

import re

from ansible.module_utils.basic import AnsibleModule

MASK = "********"

# password, admin_password, application_credential_secret, token, passcode,
# memcache_secret_key, fixed_key, client_key, key: a name that holds a credential.
SECRET_NAME = re.compile(r"pass(word|wd|code|phrase)|secret|token|(^|_)key$", re.IGNORECASE)

# scheme://user:password@host; the user may be empty (redis://:password@host), and
# oslo.messaging's transport_url lists further hosts as ,user:password@host.
URL_CREDENTIALS = re.compile(
    r"(?P<prefix>(\b[A-Za-z][A-Za-z0-9+.\-]*://|,)[^:/@\s,]*:)(?P<password>[^@\s/,]+)(?=@)")


def is_secret_name(name):
    return bool(SECRET_NAME.search(str(name)))


def url_passwords(text):
    """The passwords inside the URLs of TEXT."""
    return [match.group("password") for match in URL_CREDENTIALS.finditer(str(text))]


def mask_url_passwords(text):
    """TEXT with the password of every URL in it replaced by the mask."""
    return URL_CREDENTIALS.sub(lambda match: match.group("prefix") + MASK, str(text))


def masked_value(name, value):
    """VALUE as it may be shown: masked whole under a secret name, its URL passwords
    masked otherwise; None stays None."""
    if value is None:
        return None
    if is_secret_name(name):
        return MASK
    return mask_url_passwords(value)


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
        else:
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

    def _mask_secret_options(self):
        for name in self._masked_options:
            self.no_log_values.update(secrets_in(self.params.get(name)))

    def _log_invocation(self):
        self._mask_secret_options()
        super()._log_invocation()
