"""The competing readings beside trafilatura's: forum posts, a card grid, the lone story element, the largest family
of repeated blocks, the main region; and the element markdown they render with."""
