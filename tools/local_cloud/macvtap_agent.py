"""neutron-macvtap-agent, run in one process.

As shipped, the agent starts its privsep daemon, then oslo.service's launcher forks a worker
that inherits the privsep client without the thread that reads its answers, and the agent hangs
on its first privileged call ("msgid should be in oustanding_msgs"). Launched with no_fork the
agent runs in the process that started privsep. Arguments are the agent's own.

Its device scan lists /sys/class/net, then reads each macvtap device's MAC. A guest deleted
between the two (a test's teardown) made the read raise NetworkInterfaceNotFound, which ended
the agent's loop for good while its process lived on, and every later guest then waited out
Nova's vif-plugged timeout. The scan here skips a device that is gone.
"""

import functools
import os
import sys

# Imported first: it selects oslo.service's backend, which oslo_service.service fixes on import.
import neutron  # noqa: F401  pylint: disable=unused-import
from oslo_service import service

service.launch = functools.partial(service.launch, no_fork=True)

from neutron.agent.linux import ip_lib
from neutron.cmd.plugins.macvtap_neutron_agent import main
from neutron.plugins.ml2.drivers.macvtap.agent import macvtap_neutron_agent
from neutron.privileged.agent.linux.ip_lib import NetworkInterfaceNotFound
from neutron_lib import constants


def devices_still_there(manager):
    """MacvtapManager.get_all_devices, skipping a device removed while it is read."""
    devices = set()
    manager.mac_device_name_mappings = {}
    for device_name in os.listdir(macvtap_neutron_agent.MACVTAP_FS):
        if not device_name.startswith(constants.MACVTAP_DEVICE_PREFIX):
            continue
        try:
            mac = ip_lib.get_device_mac(device_name)
        except NetworkInterfaceNotFound:
            continue
        manager.mac_device_name_mappings[mac] = device_name
        devices.add(mac)
    return devices


macvtap_neutron_agent.MacvtapManager.get_all_devices = devices_still_there

if __name__ == "__main__":
    sys.exit(main())
