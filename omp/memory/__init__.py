"""Project memory: the stores of SPEC §7 and the managed block."""
