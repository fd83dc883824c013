"""Stand-in for the get-pip.py that ansible-test downloads from a host we cannot reach.

ansible-test runs `python get_pip_X_Y.py [pip options] pip==X.Y ... [--no-setuptools]
[--no-wheel]` inside each new sanity venv. This bootstraps pip from the standard
library's ensurepip, then installs the requested packages with the machine's CA
bundle (ansible-test cleans the environment, so pip would not find it otherwise).
"""

import ensurepip
import subprocess
import sys

CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
GET_PIP_ONLY_FLAGS = {"--no-setuptools", "--no-wheel"}

ensurepip.bootstrap(upgrade=True)
pip_args = [arg for arg in sys.argv[1:] if arg not in GET_PIP_ONLY_FLAGS]
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install", "--cert", CA_BUNDLE] + pip_args))
