"""ledger.store.sqlite."""
