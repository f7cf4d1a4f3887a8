"""Writes an .npz of hand-built .npy members, without numpy: each argument
is NAME:DESCR:SHAPE:HEX, e.g. arr_0:<V2:2:803f0040 (a shape of commas, empty
for a scalar; the data as hex bytes). It lets tests give xlite the headers
np.save writes for ml_dtypes arrays ('<V2', '<V1', '<f1') where numpy and
ml_dtypes are not installed.

Usage: make_npz.py OUT.npz MEMBER...
"""
import struct
import sys
import zipfile


def npy(descr, shape, data):
    dims = [d for d in shape.split(",") if d]
    shape_text = "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"
    header = f"{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}"
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data


def main():
    with zipfile.ZipFile(sys.argv[1], "w") as out:
        for member in sys.argv[2:]:
            name, descr, shape, data = member.split(":")
            out.writestr(name + ".npy", npy(descr, shape, bytes.fromhex(data)))


if __name__ == "__main__":
    main()
