"""The tests' harness: running playbooks and modules as users do (ansible_runner), counting
API requests from the services' logs (api_requests), watching files (file_events), the local
cloud's files and processes (local_cloud_state), the reliability lab (reliability_lab).
pytest.ini puts tests/ on the path."""
