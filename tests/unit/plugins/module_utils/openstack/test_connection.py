"""Connection options -> openstack.connect() keywords, and failures -> messages."""

import pytest
from keystoneauth1 import exceptions as ksa_exceptions
from openstack import exceptions as sdk_exceptions

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack import connection, errors

NO_OPTIONS = {name: None for name in connection.CONNECTION_ARGUMENT_SPEC}
NO_OPTIONS["interface"] = "public"


def options(**given):
    return dict(NO_OPTIONS, **given)


def test_a_cloud_name_with_overrides_passes_both():
    keywords = connection.connect_keywords(
        options(
            cloud="prod",
            region_name="r1",
            validate_certs=False,
            ca_cert="/ca",
            client_key="/k",
            auth={"password": "x"},
        )
    )
    assert keywords == {
        "cloud": "prod",
        "region_name": "r1",
        "verify": False,
        "cacert": "/ca",
        "key": "/k",
        "auth": {"password": "x"},
        "interface": "public",
    }


def test_unset_options_are_left_to_openstacksdk():
    assert connection.connect_keywords(options()) == {"interface": "public"}


def test_a_cloud_dict_is_passed_as_it_is():
    cloud = {"auth": {"auth_url": "http://x"}, "region_name": "r"}
    assert connection.connect_keywords(options(cloud=cloud)) == cloud


@pytest.mark.parametrize(
    "option,value",
    [("auth", {"a": 1}), ("region_name", "r"), ("api_timeout", 3), ("interface", "internal")],
)
def test_a_cloud_dict_beside_another_connection_option_is_refused(option, value):
    with pytest.raises(connection.ConnectionSettingsError, match=option + " must not be set"):
        connection.connect_keywords(options(cloud={"auth": {}}, **{option: value}))


def test_a_cloud_that_is_neither_name_nor_dict_is_refused():
    with pytest.raises(connection.ConnectionSettingsError, match="not list"):
        connection.connect_keywords(options(cloud=["a"]))


def test_auth_is_never_logged():
    assert connection.CONNECTION_ARGUMENT_SPEC["auth"]["no_log"] is True
    assert connection.CONNECTION_ARGUMENT_SPEC["client_key"]["no_log"] is True


def test_a_policy_refusal_names_the_rule_and_what_to_do():
    error = sdk_exceptions.ForbiddenException(
        message="Forbidden",
        details="Policy doesn't allow volume:multiattach to be performed.",
        http_status=403,
    )
    message = errors.describe_error(error)
    assert "volume:multiattach" in message and "HTTP 403" in message and "policy" in message


@pytest.mark.parametrize(
    "error,expected",
    [
        (ksa_exceptions.Unauthorized(), "authentication failed"),
        (
            ksa_exceptions.ConnectFailure("Unable to establish connection to http://h:5000"),
            "cannot reach the cloud: Unable to establish connection to http://h:5000",
        ),
        (ksa_exceptions.EndpointNotFound("no compute"), "Check region_name and interface"),
        (sdk_exceptions.ConfigException("Cloud x was not found."), "Cloud x was not found"),
        (sdk_exceptions.ResourceTimeout("Timeout waiting for volume"), "Raise timeout"),
        (ValueError("odd"), "ValueError: odd"),
    ],
)
def test_failures_become_sentences(error, expected):
    assert expected in errors.describe_error(error)
    assert ".." not in errors.describe_error(error)
