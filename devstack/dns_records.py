"""Development-only stand-in: the DNS records endpoint, ``/dev/dns/<name>``.

``PUT /dev/dns/<name>`` with ``{"txt": [...]}`` sets the TXT values the DNS stand-in
(devstack/dns_server.py) answers for a name, ``DELETE`` makes the name not exist (NXDOMAIN),
``GET`` shows what a lookup gets: what a domain owner would do at their DNS host to prove a
domain (SPEC's domain verification).

``api.kernel.config.Settings.check`` refuses ``DEV_STAND_INS`` outside development, so production
never mounts this module.
"""

from __future__ import annotations

from typing import Any

import dns.asyncquery
import dns.exception
import dns.message
import dns.name
import dns.rcode
import dns.rdataclass
import dns.rdatatype
import dns.rdtypes.ANY.TXT
import dns.update
from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel

router = APIRouter(include_in_schema=False)


class DnsRecords(BaseModel):
    """``PUT /dev/dns/<name>`` body: the name's TXT values (empty: the name exists with no TXT
    record, a NODATA answer)."""

    txt: list[str]


def _nameserver(request: Request) -> tuple[str, int]:
    settings = request.app.state.settings
    return settings.dns.nameservers[0], settings.dns.port


def _dns_name(name: str) -> dns.name.Name:
    try:
        return dns.name.from_text(name.strip().rstrip(".").lower())
    except dns.exception.DNSException as exc:
        raise HTTPException(400, f"Not a DNS name: {name!r}") from exc


async def _update(request: Request, update: dns.update.UpdateMessage) -> None:
    """Send an RFC 2136 update to the DNS stand-in over TCP."""
    host, port = _nameserver(request)
    answer = await dns.asyncquery.tcp(update, host, port=port, timeout=5)
    if answer.rcode() != dns.rcode.NOERROR:
        raise HTTPException(502, f"DNS stand-in answered {dns.rcode.to_text(answer.rcode())}")


async def _served(request: Request, name: dns.name.Name) -> dict[str, Any]:
    host, port = _nameserver(request)
    answer = await dns.asyncquery.udp(
        dns.message.make_query(name, "TXT"), host, port=port, timeout=5
    )
    values = [
        b"".join(rdata.strings).decode()
        for rrset in answer.answer
        for rdata in rrset
        if isinstance(rdata, dns.rdtypes.ANY.TXT.TXT)
    ]
    return {
        "name": name.to_text(omit_final_dot=True),
        "rcode": dns.rcode.to_text(answer.rcode()),
        "txt": values,
    }


@router.put("/dev/dns/{name}")
async def set_dns_records(name: str, body: DnsRecords, request: Request) -> dict[str, Any]:
    """Replace the TXT values of ``name`` in the DNS stand-in; returns what a lookup gets."""
    qname = _dns_name(name)
    update = dns.update.UpdateMessage(qname)
    update.delete(qname, "TXT")
    for value in body.txt:
        update.add(
            qname,
            60,
            dns.rdtypes.ANY.TXT.TXT(dns.rdataclass.IN, dns.rdatatype.TXT, [value.encode()]),
        )
    await _update(request, update)
    return await _served(request, qname)


@router.delete("/dev/dns/{name}")
async def delete_dns_name(name: str, request: Request) -> dict[str, Any]:
    """Forget ``name``: lookups of it answer NXDOMAIN again."""
    qname = _dns_name(name)
    update = dns.update.UpdateMessage(qname)
    update.delete(qname)
    await _update(request, update)
    return await _served(request, qname)


@router.get("/dev/dns/{name}")
async def get_dns_records(name: str, request: Request) -> dict[str, Any]:
    """What a TXT lookup of ``name`` gets from the DNS stand-in: rcode and values."""
    return await _served(request, _dns_name(name))
