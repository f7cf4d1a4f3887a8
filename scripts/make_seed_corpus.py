#!/usr/bin/env python3
"""Writes a libFuzzer seed corpus: one file per module found in the given
directories (*.hlo files, split on `// -----` lines). Missing directories are
skipped, so the corpus works without ../shared."""
import pathlib
import re
import sys

SEPARATOR = re.compile(r"^\s*// -----\s*$", re.MULTILINE)


def main():
    out = pathlib.Path(sys.argv[1])
    count = 0
    for directory in map(pathlib.Path, sys.argv[2:]):
        if not directory.is_dir():
            continue
        for path in sorted(directory.rglob("*.hlo")):
            for piece in SEPARATOR.split(path.read_text(errors="replace")):
                if piece.strip():
                    (out / f"seed{count:05d}.hlo").write_text(piece)
                    count += 1
    print(f"make_seed_corpus: {count} seeds in {out}")


if __name__ == "__main__":
    main()
