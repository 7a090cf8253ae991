"""tensorweg core: capture, parse and link what TensorFlow and XLA make of a Keras model."""

__version__ = "0.1.0"
