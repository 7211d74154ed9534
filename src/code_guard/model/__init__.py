"""The model client family: the interface (``interface.py``) and one module per implementation
(litellm), chosen by ``factory.py``."""
