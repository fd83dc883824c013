"""tools/local_cloud/ports_free.py: a port in use is named with the process that holds it."""

import os
import socket

from local_cloud import ports_free


def test_a_free_port_passes(capsys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert ports_free.main(["spare=%d" % port]) == 0
    assert capsys.readouterr().err == ""


def test_a_port_in_use_is_named_with_its_holder(capsys):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]

        assert ports_free.main(["mysql=%d" % port]) == 1

    message = capsys.readouterr().err
    assert "port %d (mysql) is in use by PID %d (" % (port, os.getpid()) in message
    assert "local_cloud_ports" in message
