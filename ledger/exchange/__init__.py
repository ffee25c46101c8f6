"""ledger.exchange."""
