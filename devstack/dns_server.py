"""The loopback DNS stand-in: TXT records for domain verification (README "Verified domains").

``python -m devstack.dns_server --port 8453 --store .devdata/dns.json`` serves DNS on
127.0.0.1 over UDP and TCP with ``dnslib``'s server:

- a TXT query for a name the stand-in holds answers its TXT values (RFC 1035 3.3.14), or
  NOERROR with no answer (NODATA) when the name holds none;
- any other name is NXDOMAIN (RFC 1035 4.1.1 RCODE 3), as a domain nobody registered.

Records change through DNS UPDATE (RFC 2136), which the dev stack's ``PUT /dev/dns/<name>``
sends with dnspython (dnslib's parser refuses the empty RRs that UPDATE deletes use, so
updates are decoded with dnspython and answered before dnslib sees them):

- "delete an RRset" (class ANY, type TXT) empties the name's TXT values and keeps the name,
  so it answers NODATA (a domain with records of other types, which the stand-in does not
  serve);
- "add to an RRset" (class IN, type TXT) adds a value;
- "delete all RRsets from a name" (class ANY, type ANY) forgets the name: NXDOMAIN again.

The records are kept in ``--store`` (JSON), so they survive a restart of ``make dev``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import struct
import threading
import time
from pathlib import Path
from typing import Any

import dns.exception
import dns.message
import dns.opcode
import dns.rdataclass
import dns.rdatatype
import dns.rdtypes.ANY.TXT
from dnslib import QTYPE, RCODE, RR, TXT, DNSError, DNSRecord
from dnslib.server import BaseResolver, DNSHandler, DNSLogger, DNSServer

TTL_S = 60


def record_name(name: str) -> str:
    """The stand-in's key of a DNS name: lowercased, without the root's trailing dot."""
    return name.strip().rstrip(".").lower()


class Zone:
    """Names and their TXT values, guarded by a lock (UDP and TCP threads share it) and
    written to ``store`` after every change."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._names: dict[str, list[str]] = {}
        if store.exists():
            self._names = {k: list(v) for k, v in json.loads(store.read_text()).items()}

    def txt(self, name: str) -> list[str] | None:
        """The TXT values of ``name`` (maybe none), or None when the name does not exist."""
        with self._lock:
            values = self._names.get(record_name(name))
            return None if values is None else list(values)

    def apply(self, update: dns.message.Message) -> None:
        """Apply the update section of an RFC 2136 message (see the module docstring)."""
        with self._lock:
            for rrset in update.authority:  # the update section (RFC 2136 2.5)
                name = record_name(rrset.name.to_text())
                # dnspython keeps the zone's class on the rrset and the deletion class apart.
                deleting = getattr(rrset, "deleting", None)
                if deleting == dns.rdataclass.ANY and rrset.rdtype == dns.rdatatype.ANY:
                    self._names.pop(name, None)
                elif deleting == dns.rdataclass.ANY and rrset.rdtype == dns.rdatatype.TXT:
                    self._names[name] = []
                elif deleting is None and rrset.rdtype == dns.rdatatype.TXT:
                    values = self._names.setdefault(name, [])
                    for rdata in rrset:
                        assert isinstance(rdata, dns.rdtypes.ANY.TXT.TXT)
                        value = b"".join(rdata.strings).decode()
                        if value not in values:
                            values.append(value)
            tmp = self.store.with_suffix(".tmp")
            tmp.write_text(json.dumps(self._names, indent=1, sort_keys=True))
            tmp.replace(self.store)


class ZoneResolver(BaseResolver):  # type: ignore[misc]
    """dnslib resolver answering TXT queries from the zone, each after ``delay_s`` seconds (a
    slow nameserver, for bench/verify_dns.py; dnslib serves every query in a thread of its
    own, so queries wait side by side)."""

    def __init__(self, zone: Zone, delay_s: float = 0.0) -> None:
        self.zone = zone
        self.delay_s = delay_s

    def resolve(self, request: DNSRecord, handler: DNSHandler) -> DNSRecord:
        """Answer one query: TXT values, NODATA or NXDOMAIN."""
        if self.delay_s:
            time.sleep(self.delay_s)
        reply = request.reply()
        qname = str(request.q.qname)
        values = self.zone.txt(qname)
        if values is None:
            reply.header.rcode = RCODE.NXDOMAIN
        elif request.q.qtype in (QTYPE.TXT, QTYPE.ANY):
            for value in values:
                reply.add_answer(RR(qname, QTYPE.TXT, rdata=TXT(value), ttl=TTL_S))
        return reply


_OPCODE_UPDATE = dns.opcode.UPDATE


class Handler(DNSHandler):  # type: ignore[misc]
    """dnslib's handler, with DNS UPDATE decoded and answered through dnspython."""

    def get_reply(self, data: bytes) -> bytes:
        """The reply's wire bytes (UPDATE: NOERROR once applied)."""
        if len(data) >= 4 and (struct.unpack("!H", data[2:4])[0] >> 11) & 0xF == _OPCODE_UPDATE:
            zone: Zone = self.server.resolver.zone
            try:
                update = dns.message.from_wire(data)
            except dns.exception.DNSException as exc:  # dnslib's handler logs it, no reply
                raise DNSError(f"undecodable update: {exc}") from exc
            zone.apply(update)
            answer = dns.message.make_response(update)
            wire: bytes = answer.to_wire()
            return wire
        reply: bytes = super().get_reply(data)
        return reply


def serve(port: int, store: Path, host: str = "127.0.0.1", delay_s: float = 0.0) -> list[Any]:
    """Start UDP and TCP servers on ``host:port`` in background threads, answering each
    query after ``delay_s`` seconds; returns them."""
    resolver = ZoneResolver(Zone(store), delay_s)
    logger = DNSLogger("-request,-reply,-truncated,-data,-recv,-send")
    servers = [
        DNSServer(resolver, address=host, port=port, tcp=tcp, logger=logger, handler=Handler)
        for tcp in (False, True)
    ]
    for server in servers:
        server.start_thread()
    return servers


def main() -> None:
    """Parse arguments and serve until terminated (SIGTERM or Ctrl-C)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--delay-s", type=float, default=0.0, help="answer each query late")
    args = parser.parse_args()
    args.store.parent.mkdir(parents=True, exist_ok=True)
    servers = serve(args.port, args.store, delay_s=args.delay_s)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()
    for server in servers:
        server.stop()


if __name__ == "__main__":
    main()
