"""One service error, and the mapping from the library's error tree to it (same messages)."""

from __future__ import annotations

from groundkit import (
    CollectionNotFoundError,
    ConfigurationError,
    GroundkitError,
    IndexIdentityError,
    IngestionError,
    MissingRecordError,
    RetrievalError,
    SearchTimeoutError,
    StorageError,
)

__all__ = ["ServiceError", "from_library"]


class ServiceError(Exception):
    """A request the service refuses or cannot answer: an HTTP status, a code, a message."""

    def __init__(self, status: int, code: str, message: str, subject: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.subject = subject

    def to_dict(self) -> dict[str, str | None]:
        return {"error": self.code, "message": self.message, "subject": self.subject}


def from_library(exc: GroundkitError) -> ServiceError:
    """The status and code of a library error; the message is the library's own."""
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
    elif isinstance(exc, ConfigurationError | IngestionError):  # InvalidQueryError is one
        status, code = 400, "invalid"
    elif isinstance(exc, RetrievalError):  # a refused query, or a citation that failed
        status, code = (400, "invalid") if exc.verdict is None else (500, "inconsistent")
    return ServiceError(status, code, exc.message, exc.subject)
