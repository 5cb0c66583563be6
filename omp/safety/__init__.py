"""What must never reach memory or the reviewer (docs/safety.md): `secrets` finds and redacts secrets,
`injection` finds instruction injection in text proposed for memory."""
