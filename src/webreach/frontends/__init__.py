"""Front doors: parse input, call the Gateway, render. No business logic lives here."""
