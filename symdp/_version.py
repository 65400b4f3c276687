"""The one place that states symdp's version (read by pyproject.toml and ``symdp.__version__``)."""

__version__ = "0.1.0"
