"""`playsite accounts`: an operator's controls over people's accounts (DATABASE_URL).

    playsite accounts show <nickname|id>
    playsite accounts deactivate <nickname|id>   its sessions end at the next request; it cannot sign in
    playsite accounts reactivate <nickname|id>
    playsite accounts sign-out <nickname|id>     ends every session, the account stays active

Each change is one transaction; a running server sees it at the account's next request,
because every request re-reads the account. A change says what it did before the account's
line. Exit codes: 0 done, 1 no such account, 2 no DATABASE_URL, 3 the database failed.
"""

from __future__ import annotations

import argparse
import sys
import uuid

import psycopg

from playsite.accounts import queries
from playsite.accounts.model import NICKNAME, Account
from playsite.cli.serve import EXIT_BOOT, EXIT_CONFIG, load_settings_or_exit
from playsite.principals import canonical_uuid

ACTIONS = ("show", "deactivate", "reactivate", "sign-out")
DONE = {
    "deactivate": "deactivated: its sessions end at their next request, and it cannot sign in",
    "reactivate": "reactivated: it may sign in again",
    "sign-out": "signed out everywhere: every session issued so far ends at its next request",
}
"""What each change says it did (a repeated deactivation or reactivation says "already")."""


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("accounts", help="show, deactivate, reactivate or sign out an account")
    parser.add_argument("action", choices=ACTIONS)
    parser.add_argument("account", help="the account's nickname or id")
    parser.set_defaults(run=run)


def find(conn: psycopg.Connection, who: str) -> Account | None:
    if (account_id := canonical_uuid(who)) is not None:
        return queries.find(conn, uuid.UUID(account_id))
    if not NICKNAME.fullmatch(who):
        return None
    row = conn.execute("SELECT id FROM accounts WHERE lower(nickname) = lower(%s)", (who,)).fetchone()
    return None if row is None else queries.find(conn, row[0])


def run(args: argparse.Namespace) -> int:
    settings = load_settings_or_exit()
    if settings.database_url is None:
        print("playsite: accounts need DATABASE_URL (accounts exist only with persistence)", file=sys.stderr)
        return EXIT_CONFIG
    try:
        with psycopg.connect(settings.database_url, connect_timeout=10) as conn:
            account = find(conn, args.account)
            if account is None:
                print(f"playsite: no account {args.account!r}", file=sys.stderr)
                return 1
            before = account.status
            done = DONE.get(args.action, "")
            if args.action in ("deactivate", "reactivate"):
                account = queries.set_active(conn, account.id, args.action == "reactivate") or account
                if account.status == before:
                    done = f"already {account.status}; its sessions ended all the same"
            elif args.action == "sign-out":
                queries.end_sessions(conn, account.id)
            conn.commit()
    except psycopg.Error as error:
        first_line = (str(error).strip().splitlines() or ["no detail"])[0]
        print(f"playsite: accounts: {first_line}", file=sys.stderr)
        return EXIT_BOOT
    # what was done first (ops review s74: every action printed only the account's line)
    if done:
        print(f"playsite: {account.nickname or account.id} {done}")
    print(f"account {account.id} nickname={account.nickname or '-'} status={account.status}")
    return 0
