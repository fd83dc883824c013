"""clustered_fs's fence device (roles/clustered_fs/files/multiattach-fence-openstack) loaded as
a Python module, for the unit tests and the test against the real Nova."""

import importlib.machinery
import importlib.util

from local_cloud import paths

SCRIPT = paths.ROOT / "roles" / "clustered_fs" / "files" / "multiattach-fence-openstack"


def load_fence_agent():
    loader = importlib.machinery.SourceFileLoader("multiattach_fence_openstack", str(SCRIPT))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
