"""The emulator's job store: one SQLite table of JSON rows.

With a data directory the jobs survive a restart; without one they live in memory for the process's lifetime.
A lock serialises access so concurrent handlers (and threads) never lose or duplicate a job.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL,
    doc TEXT NOT NULL
)
"""


class JobStore:
    def __init__(self, data_dir: str | Path | None = None) -> None:
        if data_dir is None:
            target = ":memory:"
        else:
            Path(data_dir).mkdir(parents=True, exist_ok=True)
            target = str(Path(data_dir) / "jobs.sqlite3")
        self._lock = threading.Lock()
        self._db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        with self._lock:
            self._db.execute(
                "PRAGMA journal_mode=WAL" if data_dir is not None else "PRAGMA journal_mode=MEMORY"
            )
            self._db.execute(_SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def insert(self, project_id: str, job_id: str, doc: dict[str, Any], *, unique_name: bool = False) -> bool:
        """Store a new job; with ``unique_name``, only when no job of the project has its name (else False).

        The check and the insert happen under one lock, so concurrent creates of one name store exactly one.
        """
        with self._lock:
            if unique_name:
                taken = self._db.execute(
                    "SELECT 1 FROM jobs WHERE project_id = ? AND json_extract(doc, ?) = ?",
                    (project_id, "$.job.metadata.name", doc["job"]["metadata"]["name"]),
                ).fetchone()
                if taken is not None:
                    return False
            self._db.execute(
                "INSERT INTO jobs (id, project_id, doc) VALUES (?, ?, ?)",
                (job_id, project_id, json.dumps(doc)),
            )
            return True

    def get(self, project_id: str, job_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute(
                "SELECT doc FROM jobs WHERE project_id = ? AND id = ?", (project_id, job_id)
            ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def update(
        self, project_id: str, job_id: str, change: Callable[[dict[str, Any]], dict[str, Any]]
    ) -> dict[str, Any] | None:
        """Apply `change` to a job atomically; returns the new document (None when there is no such job)."""
        with self._lock:
            row = self._db.execute(
                "SELECT doc FROM jobs WHERE project_id = ? AND id = ?", (project_id, job_id)
            ).fetchone()
            if row is None:
                return None
            doc = change(dict(json.loads(row[0])))
            self._db.execute(
                "UPDATE jobs SET doc = ? WHERE project_id = ? AND id = ?",
                (json.dumps(doc), project_id, job_id),
            )
            return doc

    def delete(self, project_id: str, job_id: str) -> bool:
        with self._lock:
            cur = self._db.execute("DELETE FROM jobs WHERE project_id = ? AND id = ?", (project_id, job_id))
            return cur.rowcount > 0

    def clear(self) -> int:
        """Remove every job (the emulator-only reset); returns how many there were."""
        with self._lock:
            return int(self._db.execute("DELETE FROM jobs").rowcount)

    def all(self, project_id: str) -> list[dict[str, Any]]:
        """Every job of a project, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT doc FROM jobs WHERE project_id = ? ORDER BY seq", (project_id,)
            ).fetchall()
        return [dict(json.loads(row[0])) for row in rows]
