"""Storage: SQLModel tables, repositories and migrations for SQLite and PostgreSQL."""
