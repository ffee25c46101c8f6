"""A league of tables: one record of every character's chronicle (docs/league.md)."""
