"""neutron-macvtap-agent, run in one process.

As shipped, the agent starts its privsep daemon, then oslo.service's launcher forks a worker
that inherits the privsep client without the thread that reads its answers, and the agent hangs
on its first privileged call ("msgid should be in oustanding_msgs"). Launched with no_fork the
agent runs in the process that started privsep. Arguments are the agent's own.
"""

import functools
import sys

# Imported first: it selects oslo.service's backend, which oslo_service.service fixes on import.
import neutron  # noqa: F401  pylint: disable=unused-import
from oslo_service import service

service.launch = functools.partial(service.launch, no_fork=True)

from neutron.cmd.plugins.macvtap_neutron_agent import main

if __name__ == "__main__":
    sys.exit(main())
