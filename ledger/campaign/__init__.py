"""ledger.campaign."""
