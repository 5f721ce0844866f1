"""The ``miran`` command line."""
