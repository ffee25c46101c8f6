"""ledger.store."""
