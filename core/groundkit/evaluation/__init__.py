"""Retrieval evaluation: BEIR-layout datasets and trec_eval-compatible metrics."""
