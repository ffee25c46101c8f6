"""ledger.rules."""
