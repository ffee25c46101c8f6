"""ledger.dice."""
