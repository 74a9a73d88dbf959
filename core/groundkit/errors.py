"""The error tree: one root, one branch per stage, and a message that names the fix.

Every error carries the input at fault (``subject``) so that callers and the CLI can report it
without parsing the message. Messages never include document text.
"""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "CollectionNotFoundError",
    "ConfigurationError",
    "CorruptCollectionError",
    "GroundkitError",
    "IndexIdentityError",
    "IngestionError",
    "InvalidQueryError",
    "MissingRecordError",
    "ReadOnlyCollectionError",
    "RerankerNotConfiguredError",
    "RetrievalError",
    "SearchTimeoutError",
    "ShardMismatchError",
    "ShardUnavailableError",
    "StorageError",
]


class GroundkitError(Exception):
    """Root of every error groundkit raises on purpose."""

    def __init__(self, message: str, *, subject: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.subject = subject


class ConfigurationError(GroundkitError):
    """A setting, flag or combination of them that cannot work (unknown mode, bad k1, ...)."""


class RerankerNotConfiguredError(ConfigurationError):
    """``rerank=True`` was asked of a retriever opened without a reranker.

    Raised before any search work: results are never passed through un-reranked.
    """


class IngestionError(GroundkitError):
    """An input file was refused; ``subject`` is its path and ``reason`` a short stable code."""

    def __init__(self, message: str, *, subject: str | None = None, reason: str) -> None:
        super().__init__(message, subject=subject)
        self.reason = reason


class StorageError(GroundkitError):
    """The collection on disk is missing, corrupt, foreign, newer than us, or inconsistent."""


class CollectionNotFoundError(StorageError):
    """The named collection does not exist yet (nothing has been ingested into it)."""


def create_hint(path: str | Path) -> str:
    """The command that creates the collection file at ``path``
    (``INDEX_DIR/NAME/collection.sqlite``): ``groundkit ingest PATH`` with the ``--collection``
    and ``--index-dir`` that were asked for, so the hint can be pasted as it is; the options
    that name the collection where ``--index-dir`` was its own folder (or file), and the
    collections the folder holds where it holds others."""
    location = Path(path)
    name, index_dir = location.parent.name, location.parent.parent
    try:
        own = _own_folder(index_dir, location.name)
        held = sorted(
            found.parent.name
            for found in index_dir.glob(f"*/{location.name}")
            if found.parent.name != name and found.is_file()
        )
    except OSError:  # an unreadable folder: the plain hint
        own, held = None, []
    if own is not None:
        return (
            f"--index-dir names a collection's own folder: pass --index-dir {own.parent} "
            f"--collection {own.name}"
        )
    if held:
        listed = ", ".join(held)
        return f"collections in {index_dir}: {listed} (--collection NAME); or " + _create(
            name, index_dir
        )
    return _create(name, index_dir)


def _own_folder(index_dir: Path, file_name: str) -> Path | None:
    """The collection folder ``index_dir`` is (it holds the collection file) or whose file it
    is, as an absolute path; None where it is neither."""
    if (index_dir / file_name).is_file():
        folder = index_dir.absolute()
    elif index_dir.name == file_name and index_dir.is_file():
        folder = index_dir.absolute().parent
    else:
        return None
    return folder if folder.name else None


def _create(name: str, index_dir: Path) -> str:
    """``create_hint``'s command."""
    command = "groundkit ingest PATH"
    if name and name != "default":
        command += f" --collection {name}"
    if str(index_dir) not in ("", ".groundkit"):
        command += f" --index-dir {index_dir}"
    return f"create it with `{command}`"


class CorruptCollectionError(StorageError):
    """The collection file is damaged (SQLite's checks, or groundkit's own, disagree with it).

    A damaged collection is never searched or written into: rebuild it (re-ingest into a new
    collection) or restore a copy. ``groundkit check`` lists what is wrong (adr/0023).
    """


class ReadOnlyCollectionError(StorageError):
    """A write was asked of a collection whose file or folder is not writable.

    Reading (search, verify, status, check) still works; nothing was written.
    """


class ShardUnavailableError(StorageError):
    """A shard of a sharded collection is missing, unreadable or out of step with its manifest:
    a sharded search refuses to answer from the other shards alone."""


class ShardMismatchError(ShardUnavailableError, CorruptCollectionError):
    """A sharded collection is damaged: its manifest was altered (or emptied), or a shard is
    not the one the manifest sealed (another analyzer, embedding, content or place). Exit 6."""


class IndexIdentityError(StorageError):
    """The collection was built with another analyzer or embedding identity than requested."""

    def __init__(
        self, message: str, *, subject: str | None = None, expected: str, found: str
    ) -> None:
        super().__init__(message, subject=subject)
        self.expected = expected
        self.found = found


class RetrievalError(GroundkitError):
    """A query was refused, or a result could not be backed by a verifiable citation.

    ``verdict`` is set when the failure is about a citation: ``"drifted"`` or ``"unresolvable"``.
    """

    def __init__(
        self, message: str, *, subject: str | None = None, verdict: str | None = None
    ) -> None:
        super().__init__(message, subject=subject)
        self.verdict = verdict


class InvalidQueryError(RetrievalError, ConfigurationError):
    """A search request was refused as given (empty query, top_k out of range, unknown mode):
    a usage error, fixed by changing the request."""


class MissingRecordError(CorruptCollectionError, RetrievalError):
    """An index hit whose chunk or document record is missing: the collection is damaged.

    Also a ``RetrievalError``: the search was refused rather than answered without a citation.
    """


class SearchTimeoutError(RetrievalError):
    """A search stopped at its deadline (``groundkit.deadlines``): no partial answer is given.
    A service answers it with 504; retry with a shorter query or more time."""
