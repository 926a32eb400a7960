"""A scripted engine for the client tests: each input line gets the replies of the first rule
it matches, so a test states exactly what a (possibly misbehaving) engine says.

``argv[1]`` is a JSON list of ``[pattern, replies]``; a reply is a ``re.Match.expand``
template (``\\1`` is the pattern's first group), or ``EXIT n`` to exit with status n.
Lines that match no rule get no reply. ``argv[2]`` ends each reply (LF, CR LF or CR alone).
"""

import json
import re
import sys

rules = [(re.compile(pattern), replies) for pattern, replies in json.loads(sys.argv[1])]
newline = sys.argv[2]
for line in sys.stdin:
    for pattern, replies in rules:
        match = pattern.match(line.rstrip("\r\n"))
        if match is None:
            continue
        for reply in replies:
            if reply.startswith("EXIT "):
                sys.exit(int(reply.split()[1]))
            print(match.expand(reply), end=newline, flush=True)
        break
