"""Copies an .npz renaming its members outN.npy -> argN.npy, and prints per
member its dtype and the FNV-1a 64 of its data section. Pure Python (zipfile,
no numpy): it checks that xlite's archives are plain zips and recomputes the
checksum `xlite run` prints, independently.

Usage: rename_npz.py IN.npz OUT.npz
"""
import ast
import struct
import sys
import zipfile


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    with zipfile.ZipFile(sys.argv[1]) as src, zipfile.ZipFile(sys.argv[2], "w") as dst:
        for info in src.infolist():
            content = src.read(info.filename)
            (header_len,) = struct.unpack("<H", content[8:10])
            header = ast.literal_eval(content[10:10 + header_len].decode())
            data = content[10 + header_len:]
            print(f"{info.filename} {header['descr']} fnv1a64={fnv1a64(data):016x}")
            name = info.filename
            if name.startswith("out"):
                name = "arg" + name[len("out"):]
            dst.writestr(name, content)


if __name__ == "__main__":
    main()
