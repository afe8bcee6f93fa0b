"""The offline lab of the ingestion screen, the identifying-detail finder and process
offers; the application never imports it.

- :mod:`evals.corpus` writes the training corpus (``data/train.jsonl``);
- :mod:`evals.train` fits the classifier the screen loads
  (``adapters/memory/screen_model.npz``); ``make train-screen`` runs both;
- :mod:`evals.evalset` writes the evaluation split with other templates
  (``data/eval_*.jsonl``), :mod:`evals.blind` and :mod:`evals.blind2` the two blind
  screen sets, and :mod:`evals.evaluate` scores them (``make eval-memory``);
- :mod:`evals.supplement` adds the public injection kits' material to the classifier's
  training;
- :mod:`evals.entity_corpus` fills the name and address tagger's training frames,
  :mod:`evals.train_entities` fits it (``make train-entities``), and
  :mod:`evals.lexicon` builds its lexicon (``make lexicon``);
- :mod:`evals.heldout` measures the finder and the screen on held-out text nobody here
  generated (``data/heldout/``), first in ``make eval-memory``;
- :mod:`evals.offers_eval` measures process-offer merging on ``data/episodes.json``
  (``make eval-learning``).

Each generator's templates are data files in ``data/<generator>/``; ``data/README.md``
says how the texts are built and why the generators differ.
"""
