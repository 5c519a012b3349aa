"""The price sources, one module each (`SOURCE` at its end: services/scraper/spec.py).

A source module holds its parsers (pure: `parse(body, url)` plus URL builders), its
collector (the pages a run fetches, through the `Crawl` it is handed: no I/O of its own),
its parse-page entry and its spec; the registry discovers it. Modules whose names start
with "_" are helpers the sources share.
"""
