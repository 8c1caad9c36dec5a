"""Study mode (issue 8): a question bank generated from the cards, grading, SQLite progress,
flashcards and personal notes. Nothing heavy is imported here; import the submodule you need."""
