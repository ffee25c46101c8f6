"""ledger.campaign.aggregate."""
