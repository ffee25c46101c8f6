"""Trust without trusting the GM: Merkle trees over the log, signed notes, checkpoints."""
