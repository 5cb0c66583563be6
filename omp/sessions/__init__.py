"""Copilot sessions (SPEC §4): `discovery` finds them (folders, `session.start`, this project's),
`events` stream-reads their `events.jsonl` into messages."""
