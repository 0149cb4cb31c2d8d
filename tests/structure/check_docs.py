#!/usr/bin/env python3
"""check_docs.py: docs/config.md's table of plain fields is the one the
field table gives (`trainplan fields --markdown`).

Usage: check_docs.py TRAINPLAN DOC [--write]   (--write rewrites the block).
"""
import subprocess
import sys

BEGIN, END = "<!-- fields:begin -->\n", "<!-- fields:end -->\n"


def main():
    cli, doc = sys.argv[1], sys.argv[2]
    table = subprocess.run([cli, "fields", "--markdown"], capture_output=True, text=True, check=True).stdout
    text = open(doc, encoding="utf-8").read()
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    if text[start:end] == table:
        print(f"{doc}: the fields table is current ({table.count(chr(10)) - 2} fields)")
        return 0
    if "--write" in sys.argv:
        open(doc, "w", encoding="utf-8").write(text[:start] + table + text[end:])
        print(f"{doc}: fields table rewritten")
        return 0
    print(f"{doc}: the fields table is stale; run ci/docs.sh and review the diff")
    return 1


if __name__ == "__main__":
    sys.exit(main())
