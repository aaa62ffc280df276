#!/usr/bin/env python3
"""doclinks.py [ROOT]: every relative link of the Markdown files (those git
tracks in a checkout, else every *.md outside build/) names a file that
exists, and an anchor (#...) a heading of that file, as GitHub makes
anchors of headings. Prints each broken link; exit 1 if any."""
import os
import re
import subprocess
import sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
os.chdir(root)
try:  # a checkout: the files git tracks
    files = subprocess.check_output(['git', 'ls-files', '*.md'], text=True,
                                    stderr=subprocess.DEVNULL).split()
except (OSError, subprocess.CalledProcessError):
    files = []
if not files:  # a tree that is no checkout: every *.md but build/'s
    for top, dirs, names in os.walk('.'):
        dirs[:] = [d for d in dirs if d != 'build' and not d.startswith('.')]
        files += [os.path.normpath(os.path.join(top, n))
                  for n in names if n.endswith('.md')]
    files.sort()


def slug(heading):
    h = heading.lstrip('#').strip().lower()
    return re.sub(r'[^\w\- ]', '', h).replace(' ', '-')


anchors = {}
for f in files:
    with open(f, encoding='utf-8') as fh:
        anchors[f] = {slug(line) for line in fh if line.startswith('#')}
bad = links = 0
for f in files:
    with open(f, encoding='utf-8') as fh:
        text = fh.read()
    for m in re.finditer(r'\[([^\]]*)\]\(([^)\s]+)\)', text):
        target = m.group(2)
        if re.match(r'[a-z]+:', target):
            continue
        links += 1
        path, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(dest):
            print(f'{f}: {target}: no such file')
            bad += 1
        elif anchor and dest.endswith('.md') and anchor not in anchors.get(dest, ()):
            print(f'{f}: {target}: no such heading')
            bad += 1
print(f'doclinks: {links} links in {len(files)} files, {bad} broken')
sys.exit(1 if bad else 0)
