"""The Textual explorer UI: one screen per level, reading capture bundles.

Importing this package must stay cheap and must never pull in TensorFlow,
Keras or JAX (tests/test_screens_imports.py checks it in a subprocess), so
nothing is imported here; use `screens.app.create_app`.
"""
