#!/usr/bin/env python3
"""Checks every relative link and anchor of the built book and of Markdown files.

    python3 scripts/linkcheck.py BOOK_DIR [FILE.md ...]

BOOK_DIR is mdBook's output (target/book): every `href` and `src` of every page that is not
absolute (`https:`, `mailto:`, ...) must name a file of the book, and its `#fragment` an `id` in
that file (the page itself for `#fragment` alone). `print.html` (every page again, links
rewritten) and `404.html` (links from the site root) are left out.

Each FILE.md (the repository's README.md and the like, read on a forge) has its relative links
checked the same way against the repository: the file must exist, and a `#fragment` into a
Markdown file must be the slug of one of its headings (lower case, punctuation dropped, spaces
as hyphens).

Standard library only. Exit 1 with one line per broken link; 0 when every link resolves.
"""

import html.parser
import os
import re
import sys
import urllib.parse

SKIPPED_PAGES = {"print.html", "404.html"}


class Page(html.parser.HTMLParser):
    """The links and the ids of one HTML page."""

    def __init__(self):
        super().__init__()
        self.links = []
        self.ids = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name"):
                self.ids.add(value)
            elif name in ("href", "src"):
                self.links.append(value)


def is_external(link):
    return bool(urllib.parse.urlsplit(link).scheme) or link.startswith("//")


def parse_page(path, cache):
    if path not in cache:
        page = Page()
        with open(path, encoding="utf-8") as f:
            page.feed(f.read())
        cache[path] = page
    return cache[path]


def check_book(book):
    broken = []
    cache = {}
    for root, _, files in os.walk(book):
        for name in sorted(files):
            if not name.endswith(".html") or name in SKIPPED_PAGES:
                continue
            path = os.path.join(root, name)
            for link in parse_page(path, cache).links:
                if is_external(link):
                    continue
                target, _, fragment = link.partition("#")
                target = urllib.parse.unquote(target)
                resolved = os.path.normpath(os.path.join(root, target)) if target else path
                where = os.path.relpath(path, book)
                if not os.path.exists(resolved):
                    broken.append(f"{where}: {link}: no such file")
                    continue
                if os.path.isdir(resolved):
                    resolved = os.path.join(resolved, "index.html")
                fragment = urllib.parse.unquote(fragment)
                if fragment and resolved.endswith(".html"):
                    if fragment not in parse_page(resolved, cache).ids:
                        broken.append(f"{where}: {link}: no id {fragment!r}")
    return broken


def slug(heading):
    """A heading's anchor as a forge renders it."""
    text = re.sub(r"`|\*\*|\[|\]\([^)]*\)", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(markdown_path, cache):
    if markdown_path not in cache:
        found = set()
        fenced = False
        with open(markdown_path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("```"):
                    fenced = not fenced
                elif not fenced and line.startswith("#"):
                    found.add(slug(line.lstrip("#")))
        cache[markdown_path] = found
    return cache[markdown_path]


LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def check_markdown(path):
    broken = []
    cache = {}
    base = os.path.dirname(path)
    fenced = False
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for link in LINK.findall(line):
            if is_external(link):
                continue
            target, _, fragment = link.partition("#")
            resolved = os.path.normpath(os.path.join(base, urllib.parse.unquote(target))) if target else path
            where = f"{os.path.basename(path)}:{number}"
            if not os.path.exists(resolved):
                broken.append(f"{where}: {link}: no such file")
            elif fragment and resolved.endswith(".md") and fragment not in anchors(resolved, cache):
                broken.append(f"{where}: {link}: no heading with anchor {fragment!r}")
    return broken


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    book, files = argv[1], argv[2:]
    if not os.path.isfile(os.path.join(book, "index.html")):
        print(f"linkcheck: {book} holds no built book", file=sys.stderr)
        return 1
    broken = check_book(book)
    for path in files:
        broken.extend(check_markdown(path))
    for line in broken:
        print(f"broken link: {line}")
    pages = sum(1 for _, _, fs in os.walk(book) for f in fs if f.endswith(".html"))
    print(f"linkcheck: {pages} pages and {len(files)} Markdown files, {len(broken)} broken link(s)",
          file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
