"""Encoding and decoding: the ``Tokenizer``, merging inside one pre-token, token spans, streaming decode."""
