"""Cards to hits, in the order the data flows: corpus (cards, their English rendering and reader
questions) -> chunking -> tokenize/sparse (BM25) and dense (FAISS) -> index (on disk, with its
manifest) -> retriever (hybrid search, fused). Nothing here imports the answerer; a search prior from
it is passed in by `Tutor`. Import the modules themselves; this package re-exports nothing."""
