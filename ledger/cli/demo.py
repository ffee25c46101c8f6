"""``campaign demo``: the main job. Builds fresh ledgers from the bundled example campaigns."""

from __future__ import annotations

import contextlib
import io
import shlex
import tomllib
from pathlib import Path
from typing import Any

import click

from ledger.cli.base import App, cli, echo_json, json_option, pass_app


def bundled_campaigns() -> Path:
    """The repository's campaigns/ folder (beside ledger/), or ./campaigns."""
    here = Path(__file__).resolve().parents[2] / "campaigns"
    return here if here.is_dir() else Path("campaigns")


def load_plan(folder: Path) -> dict[str, Any]:
    """A campaign folder's campaign.toml, checked.

    :raises click.ClickException: missing or malformed (names the file and the key).
    """
    path = folder / "campaign.toml"
    try:
        plan = tomllib.loads(path.read_text())
    except OSError:
        raise click.ClickException(
            f"{folder} has no campaign.toml (see docs/plugin-guide.md)"
        ) from None
    except tomllib.TOMLDecodeError as e:
        raise click.ClickException(f"{path} is not valid TOML: {e}") from None
    for key, kind in (("system", str), ("characters", list), ("steps", list)):
        if not isinstance(plan.get(key), kind):
            raise click.ClickException(f"{path}: `{key}` is missing or not a {kind.__name__}")
    return plan


def run(args: list[str], quiet: bool) -> str:
    """Run one `campaign` command line in-process; its output, or a ClickException."""
    buffer = io.StringIO()
    target = buffer if quiet else None
    try:
        with contextlib.redirect_stdout(target) if target else contextlib.nullcontext():
            cli.main(args=args, prog_name="campaign", standalone_mode=False)
    except click.ClickException as e:
        raise click.ClickException(
            f"step `campaign {shlex.join(args[2:])}` failed: {e.format_message()}"
        ) from None
    except SystemExit as e:
        if e.code:
            raise click.ClickException(
                f"step `campaign {shlex.join(args[2:])}` exited {e.code}"
            ) from None
    return buffer.getvalue()


def build(folder: Path, db: Path, *, quiet: bool) -> dict[str, Any]:
    """Build one campaign folder into a fresh ledger file ``db``; returns a summary."""
    plan = load_plan(folder)
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    name = plan.get("id") or folder.name
    base = ["--db", str(db)]
    new = ["new", name, "--system", plan["system"], "--title", plan.get("title", name)]
    for key, value in (plan.get("options") or {}).items():
        import json

        new += ["--option", f"{key}={json.dumps(value)}"]
    steps: list[list[str]] = [new]
    steps += [["character", "add", "--sheet", str(folder / sheet)] for sheet in plan["characters"]]
    steps += [shlex.split(step) for step in plan["steps"]]
    for args in steps:
        if not quiet:
            click.secho(f"$ campaign {shlex.join(args)}", fg="cyan")
        run(base + args, quiet)
    return {
        "campaign": name,
        "system": plan["system"],
        "title": plan.get("title", name),
        "db": str(db),
        "steps": len(steps),
    }


@cli.command()
@click.argument("folders", nargs=-1, type=click.Path(file_okay=False, exists=True))
@click.option(
    "--out",
    "out_dir",
    default="out",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Where the built ledgers go (one .db per campaign).",
)
@click.option("--quiet", is_flag=True, help="Only the summary.")
@click.option("--verbose", is_flag=True, help="Also every step as it runs.")
@json_option
@pass_app
def demo(
    app: App, folders: tuple[str, ...], out_dir: str, quiet: bool, verbose: bool, as_json: bool
) -> None:
    """Build the example campaigns into fresh ledgers and show what a GM would see.

    With no FOLDERS, every campaign bundled in campaigns/. For each: every step of its
    campaign.toml is run as a `campaign` command (shown with --verbose), then its sheets,
    its log and a verify receipt are shown, and every session's recap is written (players'
    Markdown and HTML, the GM's HTML) to OUT/recaps/<campaign>/.
    """
    chosen = [Path(f) for f in folders] or sorted(
        p for p in bundled_campaigns().iterdir() if (p / "campaign.toml").is_file()
    )
    if not chosen:
        raise click.ClickException("no campaign folders found (each needs a campaign.toml)")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    summaries = []
    quiet = quiet or as_json
    for folder in chosen:
        if not quiet:
            click.secho(f"\n=== {folder.name} ===", bold=True)
        summary = build(folder, out / f"{folder.name}.db", quiet=not verbose or quiet)
        base = ["--db", summary["db"]]
        if not quiet:
            for cid in _character_ids(summary["db"]):
                click.secho(f"\n$ campaign sheet {cid}", fg="cyan")
                run(base + ["sheet", cid], False)
            click.secho("\n$ campaign log", fg="cyan")
            run(base + ["log"], False)
        summary["recaps"] = write_recaps(summary["db"], out / "recaps" / folder.name)
        text = run(base + ["verify"], True)
        summary["receipt"] = text.strip().splitlines()[-1].removeprefix("Receipt: ")
        if not quiet:
            click.secho("\n$ campaign verify", fg="cyan")
            click.echo(text, nl=False)
        summaries.append(summary)
    if as_json:
        echo_json(summaries)
        return
    from ledger.history.report import short_receipt

    click.secho("\nSummary", bold=True)
    for s in summaries:
        click.echo(
            f"  {s['campaign']:<20} {s['system']:<14} {s['steps']:>3} steps  "
            f"{len(s['recaps']):>2} recaps  {s['db']:<30} receipt {short_receipt(s['receipt'])}"
        )
    click.echo(f"Recaps (Markdown and HTML) are in {out / 'recaps'}/; open one in a browser.")


def write_recaps(db: str, folder: Path) -> list[str]:
    """Write every session's recap (players' Markdown and HTML, the GM's HTML) into ``folder``."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.history.recap import build_recap, render
    from ledger.store.sqlite import Store

    campaign = open_campaign(Store(db))
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for number in range(1, campaign.last_session() + 1):
        for as_gm, suffix in ((False, ""), (True, ".gm")):
            recap = build_recap(campaign, number, as_gm=as_gm)
            for fmt in ("md", "html") if not as_gm else ("html",):
                path = folder / f"session-{number}{suffix}.{fmt}"
                path.write_text(render(recap, fmt), encoding="utf-8")
                written.append(str(path))
    return written


def _character_ids(db: str) -> list[str]:
    from ledger.campaign.aggregate import open_campaign
    from ledger.store.sqlite import Store

    return list(open_campaign(Store(db)).characters())
