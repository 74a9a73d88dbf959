"""Text analysis: tokenization, stopwords, stemming, and the analyzer identity."""
