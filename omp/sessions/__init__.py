"""Copilot sessions (docs/behaviour.md#sessions-and-the-packet): `discovery` finds them (folders, `session.start`, this project's),
`events` stream-reads their `events.jsonl` into messages."""
