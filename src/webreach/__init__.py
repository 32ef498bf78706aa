"""webreach: web access for AI agents."""
