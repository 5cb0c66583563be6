"""The review run (SPEC §5): claim, reviewer call, answer validation, safety, apply, ledger."""
