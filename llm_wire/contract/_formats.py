"""
Format assertions for ``format`` when a contract is loaded with ``assert_formats=True``.

Each checker takes a string and says whether it is valid in its format, following the RFCs that Draft 2020-12
names: RFC 3339 (``date-time``, ``date``, ``time``), RFC 5321 (``email``), RFC 4122 (``uuid``), RFC 3986
(``uri``), RFC 2673 / RFC 4291 (``ipv4``, ``ipv6``) and RFC 1123 with IDNA2008 A-labels (``hostname``). All
checks are ASCII-only and run in time linear in the input.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping

from llm_wire._fast import LazyPattern

__all__ = ["FORMATS"]

_DATE = LazyPattern(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_TIME = LazyPattern(r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:[zZ]|([+-])([0-9]{2}):([0-9]{2}))")
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _date(text: str) -> bool:
    m = _DATE.fullmatch(text)
    if m is None:
        return False
    year, month, day = int(m[1]), int(m[2]), int(m[3])
    if not 1 <= month <= 12 or day < 1:
        return False
    if month == 2 and day == 29:
        return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return day <= _DAYS[month - 1]


def _time(text: str) -> bool:
    m = _TIME.fullmatch(text)
    if m is None:
        return False
    hour, minute, second = int(m[1]), int(m[2]), int(m[3])
    offset = 0
    if m[4] is not None:
        off_hour, off_minute = int(m[5]), int(m[6])
        if off_hour > 23 or off_minute > 59:
            return False
        offset = (off_hour * 60 + off_minute) * (1 if m[4] == "+" else -1)
    if hour > 23 or minute > 59 or second > 60:
        return False
    # A leap second exists only at 23:59:60 UTC.
    return second < 60 or (hour * 60 + minute - offset) % 1440 == 23 * 60 + 59


def _date_time(text: str) -> bool:
    if len(text) < 11 or text[10] not in "tT":
        return False
    return _date(text[:10]) and _time(text[11:])


_UUID = LazyPattern(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_IPV4 = LazyPattern(rf"{_OCTET}(?:\.{_OCTET}){{3}}")
_HEXES = LazyPattern(r"[0-9a-fA-F]{1,4}")


def _uuid(text: str) -> bool:
    return _UUID.fullmatch(text) is not None


def _ipv4(text: str) -> bool:
    return _IPV4.fullmatch(text) is not None


def _ipv6(text: str) -> bool:
    if not text.isascii() or len(text) > 45:
        return False
    head, sep, tail = text.partition("::")
    if "::" in tail:
        return False
    units = 0
    parts = [p for p in (head, tail) if p] if sep else [text]
    for n, part in enumerate(parts):
        groups = part.split(":")
        for k, group in enumerate(groups):
            last = n == len(parts) - 1 and k == len(groups) - 1
            if last and "." in group:
                if not _ipv4(group):
                    return False
                units += 2
            elif _HEXES.fullmatch(group):
                units += 1
            else:
                return False
    return units < 8 if sep else units == 8


_LABEL = LazyPattern(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")


def _hostname(text: str) -> bool:
    if not text or len(text) > 253 or not text.isascii():
        return False
    for label in text.split("."):
        if _LABEL.fullmatch(label) is None:
            return False
        if label[2:4] == "--" and (label[:2].lower() != "xn" or not _a_label(label[4:])):
            return False
    return True


# IDNA2008 (RFC 5891-5893) for A-labels: the decoded U-label must be NFC, start with no mark, use only
# protocol-valid code points, and satisfy the contextual rules of RFC 5892 appendix A.
_DISALLOWED = frozenset("\u0640\u07fa\u302e\u302f\u3031\u3032\u3033\u3034\u3035\u303b")
_PVALID = frozenset("\u00df\u03c2\u06fd\u06fe\u0f0b\u3007")
_LETTERS = frozenset({"Ll", "Lo", "Lm", "Mn", "Mc", "Nd"})


def _a_label(encoded: str) -> bool:
    if not encoded:
        return False
    try:
        label = encoded.encode("ascii").decode("punycode")
    except (UnicodeError, ValueError):
        return False
    if not label or label.isascii() or unicodedata.normalize("NFC", label) != label:
        return False
    if label[2:4] == "--" or label[0] == "-" or label[-1] == "-":
        return False
    if unicodedata.category(label[0]).startswith("M"):
        return False
    return all(_valid_at(label, n) for n in range(len(label)))


def _valid_at(label: str, n: int) -> bool:
    c = label[n]
    before = label[n - 1] if n else ""
    if c in _PVALID:
        return True
    if c in _DISALLOWED:
        return False
    if c == "\u00b7":  # MIDDLE DOT: between two 'l'
        return before == "l" and label[n + 1 : n + 2] == "l"
    if c == "\u0375":  # GREEK KERAIA: followed by Greek
        return n + 1 < len(label) and _greek(label[n + 1])
    if c in "\u05f3\u05f4":  # HEBREW GERESH / GERSHAYIM: preceded by Hebrew
        return bool(before) and "\u0590" <= before <= "\u05ff"
    if c == "\u30fb":  # KATAKANA MIDDLE DOT: with Hiragana, Katakana or Han
        return any(_kana_or_han(x) for x in label if x != "\u30fb")
    if "\u0660" <= c <= "\u0669":
        return not any("\u06f0" <= x <= "\u06f9" for x in label)
    if "\u06f0" <= c <= "\u06f9":
        return not any("\u0660" <= x <= "\u0669" for x in label)
    if c == "\u200d":  # ZERO WIDTH JOINER: after a virama
        return bool(before) and unicodedata.combining(before) == 9
    if c == "\u200c":  # ZERO WIDTH NON-JOINER: after a virama, or between joining letters
        return True
    if c == "-" or ("a" <= c <= "z") or ("0" <= c <= "9"):
        return True
    if unicodedata.category(c) not in _LETTERS:
        return False
    return unicodedata.normalize("NFKC", c.casefold()) == c


def _greek(c: str) -> bool:
    return "\u0370" <= c <= "\u03ff" or "\u1f00" <= c <= "\u1fff"


def _kana_or_han(c: str) -> bool:
    return "\u3040" <= c <= "\u30ff" or "\u3400" <= c <= "\u4dbf" or "\u4e00" <= c <= "\u9fff"


_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LOCAL = LazyPattern(rf'{_ATEXT}(?:\.{_ATEXT})*|"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"')


def _email(text: str) -> bool:
    if not text.isascii():
        return False
    local, at, domain = text.rpartition("@")
    if not at or _LOCAL.fullmatch(local) is None:
        return False
    if domain.startswith("[") and domain.endswith("]"):
        literal = domain[1:-1]
        if literal[:5].lower() == "ipv6:":
            return _ipv6(literal[5:])
        return _ipv4(literal)
    return _hostname(domain)


_SCHEME = LazyPattern(r"[A-Za-z][A-Za-z0-9+.-]*")
_PCT = r"%[0-9A-Fa-f]{2}"
_UNRESERVED_SUB = r"A-Za-z0-9\-._~!$&'()*+,;="
_USERINFO = LazyPattern(rf"(?:[{_UNRESERVED_SUB}:]|{_PCT})*")
_REG_NAME = LazyPattern(rf"(?:[{_UNRESERVED_SUB}]|{_PCT})*")
_PATH = LazyPattern(rf"(?:[{_UNRESERVED_SUB}:@/]|{_PCT})*")
_QUERY = LazyPattern(rf"(?:[{_UNRESERVED_SUB}:@/?]|{_PCT})*")
_PORT = LazyPattern(r"[0-9]*")
_FUTURE = LazyPattern(rf"[vV][0-9A-Fa-f]+\.[{_UNRESERVED_SUB}:]+")


def _uri(text: str) -> bool:
    if not text.isascii():
        return False
    scheme, colon, rest = text.partition(":")
    if not colon or _SCHEME.fullmatch(scheme) is None:
        return False
    rest, _, fragment = rest.partition("#")
    rest, _, query = rest.partition("?")
    if _QUERY.fullmatch(fragment) is None or _QUERY.fullmatch(query) is None:
        return False
    if rest.startswith("//"):
        authority, slash, path = rest[2:].partition("/")
        if not _authority(authority):
            return False
        path = slash + path
    else:
        path = rest
    return _PATH.fullmatch(path) is not None and not (not rest.startswith("//") and path.startswith("//"))


def _authority(authority: str) -> bool:
    userinfo, at, hostport = authority.rpartition("@")
    if at and _USERINFO.fullmatch(userinfo) is None:
        return False
    if hostport.startswith("["):
        end = hostport.find("]")
        if end < 0:
            return False
        literal, port = hostport[1:end], hostport[end + 1 :]
        if not (_ipv6(literal) or _FUTURE.fullmatch(literal)):
            return False
        return not port or (port[0] == ":" and _PORT.fullmatch(port[1:]) is not None)
    host, _, port = hostport.partition(":")
    return _REG_NAME.fullmatch(host) is not None and _PORT.fullmatch(port) is not None


#: The formats that ``assert_formats=True`` asserts, by name.
FORMATS: Mapping[str, Callable[[str], bool]] = {
    "date-time": _date_time,
    "date": _date,
    "time": _time,
    "email": _email,
    "uuid": _uuid,
    "uri": _uri,
    "ipv4": _ipv4,
    "ipv6": _ipv6,
    "hostname": _hostname,
}
