"""The captured data and what is derived from it.

A bundle on disk (records, serial form), the cross-level index, and the analyses read from the
parsed programs: training steps, sharding, buffer assignment, compiler passes, roofline, occupancy,
TVM programs. No capture runs here and nothing is drawn.
"""
