#!/usr/bin/env python3
"""check_core.py: the shape of core/ that its style promises.

  * no function longer than 80 lines (its opening line to its closing brace);
  * no circle in the include graph of core/'s own headers;
  * no circle in the call graph between core/'s files: file A depends on
    file B when A's object uses a symbol B's defines (read with nm from the
    static library), and no two files may depend on each other, directly or
    round a longer loop.

Usage: check_core.py CORE_DIR LIBRARY   (ctest passes core/ and the built
libtrainplan_core.a). Exits 1 and says where when a rule is broken.
"""
import os
import re
import subprocess
import sys

MAX_LINES = 80


def function_lengths(path):
    """(name, first line, length) of every function defined in a C file: a
    line at column 0 that opens a definition, up to the brace closing it at
    column 0."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    start = None
    for i, line in enumerate(lines):
        if start is None and line.startswith("{") and i > 0:
            # the signature ends on the line before; find where it starts
            j = i - 1
            while j > 0 and lines[j - 1].strip() and not lines[j - 1].rstrip().endswith((";", "}", "*/")) \
                    and not lines[j - 1].startswith("#"):
                j -= 1
            match = re.search(r"(\w+)\s*\(", " ".join(lines[j:i]))
            start = (match.group(1) if match else "?", j + 1)
        elif start is not None and line.startswith("}"):
            out.append((start[0], start[1], i + 1 - start[1] + 1))
            start = None
    return out


def find_cycle(graph):
    """A list of nodes round a cycle of graph (node -> set of nodes), or None."""
    state = {}
    stack = []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def include_graph(core):
    graph = {}
    for name in sorted(os.listdir(core)):
        if name.endswith((".c", ".h")):
            text = open(os.path.join(core, name), encoding="utf-8").read()
            graph[name] = {inc for inc in re.findall(r'#include "([^"]+)"', text)}
    return graph


def call_graph(library):
    """file -> files whose symbols it uses, from nm over the archive."""
    text = subprocess.run(["nm", "-A", library], capture_output=True, text=True, check=True).stdout
    defined, used = {}, {}
    for line in text.splitlines():
        match = re.match(r"^.*?:([\w.-]+\.o):\s*(?:[0-9a-fA-F]+)?\s+([A-Za-z])\s+(\S+)$", line)
        if not match:
            continue
        member, kind, symbol = match.groups()
        member = re.sub(r"\.c\.o$|\.o$", ".c", member)
        if kind in "TDRB":
            defined[symbol] = member
        elif kind == "U":
            used.setdefault(member, set()).add(symbol)
    graph = {}
    for member, symbols in used.items():
        graph[member] = {defined[s] for s in symbols if s in defined and defined[s] != member}
    return graph


def main():
    core, library = sys.argv[1], sys.argv[2]
    problems = []
    longest = []
    for name in sorted(os.listdir(core)):
        if name.endswith(".c"):
            for function, line, length in function_lengths(os.path.join(core, name)):
                longest.append((length, f"{name}:{line} {function}"))
                if length > MAX_LINES:
                    problems.append(f"{name}:{line}: {function} is {length} lines (at most {MAX_LINES})")
    cycle = find_cycle(include_graph(core))
    if cycle:
        problems.append("include circle: " + " -> ".join(cycle))
    calls = call_graph(library)
    cycle = find_cycle(calls)
    if cycle:
        problems.append("call circle between files: " + " -> ".join(cycle))
    longest.sort(reverse=True)
    print(f"core: {len(longest)} functions, the longest {longest[0][0]} lines ({longest[0][1]}); "
          f"{sum(len(v) for v in calls.values())} calls between {len(calls)} files, no circle"
          if not problems else "core: " + str(len(problems)) + " problem(s)")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
