"""Take one collection out of a wheel of the `ansible` package, for ansible-core to load.

    extract_collection.py WHEEL NAMESPACE.NAME DEST

The `ansible` package carries openstack.cloud; its newer releases need a newer Python
than this machine's (for the package's own ansible-core), but the collection itself
runs with the ansible-core installed here when its meta/runtime.yml allows it.
DEST receives ansible_collections/NAMESPACE/NAME/, replacing what was there.
"""

import json
import shutil
import sys
import zipfile
from pathlib import Path


def main(wheel, collection, destination):
    namespace, name = collection.split(".")
    prefix = "ansible_collections/%s/%s/" % (namespace, name)
    target = Path(destination) / prefix
    if target.exists():
        shutil.rmtree(target)
    with zipfile.ZipFile(wheel) as archive:
        members = [member for member in archive.namelist() if member.startswith(prefix)]
        if not members:
            sys.exit("%s holds no collection %s" % (wheel, collection))
        archive.extractall(destination, members)
    manifest = json.loads((target / "MANIFEST.json").read_text())
    print("%s %s from %s" % (collection, manifest["collection_info"]["version"], Path(wheel).name))


if __name__ == "__main__":
    main(*sys.argv[1:])
