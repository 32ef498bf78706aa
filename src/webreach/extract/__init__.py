"""Extraction: bytes -> document. Pure and offline: nothing here touches the network; trafilatura and pypdf are
imported only in this package (cascade.py, pdf.py).

A tour, in the order a body goes through it (cascade.py's docstring numbers the HTML stages):
- the entry: cascade.py (extract, extract_html), last_resort.py (only typed errors leave), extracted.py (the
  result and the renderings every kind shares);
- which reader and which text: sniff.py (PDF, HTML, JSON, XML, text or binary), charset.py (decoding),
  passthrough.py (text, JSON, feeds), pdf.py;
- preparation/: one parse of an HTML page made fit to read (html_tree, xml_chars, consent_dialogs, disclosures,
  post_profiles, product_reviews, set_aside; streamed.py, beside it here, puts React's streamed parts in place);
- kinds/: what kind of page it is (page_type) and the profile that kind is read with (profiles);
- readings/: the readings that compete with trafilatura's (posts, card_grid, lone_story, repeated_blocks,
  main_region; element_markdown and screen_reader_text are their helpers);
- fixes/: what is mended in the winning reading (product_facts, repeated_lines, section_headings);
- walls.py (bot walls, JavaScript shells and empty frames refused), metadata.py (what the page declares);
- after extraction: passages.py and question_rank.py (a document cut and ranked for a question), worker.py
  (heavy extractions in a killable child process).
"""
