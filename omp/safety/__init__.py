"""What must never reach memory or the reviewer (SPEC §6): `secrets` finds and redacts secrets,
`injection` finds instruction injection in text proposed for memory."""
