"""Capture workers (their own processes) and the orchestrator that runs them."""
