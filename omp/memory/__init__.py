"""Project memory: the stores of docs/behaviour.md#project-memory-and-the-managed-block and the managed block."""
