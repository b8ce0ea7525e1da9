"""Export: a corpus encoded to a ``.npy`` of ids (``run``), and the machinery that shares it among processes."""
