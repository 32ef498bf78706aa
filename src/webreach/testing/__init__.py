"""The fake web: recorded engine responses served on loopback, with faults on demand."""
