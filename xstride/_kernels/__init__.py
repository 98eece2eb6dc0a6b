"""CUDA sources, shipped headers and the Python launchers that compile them through CuPy.

Nothing here imports CuPy at import time.
"""
