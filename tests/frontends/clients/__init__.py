"""Scripts that drive webreach with real third-party MCP clients; run by test_real_clients.py in .ci-clients."""
