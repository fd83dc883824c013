# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The connection options of openstack.cloud, turned into an openstacksdk connection."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import openstack

APP_NAME = "multiattach.cloud"

CONNECTION_ARGUMENT_SPEC = dict(
    cloud=dict(type="raw"),
    auth=dict(type="dict", no_log=True),
    auth_type=dict(type="str"),
    region_name=dict(type="str"),
    interface=dict(
        type="str",
        default="public",
        choices=["admin", "internal", "public"],
        aliases=["endpoint_type"],
    ),
    validate_certs=dict(type="bool", aliases=["verify"]),
    ca_cert=dict(type="str", aliases=["cacert"]),
    client_cert=dict(type="str", aliases=["cert"]),
    client_key=dict(type="str", no_log=True, aliases=["key"]),
    api_timeout=dict(type="int"),
)

WAIT_ARGUMENT_SPEC = dict(
    wait=dict(type="bool", default=True),
    timeout=dict(type="int", default=180),
)

# Module option -> keyword of openstack.connect().
_CONNECT_KEYWORDS = dict(
    auth="auth",
    auth_type="auth_type",
    region_name="region_name",
    interface="interface",
    validate_certs="verify",
    ca_cert="cacert",
    client_cert="cert",
    client_key="key",
    api_timeout="api_timeout",
)


class ConnectionSettingsError(ValueError):
    """The connection options contradict each other."""


def connect_keywords(options):
    """Keyword arguments of openstack.connect() for the connection OPTIONS
    (CONNECTION_ARGUMENT_SPEC's)."""
    cloud = options.get("cloud")
    if isinstance(cloud, dict):
        conflicting = [
            name
            for name in _CONNECT_KEYWORDS
            if name != "interface" and options.get(name) is not None
        ]
        if options.get("interface", "public") != "public":
            conflicting.append("interface")
        if conflicting:
            raise ConnectionSettingsError(
                "cloud is a dict of connection settings, so %s must not be set as well: "
                "put them into the cloud dict or name a cloud from clouds.yaml instead"
                % ", ".join(sorted(conflicting))
            )
        return dict(cloud)
    if cloud is not None and not isinstance(cloud, str):
        raise ConnectionSettingsError(
            "cloud must be the name of a cloud in clouds.yaml or a dict of connection "
            "settings, not %s" % type(cloud).__name__
        )
    keywords = {
        keyword: options[option]
        for option, keyword in _CONNECT_KEYWORDS.items()
        if options.get(option) is not None
    }
    if cloud:
        keywords["cloud"] = cloud
    return keywords


def connect(options):
    """An openstacksdk Connection for the module's options (not yet authenticated)."""
    return openstack.connect(app_name=APP_NAME, **connect_keywords(options))
