"""Post-fixes applied to the winning reading: a product's declared facts added, paragraphs said twice dropped,
section headings put back."""
