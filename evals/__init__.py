"""The ingestion screen's training and evaluation material, apart from the application.

- :mod:`evals.corpus` writes the training corpus (``data/train.jsonl``);
- :mod:`evals.train` fits the classifier the screen loads
  (``adapters/memory/screen_model.npz``); ``make train-screen`` runs both;
- :mod:`evals.evalset` writes the evaluation split with other templates
  (``data/eval_*.jsonl``) and :mod:`evals.evaluate` scores it (``make eval-memory``).

``data/README.md`` says how the texts are built and why the two generators differ.
"""
