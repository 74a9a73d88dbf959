"""One service error, and the mapping from the library's error tree to it (same messages)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from groundkit import (
    CollectionNotFoundError,
    ConfigurationError,
    GroundkitError,
    IndexIdentityError,
    IngestionError,
    InvalidQueryError,
    MissingRecordError,
    RetrievalError,
    SearchTimeoutError,
    StorageError,
)

__all__ = ["ServiceError", "from_library", "validation_message", "without_root"]


class ServiceError(Exception):
    """A request the service refuses or cannot answer: an HTTP status, a code, a message."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        subject: str | None = None,
        *,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.subject = subject
        self.retry_after = retry_after

    def to_dict(self) -> dict[str, str | None]:
        return {"error": self.code, "message": self.message, "subject": self.subject}


def without_root(text: str, root: Path) -> str:
    """``text`` with the index folder's absolute path left out: a client sees paths relative
    to the index folder (``default/collection.sqlite``), never where the server keeps it."""
    for shown in dict.fromkeys((str(root.resolve()), str(root.absolute()))):
        if os.path.isabs(shown):
            text = text.replace(shown + os.sep, "").replace(shown, ".")
    return text


def validation_message(errors: list[Any]) -> str:
    """Pydantic's errors as ``field: why; ...``: short, with no values, URLs or input echo."""
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}" for err in errors
    )
    return f"invalid request: {problems}"


def from_library(exc: GroundkitError, root: Path | None = None) -> ServiceError:
    """The status and code of a library error; the message is the library's own (with the
    index folder's absolute path left out when ``root`` is given)."""
    status, code = 500, "internal"
    if isinstance(exc, SearchTimeoutError):  # stopped at its deadline: no CPU spent since
        status, code = 504, "timeout"
    elif isinstance(exc, MissingRecordError):
        status, code = 500, "inconsistent"
    elif isinstance(exc, CollectionNotFoundError):
        status, code = 404, "not_found"
    elif isinstance(exc, IndexIdentityError):
        status, code = 409, "identity_mismatch"
    elif isinstance(exc, StorageError):
        status, code = 503, "collection_unavailable"
    elif isinstance(exc, InvalidQueryError):  # a search refused as given: as a schema's 422
        status, code = 422, "invalid"
    elif isinstance(exc, ConfigurationError | IngestionError):
        status, code = 400, "invalid"
    elif isinstance(exc, RetrievalError):  # a refused query, or a citation that failed
        status, code = (400, "invalid") if exc.verdict is None else (500, "inconsistent")
    if root is None:
        return ServiceError(status, code, exc.message, exc.subject)
    subject = None if exc.subject is None else without_root(exc.subject, root)
    return ServiceError(status, code, without_root(exc.message, root), subject)
