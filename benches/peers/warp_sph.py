"""NVIDIA Warp's SPH example on the CPU device, for benches/peers/bench_peers.sh: prints
particles and particle-steps per second over two frames after one warm-up frame."""
import os
import runpy
import time

import warp as wp

wp.config.quiet = True
wp.set_device("cpu")
path = os.path.join(os.path.dirname(wp.__file__), "examples", "core", "example_sph.py")
Example = runpy.run_path(path, run_name="peer")["Example"]
example = Example(stage_path=None)
example.step()
wp.synchronize()
frames = 2
start = time.perf_counter()
for _ in range(frames):
    example.step()
wp.synchronize()
wall = time.perf_counter() - start
steps = example.sim_step_to_frame_ratio * frames
print(f"Warp SPH example (CPU): {example.n} particles, "
      f"{example.n * steps / wall / 1e6:.2f}M particle-steps/s")
