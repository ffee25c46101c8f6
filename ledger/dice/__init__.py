"""ledger.dice.engine."""
