"""Pure source adapters: `parse(body, url)` plus URL builders; no I/O here."""
