"""A pure-Python wheel of the installed ``groundkit`` package, for Pyodide in a static site.

Deterministic: sorted entries and fixed timestamps, so the same package gives the same bytes.
The sample corpus and the web app are left out (the site ships the app beside the wheel). A
site that needs a pure-Python dependency (snowballstemmer, for a ``--language`` collection)
gets the installed copy of it inside the same wheel, with its own ``.dist-info`` (its licence,
and the release the collection's identity names), so the page still fetches one file.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from groundkit.config import VERSION
from groundkit.errors import GroundkitError

__all__ = ["build_wheel", "package_dir"]

_WHEEL_EXCLUDE = (("site", "web_app"), ("sample",))
"""Folders of the package the browser never needs: the app (shipped beside the wheel) and the
sample corpus."""
_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def package_dir() -> Path:
    """The installed ``groundkit`` package folder."""
    return Path(__file__).resolve().parents[1]


def _package_files(root: Path) -> Iterator[tuple[str, Path]]:
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if not path.is_file() or "__pycache__" in rel.parts or path.suffix in (".pyc", ".pyo"):
            continue
        if any(rel.parts[: len(folder)] == folder for folder in _WHEEL_EXCLUDE):
            continue
        yield "groundkit/" + rel.as_posix(), path


def _distribution_files(name: str) -> Iterator[tuple[str, bytes]]:
    """The installed distribution ``name``'s Python sources and its METADATA and licence files,
    as they sit in site-packages (no bytecode, no RECORD: the wheel writes its own)."""
    from importlib import metadata  # 15 ms to import: only for a site that bundles one

    try:
        distribution = metadata.distribution(name)
    except metadata.PackageNotFoundError as exc:
        raise GroundkitError(
            f"cannot bundle {name} into the site's wheel: it is not installed"
        ) from exc
    for file in sorted(distribution.files or (), key=str):
        parts = file.parts
        info = parts[0].endswith(".dist-info")
        if info and not (file.name == "METADATA" or "licenses" in parts or "LICENSE" in file.name):
            continue
        if not info and (file.suffix != ".py" or "__pycache__" in parts):
            continue
        yield file.as_posix(), Path(str(file.locate())).read_bytes()


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode()


def build_wheel(dest: str | Path, *, deflate: bool = True, bundle: Sequence[str] = ()) -> Path:
    """A pure-Python wheel of the installed package (no sample corpus, no app) in ``dest``.

    Deterministic: sorted entries, fixed timestamps, so the same package gives the same bytes.
    ``deflate=False`` stores the files (for a host that compresses the whole wheel: smaller).
    ``bundle`` names installed pure-Python distributions to carry inside it.
    """
    name = f"groundkit-{VERSION}"
    dist_info = f"{name}.dist-info"
    entries: list[tuple[str, bytes]] = [
        (arc, path.read_bytes()) for arc, path in _package_files(package_dir())
    ]
    if not any(arc == "groundkit/__init__.py" for arc, _ in entries):
        raise GroundkitError(f"{package_dir()} holds no __init__.py; is groundkit installed?")
    for carried in sorted(bundle):
        entries.extend(_distribution_files(carried))
    metadata = (
        "Metadata-Version: 2.1\n"
        "Name: groundkit\n"
        f"Version: {VERSION}\n"
        "Summary: Deterministic retrieval with citations you can re-check against the source.\n"
        "Requires-Python: >=3.11\n"
    )
    wheel_meta = (
        "Wheel-Version: 1.0\n"
        f"Generator: groundkit build-site {VERSION}\n"
        "Root-Is-Purelib: true\n"
        "Tag: py3-none-any\n"
    )
    entries.append((f"{dist_info}/METADATA", metadata.encode()))
    entries.append((f"{dist_info}/WHEEL", wheel_meta.encode()))
    record = "".join(f"{arc},{_record_hash(data)},{len(data)}\n" for arc, data in entries)
    record += f"{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode()))
    target = Path(dest) / f"{name}-py3-none-any.whl"
    method = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    with zipfile.ZipFile(target, "w", compression=method) as archive:
        for arc, data in entries:
            info = zipfile.ZipInfo(arc, date_time=_ZIP_EPOCH)
            info.compress_type = method
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return target
