"""ledger.history."""
