"""Alembic environment: always run programmatically by `s2r_tutor.store.migrate`, which passes the
connection (already holding the migration lock) in `config.attributes["connection"]`."""

from alembic import context

from s2r_tutor.store.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
