"""Plain-text tables for terminals and CI logs; CJK characters count as two columns."""

from __future__ import annotations

from unicodedata import east_asian_width


def table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """Left-aligned columns under a dashed rule."""

    def width(s: str) -> int:
        return sum(2 if east_asian_width(ch) in "WF" else 1 for ch in s)

    cols = list(zip(header, *rows))
    widths = [max(width(c) for c in col) for col in cols]
    lines = []
    for r, row in enumerate([header, *rows]):
        lines.append("  ".join(c + " " * (w - width(c)) for c, w in zip(row, widths)).rstrip())
        if r == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)
