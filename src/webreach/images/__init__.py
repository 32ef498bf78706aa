"""Images (issue 14): bounded decoding, crops, conversation tokens and image-search parsers."""
