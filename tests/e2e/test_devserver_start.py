"""Starting the dev server when an address it binds is taken: it is tried again (its
random ports may have been taken between its choice and its bind), and a failure says
what the server said."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.support import free_port
from worker import devserver
from worker.settings import Settings


def test_a_taken_address_is_tried_again_then_said(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        ui = taken.getsockname()[1]
        settings = Settings(
            data_dir=str(tmp_path),
            temporal_address=f"127.0.0.1:{free_port()}",
            temporal_ui_url=f"http://127.0.0.1:{ui}",
        )
        with pytest.raises(RuntimeError, match="address already in use"):
            devserver.start(settings, timeout=30)
    said = (tmp_path / "temporal.log").read_text()
    assert said.count("address already in use") == devserver.STARTS
