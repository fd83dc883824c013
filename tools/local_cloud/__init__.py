"""The local all-in-one cloud's Python side: where its state lives (`paths`) and the probe
that makes and removes test resources in it (`multiattach_probe`). The tests import it as
`local_cloud` (pytest.ini puts tools/ on the path)."""
