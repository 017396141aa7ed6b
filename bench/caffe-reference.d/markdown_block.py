"""Rewrites one marked block of a markdown file (BENCHMARKS.md), or appends it when it is missing,
for the harnesses under bench/ that are written in Python."""


def write_block(path, begin, end, block):
    """Replaces the text from `begin` to `end` (the markers included) in `path` with `block`."""
    text = path.read_text() if path.exists() else ""
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + block + rest.split(end, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + block
    path.write_text(text)
