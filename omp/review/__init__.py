"""The review run (docs/behaviour.md#the-review-run): claim, reviewer call, answer validation, safety, apply, ledger."""
