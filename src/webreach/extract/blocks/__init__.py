"""The learned block scorer: features per text block of a page (features.py), the model weighing them (scorer.py)."""
