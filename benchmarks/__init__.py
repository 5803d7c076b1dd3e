"""Benchmarks run by ``make bench``; each ``bench_*`` module has a ``main()`` that prints its tables."""
