#!/usr/bin/env bash
# Regenerate the liquid-surface pictures of docs/src/guide/rendering.md into docs/src/images/:
# blender_dam_break.png, blender_toppling_block.png (the add-on's water surface) and
# surface_options.png (what each `sphrigid surface` option changes, one dam-break frame).
#
#     bash docs/plots/surface.sh            # from anywhere
#
# Runs the scenes with target/release/sphrigid (built if missing) into target/plots/surface/,
# builds their surfaces, and renders them with integrations/blender/sphrigid_blender.py in
# Blender's `bpy` (Cycles, CPU): with $PYTHON if set, else the first of `python3` and
# target/pyenv/bin/python (made by scripts/test.sh) that imports bpy
# (`pip install bpy==5.0.1 pillow`, Python 3.11),
# or with `blender` ($BLENDER) when no Python has bpy. The option grid is put together with
# Pillow. About 10 minutes on 2 cores, most of it Cycles.
set -euo pipefail
cd "$(dirname "$0")/../.."

SPH=target/release/sphrigid
OUT=target/plots/surface
IMG=docs/src/images
ADDON=integrations/blender
[ -x "$SPH" ] || cargo build --release
mkdir -p "$OUT" "$IMG"

# The Python with bpy (and numpy), or Blender itself.
py=()
for p in ${PYTHON:-} python3 target/pyenv/bin/python; do
    if command -v "$p" >/dev/null && "$p" -c "import bpy, numpy" 2>/dev/null; then py=("$p"); break; fi
