"""Training: the run and its events (``run``), reading the corpus, pair counts and queue, pre-token stores."""
