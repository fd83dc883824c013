# -*- coding: utf-8 -*-
# Copyright: multiattach.cloud developers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A listing of Nova or Cinder read to its last page."""

from __future__ import annotations

from ansible_collections.multiattach.cloud.plugins.module_utils.openstack.sdk import sdk_exceptions


def every_page(proxy, url, key, query=None, **request):
    """The entries under KEY of every page of the listing at URL: the APIs page a long
    listing (osapi_max_limit) and give the next page's link under KEY_links, query included."""
    entries = []
    while url:
        response = proxy.get(url, params=query or {}, **request)
        sdk_exceptions.raise_from_response(response)
        body = response.json()
        entries.extend(body.get(key, []))
        url = next(
            (link["href"] for link in body.get(key + "_links", []) if link.get("rel") == "next"),
            None,
        )
        query = None
    return entries
