"""The page's kind (article, forum, product, listing ...) and the profile each kind is read with."""
