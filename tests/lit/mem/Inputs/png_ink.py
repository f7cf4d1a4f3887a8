"""Prints what share of a PNG screenshot is ink (pixels far from white) and
whether each of the given horizontal bands (top,bottom as fractions of the
height) holds ink, for FileCheck: proof that a browser drew the plot and
its parts rather than an empty or broken page. Reads 8-bit RGB/RGBA PNGs
(what Chromium writes) with zlib only."""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and color in (2, 6), f"unsupported PNG (depth {depth}, color {color})"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, row = line[0], bytearray(line[1:])
        for i in range(stride):
            left = row[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                row[i] = (row[i] + left) & 255
            elif kind == 2:
                row[i] = (row[i] + up) & 255
            elif kind == 3:
                row[i] = (row[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                row[i] = (row[i] + pred) & 255
        rows.append(row)
        previous = row
    return width, height, channels, rows


width, height, channels, rows = read_png(sys.argv[1])
ink_rows = [sum(1 for x in range(width) if min(r[x * channels:x * channels + 3]) < 160)
            for r in rows]
print(f"ink: {100 * sum(ink_rows) / (width * height):.0f}%")
for band in sys.argv[2:]:
    top, bottom = (float(v) for v in band.split(","))
    ink = sum(ink_rows[int(top * height):int(bottom * height)])
    print(f"band {band}: {'ink' if ink > 0 else 'blank'}")
