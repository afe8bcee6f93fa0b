"""``make screenshots``: a PNG of every console page, with the demo's data.

It starts the stack as ``make demo`` does (the Temporal dev server, a worker, the API
and the local issuer, in a scratch data folder), plays the showcase, holds one more
payment so that a held intent has a page, then signs in through the issuer's page in
Debian's Chromium (headless; no browser is downloaded) and photographs each page.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Page, async_playwright
from rich.console import Console

from api.local.demo import Bearer, play
from api.local.demo_report import DemoReport
from api.local.stack import Stack
from worker.settings import Settings

OUT = Path("docs/screenshots")
WIDTH, HEIGHT = 1280, 900
PAYMENT = {
    "summary": "Pay the courier.",
    "actions": [
        {
            "tool": "payments.pay",
            "projects": ["east"],
            "payload": {
                "payee": "Swift Couriers",
                "invoice": "SC-118",
                "amount_cents": 180000,
                "currency": "USD",
                "memo": "Atlas originals to the client",
            },
            "cost_cents": 180000,
            "justification": "the signed originals must reach the client by Friday",
        }
    ],
}


def chromium() -> str:
    """Debian's Chromium, or say loudly how to get it."""
    found = os.environ.get("VERLETICA_CHROMIUM") or shutil.which("chromium")
    if not found:
        raise SystemExit(
            "make screenshots needs Debian's Chromium: apt-get install chromium "
            "(or VERLETICA_CHROMIUM=<path to a Chromium>)"
        )
    return found


async def _held_payment(api: str, report: DemoReport, token: str) -> str:
    """One more payment of Ledger's, held for Ada: its intent id."""
    ledger = next(i for i, h in report.handles.items() if h == "ledger")
    async with httpx.AsyncClient(base_url=api, timeout=30, auth=Bearer(token)) as http:
        started = (
            await http.post(
                f"/v1/orgs/{report.org_id}/runs",
                json={
                    "agent_id": ledger,
                    "task": "Pay Swift Couriers for the Atlas originals.",
                    "scripted_reply": json.dumps(PAYMENT),
                },
            )
        ).raise_for_status()
        run_id = started.json()["run_id"]
        for _ in range(300):
            view = (await http.get(f"/v1/runs/{run_id}")).json()
            state = view.get("state") or {}
            if state.get("status") == "needs_human":
                return str(state["intents"][0]["intent"]["id"])
            await asyncio.sleep(0.2)
    raise TimeoutError("the courier payment was not held")


VARIANTS = (
    ("", {"width": WIDTH, "height": HEIGHT}, "light"),
    ("-dark", {"width": WIDTH, "height": HEIGHT}, "dark"),
    ("-phone", {"width": 360, "height": 780}, "light"),
    ("-phone-dark", {"width": 360, "height": 780}, "dark"),
)
"""Each page is photographed four ways: desktop and a 360 px phone, light and dark (the
reader's own setting, which the console follows)."""


async def _sign_in(page: Page, api: str, subject: str, suffix: str) -> None:
    await page.goto(f"{api}/console/signin")
    await page.screenshot(path=OUT / f"01-sign-in{suffix}.png")
    await page.get_by_role("link", name="Sign in with your identity provider").click()
    await page.get_by_label("Your email").fill(subject)
    await page.screenshot(path=OUT / f"02-issuer-sign-in{suffix}.png")
    await page.get_by_role("button", name="Sign in").click()
    await page.wait_for_url("**/console/**")


def _redirected(report: DemoReport) -> str:
    """The demo's payment at new bank details from an outside invoice, held."""
    return str(report.runs["redirect"]["state"]["intents"][0]["intent"]["id"])


def pages(report: DemoReport, intent: str) -> list[tuple[str, str]]:
    """Every page the founder sees, by file name."""
    run_id = next(iter(report.runs.values()))["run_id"]
    return [
        ("03-needs-you", "/console/queue"),
        ("04-held-intent", f"/console/intents/{intent}"),
        ("05-workspace", "/console/workspace"),
        ("06-runs", "/console/runs"),
        ("07-run", f"/console/runs/{run_id}"),
        ("08-audit", "/console/audit"),
        ("09-metrics", "/console/metrics"),
        ("12-held-new-bank-details", f"/console/intents/{_redirected(report)}"),
        ("13-agents", "/console/agents"),
        ("14-work-graph", f"/console/graphs/{report.graph['state']['graph_id']}"),
        (
            "15-deliberation",
            f"/console/deliberations/{report.deliberation['state']['deliberation_id']}",
        ),
        ("16-decided", "/console/decided"),
    ]


async def shoot(api: str, report: DemoReport, intent: str, browser_path: str) -> list[Path]:
    """Photograph every page, four ways; the files written."""
    OUT.mkdir(parents=True, exist_ok=True)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=browser_path, headless=True, args=["--no-sandbox"]
        )
        for suffix, viewport, scheme in VARIANTS:

            async def context(subject: str, suffix: str = suffix, **look: Any) -> Page:
                page = await (await browser.new_context(**look)).new_page()
                await _sign_in(page, api, subject, suffix)
                return page

            look: dict[str, Any] = {"viewport": viewport, "color_scheme": scheme}
            page = await context(report.founder_subject, **look)
            for name, path in pages(report, intent):
                await page.goto(f"{api}{path}")
                await page.screenshot(path=OUT / f"{name}{suffix}.png", full_page=True)
            # An East member: the approval they may not give, explained.
            as_ben = await context(report.associate_subject, **look)
            await as_ben.goto(f"{api}/console/intents/{intent}")
            await as_ben.screenshot(
                path=OUT / f"10-held-intent-no-authority{suffix}.png", full_page=True
            )
            # A newcomer: the guided onboarding.
            newcomer = await context(f"cleo{suffix.replace('-', '.')}@newfirm.example", **look)
            await newcomer.screenshot(path=OUT / f"11-onboarding{suffix}.png", full_page=True)
        await browser.close()
    return sorted(OUT.glob("*.png"))


def main() -> None:
    """Start the stack in a scratch folder, play the demo, photograph the console."""
    console = Console()
    browser_path = chromium()
    with tempfile.TemporaryDirectory(prefix="verletica-shots-") as data:
        os.environ["VERLETICA_DATA_DIR"] = data
        settings = Settings()
        stack = Stack(settings)
        try:
            stack.start()
            issuer = stack.issuer()

            async def go() -> list[Path]:
                async with httpx.AsyncClient(base_url=stack.api_url, timeout=60) as http:
                    report = await play(http, issuer.mint)
                intent = await _held_payment(
                    stack.api_url, report, issuer.mint(report.founder_subject)
                )
                return await shoot(stack.api_url, report, intent, browser_path)

            written = asyncio.run(go())
        finally:
            stack.stop()
    for path in written:
        console.print(f"wrote {path}")
    if not written:
        sys.exit(1)


if __name__ == "__main__":
    main()
