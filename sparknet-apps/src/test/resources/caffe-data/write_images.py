"""Writes PNGs of known pixels for Caffe's ImageData lists, with PIL (Debian's python3-pil).

Run with /usr/bin/python3. Usage: write_images.py OUT_DIR

  colour/a 0.png, colour/b.png, colour/sub/c.png   RGB, 6 wide x 4 high, image i (0, 1, 2):
      R = (37 i + 11 x + 29 y) % 256, G = (91 i + 7 x + 53 y + 100) % 256,
      B = (13 i + 61 x + 17 y + 200) % 256
  grey/g0.png, grey/g1.png                         L (8-bit grey), 6 x 4, v = (45 i + 23 x + 41 y) % 256
  other/big.png                                    RGB 7 x 5, all (10, 20, 30)
  colour/broken.png                                not an image (text)

With "reference" as a second argument it prints, from OpenCV (python3-opencv, the same 4.6 as the
JavaCPP presets), what cv2.imread and cv2.resize give for them: the lines of
image_list_reference.txt (name, is_color, new_height, new_width, then the values in C x H x W).
"""
import os
import sys

from PIL import Image

COLOUR = ["a 0.png", "b.png", os.path.join("sub", "c.png")]
GREY = ["g0.png", "g1.png"]


def colour(i, x, y):
    return ((37 * i + 11 * x + 29 * y) % 256, (91 * i + 7 * x + 53 * y + 100) % 256,
            (13 * i + 61 * x + 17 * y + 200) % 256)


def write(out):
    os.makedirs(os.path.join(out, "colour", "sub"), exist_ok=True)
    os.makedirs(os.path.join(out, "grey"), exist_ok=True)
    os.makedirs(os.path.join(out, "other"), exist_ok=True)
    for i, name in enumerate(COLOUR):
        img = Image.new("RGB", (6, 4))
        img.putdata([colour(i, x, y) for y in range(4) for x in range(6)])
        img.save(os.path.join(out, "colour", name))
    for i, name in enumerate(GREY):
        img = Image.new("L", (6, 4))
        img.putdata([(45 * i + 23 * x + 41 * y) % 256 for y in range(4) for x in range(6)])
        img.save(os.path.join(out, "grey", name))
    Image.new("RGB", (7, 5), (10, 20, 30)).save(os.path.join(out, "other", "big.png"))
    with open(os.path.join(out, "colour", "broken.png"), "w") as f:
        f.write("not a PNG")


def reference(out):
    import cv2

    names = [os.path.join("colour", n) for n in COLOUR] + [os.path.join("grey", n) for n in GREY]
    for name in names:
        for color in (True, False):
            img = cv2.imread(os.path.join(out, name), cv2.IMREAD_COLOR if color else cv2.IMREAD_GRAYSCALE)
            for h, w in ((0, 0), (3, 5), (7, 9)):
                m = img if h == 0 else cv2.resize(img, (w, h))
                chw = m.transpose(2, 0, 1) if m.ndim == 3 else m[None]
                vals = " ".join(str(int(v)) for v in chw.flatten())
                print("%s\t%d\t%d\t%d\t%s" % (name, int(color), h, w, vals))


if __name__ == "__main__":
    write(sys.argv[1])
    if len(sys.argv) > 2 and sys.argv[2] == "reference":
        reference(sys.argv[1])
