"""tox's inline plugin (``toxfile.py``, issue 42.4): a long install says how long it has run,
at what rate the environment grows and, from the last install, about how long is left."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from types import ModuleType

import pytest

TOXFILE = Path(__file__).resolve().parents[2] / "toxfile.py"


@pytest.fixture(scope="module")
def toxfile() -> ModuleType:
    try:
        import tox  # noqa: F401
    except ImportError:
        if os.environ.get("TOX_ENV_NAME") == "docs":  # its deps name tox: never skipped there
            pytest.fail("tox is not installed in the docs environment")
        pytest.skip("tox is not installed here")
    spec = importlib.util.spec_from_file_location("toxfile_under_test", TOXFILE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_an_install_reports_its_rate_and_then_its_time_left(
    toxfile: ModuleType, tmp_path: Path
) -> None:
    env = tmp_path / ".tox" / "ray"
    env.mkdir(parents=True)
    first = toxfile._Progress("ray", env)
    (env / "wheel.bin").write_bytes(b"\0" * 3_000_000)
    line = first.line()
    assert line.startswith("ray: installing, ") and " 3 MB (" in line and "MB/s)" in line
    assert "left" not in line  # nothing known of this machine yet
    first.finish(record=True)
    recorded = json.loads((tmp_path / ".tox" / toxfile.RECORD).read_text())
    assert set(recorded) == {"ray"} and recorded["ray"] >= 0
    # recreated: the estimate is kept beside the environments, not in the one torn down
    (env / "wheel.bin").unlink()
    (tmp_path / ".tox" / toxfile.RECORD).write_text(json.dumps({"ray": 325.0}))
    again = toxfile._Progress("ray", env)
    assert again.line().endswith("s left") and "about 32" in again.line()
    again.finish(record=False)
    assert json.loads((tmp_path / ".tox" / toxfile.RECORD).read_text()) == {"ray": 325.0}
