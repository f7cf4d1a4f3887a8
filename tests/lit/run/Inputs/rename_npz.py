"""Copies an .npz renaming its members outN.npy -> argN.npy (Python's own
zipfile, not numpy: it also checks that xlite's archives are plain zips).

Usage: rename_npz.py IN.npz OUT.npz
"""
import sys
import zipfile


def main():
    with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], "w") as dst:
        for info in src.infolist():
            name = info.filename
            if name.startswith("out"):
                name = "arg" + name[len("out"):]
            dst.writestr(name, src.read(info.filename))
            print(info.filename, src.read(info.filename)[:60].split(b"{")[1].split(b",")[0].decode())


if __name__ == "__main__":
    main()
