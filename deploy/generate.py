"""Write deploy/mosquitto/ and deploy/mosquitto-edge/ from referee/brokerconf.py.

deploy/mosquitto/ (mosquitto.conf, acl, passwd, spectators.*, roles) is the main broker;
deploy/mosquitto-edge/ (mosquitto.conf, acl, an empty passwd) is the edge broker of
compose.demo.yaml's ``edge`` service: anonymous read-only spectators, bridged in from the
main broker's spectators' listener with the ``edge`` account.

Why generated: the ACL is the security model (a player's identity is the username
segment of the move topic only that user may write), so it has exactly one source,
``referee.brokerconf``; the test suite's broker and this compose deployment both use it.
``tests/test_compose.py`` checks that the committed files match what this script writes.

The passwords are the public DEMO passwords ``<user>-secret``: fine on 127.0.0.1, never
for a broker other people can reach.  For a real deployment, write your own passwd
(``mosquitto_passwd``, or ``referee.brokerconf.password_line``) and keep it out of git.
The edge's bridge password and its local client id are public here too; a real edge is
made by ``summon broker init DIR --edge`` (random password, unguessable local id).

    python deploy/generate.py           # (re)write the files
    python deploy/generate.py --check   # exit 1 if the committed files are out of date

Re-running keeps a passwd line whose hash still matches the demo password, so the
random salts do not change (and git shows no diff) unless something really changed.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere in the checkout
    sys.path.insert(0, str(ROOT))

from summon.referee.accounts import ROLES_HEADER  # noqa: E402
from summon.referee.brokerconf import (  # noqa: E402
    Bridge, acl_text, edge_acl_text, edge_conf, mosquitto_conf, password_line, spectator_acl_text,
)

OUT = ROOT / "deploy" / "mosquitto"
OUT_EDGE = ROOT / "deploy" / "mosquitto-edge"
USERS = ("referee", "director", "north", "east", "south", "west")
SPECTATORS = ("spectator", "edge")  # accounts of the read-only spectators' listener (edge: the bridge)
# The roles file the referee reads (SUMMON_ROLES_FILE): directors, and bots flagged in table meta.
ROLES = {"referee": "referee", "director": "director", "north": "bot", "east": "bot", "south": "bot",
         "west": "bot", "spectator": "spectator", "edge": "edge"}
DIRECTORS = tuple(u for u, r in ROLES.items() if r == "director")  # the only tournament publishers (ACL)
PORT = 1883
SPECTATOR_PORT = 1884
WS_PORT = 9001       # players over websockets (the web page; every cell of the compose `cells` profile)
EDGE_PORT = 1885     # anonymous read-only spectators, MQTT
EDGE_WS_PORT = 9002  # anonymous read-only spectators, websockets (the web page)
MAIN_HOST = "mosquitto"  # compose.demo.yaml's service name of the main broker
CONFIG_DIR = "/mosquitto/config"  # where compose.demo.yaml mounts deploy/mosquitto/
DATA_DIR = "/mosquitto/data"      # the eclipse-mosquitto image's data volume


def demo_password(user: str) -> str:
    return f"{user}-secret"


def conf_text() -> str:
    """mosquitto.conf for the container: listener 1883 on all of the container's interfaces
    (compose publishes it on the host's 127.0.0.1 only), persistence in /mosquitto/data,
    and no ``user root``: the image drops privileges to its ``mosquitto`` user."""
    return mosquitto_conf(PORT, f"{CONFIG_DIR}/passwd", f"{CONFIG_DIR}/acl", bind="",
                          persistence_dir=DATA_DIR, run_as_root=False,
                          spectator_port=SPECTATOR_PORT,
                          spectator_password_file=f"{CONFIG_DIR}/spectators.passwd",
                          spectator_acl_file=f"{CONFIG_DIR}/spectators.acl", websockets_port=WS_PORT)


def edge_conf_text() -> str:
    """The edge's mosquitto.conf: both listeners on every container interface (compose
    publishes them on the host's 127.0.0.1 only), the bridge to ``mosquitto:1884``."""
    bridge = Bridge(name="edge", host=MAIN_HOST, port=SPECTATOR_PORT, password=demo_password("edge"),
                    local_clientid="bridge-edge-demo")
    return edge_conf(EDGE_PORT, f"{CONFIG_DIR}/acl", f"{CONFIG_DIR}/passwd", bridge, bind="",
                     websockets_port=EDGE_WS_PORT)


def verify_line(line: str, user: str, password: str) -> bool:
    """Does ``line`` hold ``user`` with ``password`` in Mosquitto's $7$ (PBKDF2-SHA512) form?"""
    name, sep, rest = line.strip().partition(":")
    parts = rest.split("$")  # "", "7", iterations, salt, hash
    if name != user or not sep or len(parts) != 5 or parts[1] != "7":
        return False
    try:
        iterations = int(parts[2])
        salt, digest = base64.b64decode(parts[3]), base64.b64decode(parts[4])
    except ValueError:
        return False
    mine = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations, len(digest))
    return hmac.compare_digest(mine, digest)


def passwd_text(existing: str = "", users: tuple[str, ...] = USERS) -> str:
    """The passwd file, keeping each existing line that still verifies."""
    old = {ln.partition(":")[0]: ln for ln in existing.splitlines() if ":" in ln}
    lines = []
    for user in users:
        line = old.get(user, "")
        if not verify_line(line, user, demo_password(user)):
            line = password_line(user, demo_password(user))
        lines.append(line)
    return "\n".join(lines) + "\n"


def expected(existing_passwd: str = "", existing_spectators: str = "") -> dict[str, str]:
    return {"mosquitto.conf": conf_text(), "acl": acl_text(directors=DIRECTORS, accounts=USERS),
            "passwd": passwd_text(existing_passwd),
            "spectators.acl": spectator_acl_text(accounts=SPECTATORS),
            "spectators.passwd": passwd_text(existing_spectators, SPECTATORS),
            "roles": ROLES_HEADER + "".join(f"{u} {r}\n" for u, r in ROLES.items())}


def expected_edge() -> dict[str, str]:
    return {"mosquitto.conf": edge_conf_text(), "acl": edge_acl_text(), "passwd": ""}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only check the files; exit 1 if they differ")
    args = ap.parse_args(argv)
    passwd, spectators = OUT / "passwd", OUT / "spectators.passwd"
    wanted = {OUT: expected(passwd.read_text() if passwd.exists() else "",
                            spectators.read_text() if spectators.exists() else ""),
              OUT_EDGE: expected_edge()}
    stale = [(out, name) for out, files in wanted.items() for name, text in files.items()
             if not (out / name).exists() or (out / name).read_text() != text]
    if args.check:
        for out, name in stale:
            print(f"deploy/{out.name}/{name} is out of date: run python deploy/generate.py", file=sys.stderr)
        return 1 if stale else 0
    for out, name in stale:
        out.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(wanted[out][name])
        print(f"wrote deploy/{out.name}/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
