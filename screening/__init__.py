"""The ingestion screen's training and evaluation material, apart from the application.

- :mod:`screening.corpus` writes the training corpus (``data/train.jsonl``);
- :mod:`screening.train` fits the classifier the screen loads
  (``adapters/memory/screen_model.npz``); ``make train-screen`` runs both;
- :mod:`screening.evalset` writes the evaluation split with other templates
  (``data/eval_*.jsonl``) and :mod:`screening.evaluate` scores it (``make eval-memory``).

``data/README.md`` says how the texts are built and why the two generators differ.
"""
