#!/usr/bin/env bash
# Regenerates Fixtures/media: small, deterministic media that `mockcdn serve` preloads under the default
# app at demo/fixtures/{name}. The files are committed; this script documents how they were made and
# remakes them. Needs libvips' command line (apt: libvips-tools) and an ffmpeg (apt: ffmpeg, or pip:
# imageio-ffmpeg; sample.webm needs libvpx and libopus, which Debian's ffmpeg has).
set -euo pipefail
cd "$(dirname "$0")/../Fixtures/media"
command -v vips >/dev/null || { echo "needs vips (apt-get install libvips-tools)"; exit 1; }
FFMPEG=$(command -v ffmpeg || python3 -c "import imageio_ffmpeg; print(imageio_ffmpeg.get_ffmpeg_exe())")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Four vertical bands (red, green, blue, yellow), as a PPM vips can read.
bands() { # width height [frames] > file
    python3 - "$1" "$2" "${3:-1}" <<'PY'
import sys
w, h, frames = map(int, sys.argv[1:])
colours = [(220, 30, 30), (30, 200, 30), (30, 30, 220), (230, 220, 30)]
row = b"".join(bytes(colours[x * 4 // w]) for x in range(w))
rows = []
for frame in range(frames):
    shifted = row[frame * 3 * (w // max(frames, 1)) :] + row[: frame * 3 * (w // max(frames, 1))]
    rows.append(shifted * h)
sys.stdout.buffer.write(b"P6 %d %d 255\n" % (w, h * frames) + b"".join(rows))
PY
}

bands 320 240 > "$work/bands.ppm"
vips copy "$work/bands.ppm" sample.jpg[Q=85,strip]
vips copy "$work/bands.ppm" sample.png[strip]
vips copy "$work/bands.ppm" sample.webp[Q=80,strip]
vips copy "$work/bands.ppm" sample.heic[Q=60]
bands 120 80 4 > "$work/frames.ppm"
vips copy "$work/frames.ppm" "$work/frames.v"
vips copy "$work/frames.v" animated.gif --page-height 80 2>/dev/null \
    || vips gifsave "$work/frames.v" animated.gif --page-height 80
bands 200 100 > "$work/small.ppm"
vips copy "$work/small.ppm" "$work/small.png"
python3 - "$work/small.ppm" sample.bmp <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
header, pixels = data.split(b"\n", 1)
_, w, h, _ = header.split()
w, h = int(w), int(h)
stride = (w * 3 + 3) // 4 * 4
out = bytearray(b"BM" + (54 + stride * h).to_bytes(4, "little") + b"\0\0\0\0" + (54).to_bytes(4, "little"))
out += (40).to_bytes(4, "little") + w.to_bytes(4, "little") + h.to_bytes(4, "little") + (1).to_bytes(2, "little")
out += (24).to_bytes(2, "little") + bytes(4) + (stride * h).to_bytes(4, "little") + (2835).to_bytes(4, "little") * 2
out += bytes(8)
for y in range(h - 1, -1, -1):
    row = pixels[y * w * 3 : (y + 1) * w * 3]
    out += b"".join(row[i : i + 3][::-1] for i in range(0, len(row), 3)) + bytes(stride - w * 3)
open(sys.argv[2], "wb").write(out)
PY
bands 4000 4000 > "$work/large.ppm"
vips copy "$work/large.ppm" large-4000x4000.jpg[Q=80,strip]
bands 4100 4100 > "$work/huge.ppm"
vips copy "$work/huge.ppm" large-4100x4100.jpg[Q=80,strip]

cat > sample.svg <<'SVG'
<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240" viewBox="0 0 320 240"><rect width="80" height="240" fill="#dc1e1e"/><rect x="80" width="80" height="240" fill="#1ec81e"/><rect x="160" width="80" height="240" fill="#1e1edc"/><rect x="240" width="80" height="240" fill="#e6dc1e"/></svg>
SVG

python3 - sample.pdf <<'PY'
import sys
objects = [
    b"<< /Type /Catalog /Pages 2 0 R >>",
    b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    None,
    b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
]
stream = b"BT /F1 18 Tf 20 45 Td (MockCDN fixture) Tj ET"
objects[3] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
out = bytearray(b"%PDF-1.4\n")
offsets = []
for number, body in enumerate(objects, 1):
    offsets.append(len(out))
    out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
xref = len(out)
out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
open(sys.argv[1], "wb").write(out)
PY

common=(-hide_banner -loglevel error -y)
output=(-map_metadata -1 -fflags +bitexact -flags +bitexact)
"$FFMPEG" "${common[@]}" -f lavfi -i "sine=frequency=440:duration=2" -c:a libmp3lame -b:a 64k "${output[@]}" sample.mp3
"$FFMPEG" "${common[@]}" -f lavfi -i "sine=frequency=440:duration=2" -c:a aac -b:a 64k "${output[@]}" sample.m4a
"$FFMPEG" "${common[@]}" -f lavfi -i "testsrc=size=160x120:rate=10:duration=2" -f lavfi -i "sine=frequency=440:duration=2" \
    -c:v libx264 -preset veryslow -crf 30 -pix_fmt yuv420p -c:a aac -b:a 32k -movflags +faststart "${output[@]}" \
    -shortest sample.mp4
# The same picture and tone as QuickTime (brand `qt  `) and as WebM (VP9 + Opus, one thread so the bytes
# repeat): the containers video posters are made from.
"$FFMPEG" "${common[@]}" -f lavfi -i "testsrc=size=160x120:rate=10:duration=2" -f lavfi -i "sine=frequency=440:duration=2" \
    -c:v libx264 -preset veryslow -crf 30 -pix_fmt yuv420p -c:a aac -b:a 32k -movflags +faststart "${output[@]}" \
    -shortest sample.mov
"$FFMPEG" "${common[@]}" -f lavfi -i "testsrc=size=160x120:rate=10:duration=2" -f lavfi -i "sine=frequency=440:duration=2" \
    -c:v libvpx-vp9 -crf 40 -b:v 0 -deadline good -cpu-used 2 -threads 1 -row-mt 0 -pix_fmt yuv420p \
    -c:a libopus -b:a 24k "${output[@]}" -shortest sample.webm
ls -l
