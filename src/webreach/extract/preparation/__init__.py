"""Tree preparation: one parse of the page, made fit to read before any reading starts (consent dialogs out,
disclosures opened, poster profiles and a product's reviews out, characters lxml refuses removed, the elements
trafilatura deletes unread set aside while it reads)."""
