"""The built-in reference tables, shipped as data in reportgen/data/: GPUs (`gpus`), models
(`models`), the bytes a model moves per step (`model_bytes`), benchmark clients (`clients`).
"""
