#!/usr/bin/env bash
# Regenerate the liquid plots of docs/src/validation.md into docs/src/images/validation/.
#
# Runs the validation tests' own scenes with the release binary (into target/plots/liquid/)
# and draws them with `sphrigid figure`. About 2 minutes on 2 cores. Run from anywhere:
#   cargo build --release && docs/plots/liquid.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=target/release/sphrigid
work=target/plots/liquid
img=docs/src/images/validation
mkdir -p "$work" "$img"
[ -x "$bin" ] || { echo "build first: cargo build --release" >&2; exit 2; }

# Print a number the way the tests compute it (awk, double precision).
calc() { awk "BEGIN { printf \"%.10g\", $1 }"; }

run() { # run NAME FRAMES: the scene $work/NAME.toml into $work/NAME
    "$bin" run "$work/$1.toml" --out "$work/$1" --frames "$2" --overwrite --quiet \
        --checkpoint-every 0 --backend cpu
}

# The column collapse of tests/liquid/martin_moyce.rs: a column a wide and 2a tall in a slab
# 7 spacings deep, `n` particles across a, frames every millisecond.
column() { # column NAME A TANK N FRAMES
    local name=$1 a=$2 tank=$3 n=$4 frames=$5 s
    s=$(calc "$a / $n")
    cat > "$work/$name.toml" <<TOML
[time]
fps = 1000
[container]
min = [0, 0, 0]
max = [$(calc "$tank * $a"), $(calc "0.16 * $a / 0.05715"), $(calc "7 * $s")]
ghost_pressure = true
[[liquid]]
min = [0, 0, 0]
max = [$a, $(calc "2 * $a"), $(calc "7 * $s")]
spacing = $s
TOML
    run "$name" "$frames"
}

# Martin & Moyce's 2.25 in column at a/16 and a/24, to T = 3.5 (t = 0.18 s).
for n in 16 24; do
    column mm_$n 0.05715 7 $n 180
    "$bin" figure "$work/mm_$n" --front 0.05715 --time-shift 0.2 \
        --reference tests/data/martin_moyce_1952.csv --frames 0:160:40 -o "$work/mm_$n/fig"
    cp "$work/mm_$n/fig/front.png" "$img/liquid_martin_moyce_front_$n.png"
done
cp "$work/mm_16/fig/frames.png" "$img/liquid_martin_moyce_frames.png"

# Martin & Moyce's 1.125 in column (tank 9a) to T = 5.5 and Koshizuka & Oka's 0.146 m column
# (tank 4a) to T = 3.3, at a/16.
column mm_small_16 0.028575 9 16 202
"$bin" figure "$work/mm_small_16" --front 0.028575 --time-shift 0.2 \
    --reference tests/data/martin_moyce_1952_1125in.csv -o "$work/mm_small_16/fig"
cp "$work/mm_small_16/fig/front.png" "$img/liquid_martin_moyce_1125in_front.png"
column ko_16 0.146 4 16 270
"$bin" figure "$work/ko_16" --front 0.146 --time-shift 0.2 \
    --reference tests/data/koshizuka_oka_1996.csv -o "$work/ko_16/fig"
cp "$work/ko_16/fig/front.png" "$img/liquid_koshizuka_oka_front.png"

# The still tank of tests/liquid/walls.rs: 10 x 20 x 3 particles at 1 cm, k = 100, 4 s, the
# pressure averaged over its last 3 s (frames 51 to 200) as the test averages it. The sizes
# are written as the test writes its f32 products (10 x 0.01 is 0.099999994), so that this
# run is the test's run.
cat > "$work/still_tank.toml" <<TOML
[time]
fps = 50
[container]
min = [0, 0, 0]
max = [0.099999994, 0.29999998, 0.03]
ghost_pressure = true
[[liquid]]
min = [0, 0, 0]
max = [0.099999994, 0.19999999, 0.03]
spacing = 0.01
stiffness = 100
viscosity = { sigma = 2 }
TOML
run still_tank 200
"$bin" figure "$work/still_tank" --profile 51:200 --frames 0,200 -o "$work/still_tank/fig"
cp "$work/still_tank/fig/profile.png" "$img/liquid_hydrostatic_profile.png"

# The dam break of tests/liquid/walls.rs: scenes/dam_break.toml in a slab 5 particles deep,
# to 3 s: no floor row sliding detached, no files standing on the walls.
"$bin" run scenes/dam_break.toml --out "$work/dam_break_slab" --frames 90 --overwrite --quiet \
    --checkpoint-every 0 --backend cpu \
    --set 'container.max=[0.8, 0.4, 0.05]' --set 'liquid.0.max=[0.2, 0.3, 0.05]'
"$bin" figure "$work/dam_break_slab" --frames 0,15,45,90 -o "$work/dam_break_slab/fig"
cp "$work/dam_break_slab/fig/frames.png" "$img/liquid_walls_dam_break.png"

# The still box of tests/liquid/rest.rs: 15 x 7 x 15 particles at 4 mm, 2 s.
cat > "$work/still_box.toml" <<TOML
[time]
fps = 50
[container]
min = [0, 0, 0]
max = [0.06, 0.06, 0.06]
[[liquid]]
min = [0, 0, 0]
max = [0.06, 0.028, 0.06]
spacing = 0.004
viscosity = { sigma = 20 }
TOML
run still_box 100
"$bin" figure "$work/still_box" --frames 0,100 -o "$work/still_box/fig"
cp "$work/still_box/fig/frames.png" "$img/liquid_rest_still_box.png"

# The duct of tests/liquid/wall_friction.rs at a/8 without ghost pressure: a slug 4 sides
# long at 0.2 m/s in a square duct of side 2 cm, no gravity, viscous friction 0.005 m/s, 0.5 s.
cat > "$work/duct.toml" <<TOML
gravity = [0, 0, 0]
[time]
fps = 100
[solver]
settle = false
[container]
min = [-0.6, 0, 0]
max = [0.6, 0.02, 0.02]
viscous_friction = 0.005
ghost_pressure = false
[[liquid]]
min = [-0.04, 0, 0]
max = [0.04, 0.02, 0.02]
spacing = 0.0025
velocity = [0.2, 0, 0]
viscosity = { sigma = 1000 }
TOML
run duct 50
"$bin" figure "$work/duct" --velocity --frames 0,50 -o "$work/duct/fig"
cp "$work/duct/fig/velocity.png" "$img/liquid_wall_friction_velocity.png"

# The free blob of tests/liquid/momentum.rs: the same slug with no container, 0.5 s.
cat > "$work/blob.toml" <<TOML
gravity = [0, 0, 0]
[time]
fps = 100
[solver]
settle = false
[[liquid]]
min = [-0.04, 0, 0]
max = [0.04, 0.02, 0.02]
spacing = 0.0025
velocity = [0.2, 0, 0]
viscosity = { sigma = 1000 }
TOML
run blob 50
"$bin" figure "$work/blob" --velocity --frames 0,50 -o "$work/blob/fig"
cp "$work/blob/fig/velocity.png" "$img/liquid_momentum_velocity.png"

ls -l "$img"/liquid_*.png
