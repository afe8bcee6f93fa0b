"""The witness as its own process (``verletica audit witness``): the anchor gets each
checkpoint cosigned, the witness's record survives a crash, and a rollback of the
database is refused by the witness even when the anchor's own state is lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import delete, insert

from activities.audit_anchor import AnchorActivities
from adapters.store import audit as audit_store
from adapters.store.store import Store
from adapters.store.tables import (
    AuditCheckpointRow,
    AuditEntryRow,
    AuditHeadRow,
    AuditTreeNodeRow,
)
from adapters.witness.client import HttpWitness
from domain.audit.anchor import AnchorInput
from domain.audit.bundle import verify_bundle
from domain.audit.chain import AuditDraft
from domain.audit.checkpoint import COSIGNATURE_V1, Verifier, cosigned, parse_note
from tests.support import Firm, free_port, until_sync, utc_now
from usecases import audit


class WitnessProcess:
    """``verletica audit witness`` on a free port, started and killed by PID."""

    def __init__(self, store: Store, tmp: Path) -> None:
        self.state, self.key_file = tmp / "witness.jsonl", tmp / "witness.key"
        self.keys = [v.vkey() for v in store.keys.log_keys().verifiers]
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.key: Verifier | None = None

    def start(self) -> None:
        args = [sys.executable, "-m", "api.cli.main", "audit", "witness"]
        args += ["--state", str(self.state), "--key-file", str(self.key_file)]
        args += ["--port", str(self.port)]
        for key in self.keys:
            args += ["--log-key", key]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert self.proc.stdout is not None
        self.key = Verifier.from_vkey(self.proc.stdout.readline().decode().strip())
        assert self.key.kind == COSIGNATURE_V1

        def up() -> bool:
            try:
                return httpx.get(f"{self.url}/key", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        until_sync(up, timeout=60, what="the witness answering")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)


@pytest.fixture
def witness_process(store: Store, tmp_path: Path) -> Iterator[WitnessProcess]:
    process = WitnessProcess(store, tmp_path)
    process.start()
    try:
        yield process
    finally:
        process.kill()


def _append(store: Store, org: str, n: int, tag: str) -> None:
    for i in range(n):
        draft = AuditDraft(
            event_key=f"{tag}-{i}", actor="tester", decision="recorded", stage="test", rule="r"
        )
        store.audit.append(org, draft, utc_now())


def test_anchored_checkpoints_carry_the_witness_cosignature_across_its_restart(
    store: Store, firm: Firm, witness_process: WitnessProcess
) -> None:
    assert witness_process.key is not None
    witness = HttpWitness(witness_process.url, witness_process.key)
    anchor = AnchorActivities(store.audit, store.governance, utc_now, None, witness)
    first = anchor._pass(AnchorInput()).anchored[firm.org]
    assert cosigned(parse_note(first), witness.key) is not None
    assert store.audit.checkpoints(firm.org)[-1] == first  # kept with the checkpoint
    witness_process.kill()  # a crash: what it cosigned is on disk
    _append(store, firm.org, 5, "after-crash")
    down = anchor._pass(AnchorInput(anchored={firm.org: first}))
    assert not down.refused  # a witness out of reach delays nothing
    unwitnessed = down.anchored[firm.org]
    assert cosigned(parse_note(unwitnessed), witness.key) is None
    witness_process.start()
    again = anchor._pass(AnchorInput(anchored={firm.org: unwitnessed}))
    assert cosigned(parse_note(again.anchored[firm.org]), witness.key) is not None
    bundle = store.audit.export(firm.org, utc_now(), again.anchored[firm.org])
    assert verify_bundle(bundle, store.keys.log_keys()).ok


def test_the_witness_refuses_a_rollback_even_when_the_anchors_state_is_lost(
    store: Store, firm: Firm, witness_process: WitnessProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert witness_process.key is not None
    witness = HttpWitness(witness_process.url, witness_process.key)
    anchor = AnchorActivities(store.audit, store.governance, utc_now, None, witness)
    store.audit.checkpoint(firm.org, utc_now())
    with store.db.read() as s:
        head = s.get(AuditHeadRow, firm.org)
        assert head is not None
        earlier = head.model_dump()
    _append(store, firm.org, 6, "late")
    anchored = anchor._pass(AnchorInput()).anchored[firm.org]
    assert parse_note(anchored).checkpoint().size == earlier["seq"] + 6

    with store.db.transaction() as s:  # the rollback, as a database writer does it
        org, size = firm.org, earlier["seq"]
        s.execute(
            delete(AuditEntryRow).where(AuditEntryRow.org_id == org, AuditEntryRow.seq > size)
        )
        s.execute(
            delete(AuditCheckpointRow).where(
                AuditCheckpointRow.org_id == org, AuditCheckpointRow.size > size
            )
        )
        s.execute(delete(AuditTreeNodeRow).where(AuditTreeNodeRow.org_id == org))
        s.execute(delete(AuditHeadRow).where(AuditHeadRow.org_id == org))
        s.execute(insert(AuditHeadRow).values(**earlier))
    _append(store, firm.org, 2, "other")  # and grows it anew, under the witnessed size
    assert store.audit.verify(firm.org).ok  # consistent on its own
    # The anchor has lost its state (a new workflow): the witness alone remembers.
    monkeypatch.setattr(audit_store, "CHECKPOINT_EVERY", 1)
    lost = anchor._pass(AnchorInput())
    assert "rolled back" in lost.refused[firm.org], lost
    assert audit.broker_status(firm.svc, firm.org, firm.founder) is not None
