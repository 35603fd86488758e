"""Field corpus: manifest pairs rebuilt from real public incidents, with the cause each thread
established as the label. `python -m tests.field` scores the differ on them."""
