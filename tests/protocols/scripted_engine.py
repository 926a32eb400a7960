"""A scripted engine for the client tests: each input line gets the replies of the first rule
it matches, so a test states exactly what a (possibly misbehaving) engine says.

``argv[1]`` is a JSON list of ``[pattern, replies]``; a reply is a ``re.Match.expand``
template (``\\1`` is the pattern's first group, ``$PID`` the engine's process id), ``EXIT n``
to exit with status n, or ``SLEEP s`` to say nothing for s seconds (a slow or hung engine).
Lines that match no rule get no reply. ``argv[2]`` ends each reply (LF, CR LF or CR alone).
"""

import json
import os
import re
import sys
import time

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
            elif reply.startswith("SLEEP "):
                time.sleep(float(reply.split()[1]))
            else:
                text = match.expand(reply).replace("$PID", str(os.getpid()))
                print(text, end=newline, flush=True)
        break