done
if [ ${#py[@]} -eq 0 ]; then
    command -v "${BLENDER:-blender}" >/dev/null || {
        echo "no bpy: pip install bpy==5.0.1 pillow (Python 3.11), or put blender on PATH" >&2
        exit 2
    }
    py=("${BLENDER:-blender}" -b --python-exit-code 1 --python)
fi
# Blender's own Python reads its script's arguments after `--`.
render() { # render RUN OUT.png FRAME W H SAMPLES [--box x0 y0 z0 x1 y1 z1] [--dir dx dy dz]
    rm -f "$2"
    if [ "${py[0]##*/}" = blender ] || [ "${py[0]}" = "${BLENDER:-blender}" ]; then
        "${py[@]}" "$OUT/render.py" -- "$ADDON" "$@"
    else
        "${py[@]}" "$OUT/render.py" "$ADDON" "$@"
    fi | grep -v '^Fra:\|^ *[0-9:.]* *render *|' || true
    [ -s "$2" ] || { echo "render of $2 failed" >&2; exit 1; }
}

# The renderer: the add-on's load_run and setup_render (the camera fitted to a box, water with
# a faint absorption, 32 light bounces), then denoising, a softer sun and AgX.
cat >"$OUT/render.py" <<'EOF'
"""render.py ADDON_DIR RUN OUT.png FRAME W H SAMPLES [--box x0 y0 z0 x1 y1 z1] [--dir dx dy dz]
Renders frame FRAME of the sphrigid run RUN with the add-on. --box: the box (data space, y up)
the camera frames, default the container; --dir: from the box's centre towards the camera, in
data space (default 0.45 0.6 1: in front of the open side, to the right and above)."""
import argparse
import math
import os
import sys
import time

argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
ap = argparse.ArgumentParser()
ap.add_argument("addon")
ap.add_argument("run")
ap.add_argument("out")
for name in ("frame", "w", "h", "samples"):
    ap.add_argument(name, type=int)
ap.add_argument("--box", type=float, nargs=6)
ap.add_argument("--dir", type=float, nargs=3, default=(0.45, 0.6, 1.0))
a = ap.parse_args(argv)
sys.path.insert(0, a.addon)
import bpy  # noqa: E402
import sphrigid_blender as sb  # noqa: E402

t0 = time.time()
bpy.ops.wm.read_factory_settings(use_empty=True)
m = sb.read_manifest(a.run)
run = sb.load_run(a.run)
assert run["shows"] == "surface", f"{a.run}: no liquid surface to render"
scene = bpy.context.scene
scene.frame_set(a.frame)
box = (a.box[:3], a.box[3:]) if a.box else None
sb.setup_render(run, m, (a.w, a.h), a.samples, box=box, direction=a.dir)

c = scene.cycles
c.glossy_bounces, c.diffuse_bounces = 8, 2
c.use_denoising = True
sun = bpy.data.objects["sphrigid sun"]
sun.data.angle = math.radians(8)
sun.rotation_euler = (math.radians(35), 0, math.radians(-35))
bg = scene.world.node_tree.nodes["Background"]
bg.inputs["Color"].default_value = (0.8, 0.85, 0.9, 1)
bg.inputs["Strength"].default_value = 0.9
scene.view_settings.view_transform = "AgX"
scene.view_settings.look = "AgX - Medium High Contrast"
scene.render.image_settings.color_mode = "RGB"
scene.render.image_settings.compression = 100
scene.render.filepath = os.path.abspath(a.out)
t1 = time.time()
bpy.ops.render.render(write_still=True)
print(f"{a.out}: frame {a.frame}, {a.w}x{a.h}, {a.samples} samples: load {t1 - t0:.1f} s, "
      f"render {time.time() - t1:.1f} s")
EOF

shrink() { # shrink PNG...: 256 colours (Pillow), a third of the size for the same look
    "${PYTHON_PIL:-${py[0]}}" - "$@" <<'EOF' 2>/dev/null || echo "(no Pillow: PNGs kept as rendered)"
import sys
from PIL import Image
for p in sys.argv[1:]:
    Image.open(p).convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT,
                                          dither=Image.Dither.FLOYDSTEINBERG).save(p, optimize=True)
EOF
}

run() { # run NAME SCENE FRAMES [sphrigid run options...]
    local name=$1 scene=$2 frames=$3
    shift 3
    "$SPH" run "$scene" --out "$OUT/$name" --frames "$frames" --overwrite --quiet \
        --checkpoint-every 0 --backend cpu "$@"
}

# --- The dam break at frame 17 (0.57 s): the surge has run up the far wall -----------------
run dam_break scenes/dam_break.toml 20
"$SPH" surface "$OUT/dam_break"
render "$OUT/dam_break" "$IMG/blender_dam_break.png" 17 960 540 48

# --- The toppling block at frame 8 (0.27 s): the wave has tipped it about 33 degrees -------
run topple scenes/toppling_block.toml 12 --surface
render "$OUT/topple" "$IMG/blender_toppling_block.png" 8 960 540 48
shrink "$IMG/blender_dam_break.png" "$IMG/blender_toppling_block.png"

# --- What each `sphrigid surface` option changes: dam-break frame 17, its far half ----------
# Each variant is a copy of the run (manifest and particles) with frame 17's surface built.
panels=(
    "defaults (2, 0.75, 0.6, 5)|"
    "--cube-size 1.5 (coarser cells)|--cube-size 1.5"
    "--smoothing-length 1.5 (narrower kernel)|--smoothing-length 1.5"
    "--threshold 0.4 (iso value lower: fatter)|--threshold 0.4"
    "--smooth 0 (no mesh smoothing)|--smooth 0"
    "--smooth 20|--smooth 20"
)
list=()
for i in "${!panels[@]}"; do
    label=${panels[$i]%%|*}
    opts=${panels[$i]#*|}
    dir=$OUT/option_$i
    rm -rf "$dir"
    mkdir -p "$dir"
    cp -r "$OUT/dam_break/manifest.json" "$OUT/dam_break/fluid" "$dir/"
    # shellcheck disable=SC2086 # opts is a word list
    "$SPH" surface "$dir" --frames 17 $opts
    render "$dir" "$dir/panel.png" 17 480 300 24 --box 0.4 0 0 0.8 0.4 0.2 --dir 0.35 0.45 1
    list+=("$dir/panel.png" "$label")
done
"${PYTHON_PIL:-${py[0]}}" - "$IMG/surface_options.png" "${list[@]}" <<'EOF'
import sys
from PIL import Image, ImageDraw, ImageFont
out, items = sys.argv[1], sys.argv[2:]
panels = [(Image.open(items[i]).convert("RGB"), items[i + 1]) for i in range(0, len(items), 2)]
w, h = panels[0][0].size
cols, bar = 3, 26
rows = (len(panels) + cols - 1) // cols
sheet = Image.new("RGB", (cols * w, rows * (h + bar)), "white")
try:
    font = ImageFont.truetype("DejaVuSans.ttf", 15)
except OSError:
    font = ImageFont.load_default(size=15)
draw = ImageDraw.Draw(sheet)
for k, (img, label) in enumerate(panels):
    x, y = (k % cols) * w, (k // cols) * (h + bar)
    sheet.paste(img, (x, y + bar))
    draw.text((x + 8, y + 4), label, fill="black", font=font)
sheet.quantize(256, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)
EOF
ls -l "$IMG"/blender_dam_break.png "$IMG"/blender_toppling_block.png "$IMG"/surface_options.png
