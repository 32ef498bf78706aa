"""Images (issue 14): bounded decoding, crops, conversation tokens, and image-search answers (the engines live in
engines/images_*.py and run through the search machinery)."""
