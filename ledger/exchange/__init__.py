"""ledger.exchange.ndjson."""
