"""A connection to the local cloud as a Keystone user made by a test (a fencing user, as a
cluster node signs in with it): the admin cloud's endpoint, the user's name and password, scoped
to PROJECT in the Default domain."""

import openstack


def password_auth(admin_cloud, name, password, project):
    """The auth dict of a clouds.yaml entry for NAME, as the role writes a node's."""
    auth = dict(
        admin_cloud.config.auth,
        username=name,
        password=password,
        project_name=project,
        user_domain_name="Default",
        project_domain_name="Default",
    )
    # The admin's own IDs would override the names above.
    for key in ("user_domain_id", "project_id", "project_domain_id"):
        auth.pop(key, None)
    return auth


def connect_as(admin_cloud, name, password, project):
    return openstack.connect(
        auth=password_auth(admin_cloud, name, password, project), auth_type="password"
    )
