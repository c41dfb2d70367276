"""Inferview calculators: pure NumPy kernels, their specs, runs, API and pages."""
