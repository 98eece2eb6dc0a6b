"""NumPy executors for what NumPy lacks (Philox, Morton, layout walks)."""
