# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cloud's and the SDK's errors as sentences: what went wrong and what to do."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import (
    ksa_exceptions,
    sdk_exceptions,
)

HTTP_ADVICE = {
    400: "the cloud refused the request as invalid",
    401: "check the credentials (auth or clouds.yaml)",
    403: "the cloud's policy forbids this for these credentials; ask an operator to "
    "grant the rule named above or use credentials that have it",
    404: "check the name or ID",
    406: "the cloud does not offer the API microversion asked for; multiattach needs compute "
    "API 2.60 or later (Nova Queens or later)",
    409: "the resource is in a state that does not allow this now; check its status and retry",
    413: "a quota or request limit was exceeded",
    503: "the service is unavailable; check that it runs",
}


def sentence(error):
    """The error's text without its closing period, to go before one of ours."""
    return str(error).rstrip().rstrip(".")


def _request_of(error):
    response = getattr(error, "response", None)
    request = getattr(response, "request", None)
    if request is None:
        return ""
    return "%s %s" % (request.method, request.url)


def describe_http_error(error):
    status = getattr(error, "status_code", None)
    details = getattr(error, "details", None) or str(error)
    request = _request_of(error)
    where = " (%s)" % request if request else ""
    advice = HTTP_ADVICE.get(status, "")
    text = "HTTP %s%s: %s" % (status, where, details)
    return "%s. %s" % (text.rstrip("."), advice) if advice else text


def is_anticipated(error):
    """True for the cloud's and the SDK's own errors: their message says it all, a
    traceback would only hide it."""
    return any(
        module is not None and isinstance(error, base)
        for module, base in (
            (ksa_exceptions, getattr(ksa_exceptions, "ClientException", ())),
            (sdk_exceptions, getattr(sdk_exceptions, "SDKException", ())),
        )
    )


def describe_error(error):
    """One message for an openstacksdk or keystoneauth exception."""
    if ksa_exceptions is not None:
        if isinstance(error, ksa_exceptions.Unauthorized):
            return (
                "authentication failed: the cloud rejected the credentials. Check "
                "username, password, project and domain names in auth or clouds.yaml"
            )
        if isinstance(error, ksa_exceptions.MissingRequiredOptions):
            return (
                "not enough connection settings (%s). Name a cloud from clouds.yaml "
                "with cloud, give auth, or set the OS_* environment variables" % error
            )
        if isinstance(error, (ksa_exceptions.ConnectFailure, ksa_exceptions.ConnectTimeout)):
            return (
                "cannot reach the cloud: %s. Check auth_url and the endpoints, and that "
                "the services run" % error
            )
        if isinstance(error, ksa_exceptions.EndpointNotFound):
            return (
                "the service catalog has no such endpoint: %s. Check region_name and "
                "interface" % sentence(error)
            )
        if isinstance(error, ksa_exceptions.ClientException) and hasattr(error, "http_status"):
            return "HTTP %s: %s" % (error.http_status, error)
    if sdk_exceptions is not None:
        if isinstance(error, sdk_exceptions.ConfigException):
            return (
                "cannot read the cloud configuration: %s. Check the cloud name and "
                "clouds.yaml (OS_CLIENT_CONFIG_FILE)" % sentence(error)
            )
        if isinstance(error, sdk_exceptions.ResourceTimeout):
            return "%s. Raise timeout, or check the services' logs" % sentence(error)
        if isinstance(error, sdk_exceptions.HttpException):
            return describe_http_error(error)
    return "%s: %s" % (type(error).__name__, error)
