"""The read service: a URL -> one window of clean text, through a reader chain (direct, Jina, browser)."""
