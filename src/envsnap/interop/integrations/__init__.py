"""Integrations with MLflow, Weights & Biases, Lightning and Hugging Face Transformers.

Each module imports its library at the top, so import the module only when you use it; each is
an optional extra (`pip install 'envsnap-ml[mlflow]'` and so on).
"""
