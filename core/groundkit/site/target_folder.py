"""Where ``build_site`` writes: checking ``-o``, and moving a finished build into place.

A build is written into a work folder beside the target, ``.<name>.building-<pid>-<random>``,
and only moved in once complete, so a killed build never leaves half a site; the work folders
of builds whose process is gone are removed by the next build.
"""

from __future__ import annotations

import glob
import os
import shutil
from pathlib import Path

from groundkit.errors import ConfigurationError
from groundkit.site.layout import is_site, site_entry

__all__ = ["check_out", "install", "refuse_clashes", "remove_stale_builds"]


def check_out(source: Path, out: Path, force: bool) -> None:
    """Refuse an ``out`` that is a file, overlaps ``source``, or holds other files (unless
    ``force``, and then only where none of them has a name the site writes)."""
    if out.exists() and not out.is_dir():
        raise ConfigurationError(f"-o {out}: exists and is not a folder", subject=str(out))
    if out == source or out.is_relative_to(source) or source.is_relative_to(out):
        raise ConfigurationError(
            f"-o {out}: must not contain or lie inside the ingested path {source}; "
            "write the site somewhere else",
            subject=str(out),
        )
    if out.is_dir() and any(out.iterdir()) and not is_site(out):
        if not force:
            raise ConfigurationError(
                f"-o {out}: is a non-empty folder that is not a groundkit site; choose an empty "
                "or new folder, or pass --force to write the site's files into it",
                subject=str(out),
            )
        refuse_clashes(out)


def refuse_clashes(out: Path) -> None:
    """--force writes beside a folder's files, never over them: refuse names a site uses."""
    clashes = sorted(entry.name for entry in out.iterdir() if site_entry(entry.name))
    if clashes:
        raise ConfigurationError(
            f"-o {out}: --force writes the site beside this folder's files, but "
            f"{', '.join(clashes)} would be replaced; move them away or choose another folder",
            subject=str(out),
        )


def remove_stale_builds(target: Path) -> None:
    """Remove the work folders of builds of ``target`` that were killed (their process gone).

    Work folders are named ``.<name>.building-<pid>-<random>`` (and ``.old-`` while an old
    site is swapped out); one whose process still runs is another build's, and is kept.
    """
    for prefix in (f".{target.name}.building-", f".{target.name}.old-"):
        for entry in target.parent.glob(f"{glob.escape(prefix)}*"):
            pid = entry.name[len(prefix) :].split("-", 1)[0]
            if entry.is_dir() and not entry.is_symlink() and not _running(pid):
                shutil.rmtree(entry, ignore_errors=True)


def _running(pid: str) -> bool:
    """Whether process ``pid`` (a decimal string) runs; False for a name that holds none."""
    if not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return True
    if os.name != "posix":  # no cheap check elsewhere: keep the folder
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists but is someone else's, or no way to ask: keep the folder
        return True
    return True


def install(work: Path, target: Path, *, merge: bool) -> None:
    """Move the built site into ``target``: a new folder, or an old site swapped out whole;
    beside other files (``--force``, or a site sharing its folder) only the site's own
    top-level entries are written or replaced, and nothing else is touched."""
    if not target.exists():
        work.rename(target)
        return
    shared = merge or any(not site_entry(entry.name) for entry in target.iterdir())
    if not shared:  # an earlier site and nothing else
        old = target.with_name(f".{target.name}.old-{work.name.rsplit('.building-', 1)[1]}")
        target.rename(old)
        work.rename(target)
        shutil.rmtree(old, ignore_errors=True)
        return
    if merge:
        refuse_clashes(target)  # again: the folder may have changed during the build
    for entry in sorted(target.iterdir()):  # the earlier site's entries (a shared site)
        if site_entry(entry.name):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    for entry in sorted(work.iterdir()):
        shutil.move(str(entry), target / entry.name)
