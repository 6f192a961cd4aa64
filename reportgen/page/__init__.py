"""The page stage: the Analysis as plain dataclasses the template lays out."""
