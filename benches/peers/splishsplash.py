"""SPlisHSPlasH (DFSPH) timings for benches/peers/bench_peers.sh.

`model`: its own DamBreakModel scene for 0.2 s; prints particles, ms per step and
particle-steps per second. `matched`: the tank and column of scenes/dam_break.toml
(tank 0.8 x 0.4 x 0.2 m, column 0.2 x 0.3 x 0.2 m); prints wall seconds per simulated second.
"""
import argparse
import json
import os
import re
import sys
import tempfile
import time

import pysplishsplash as sph


def run(scene_file, out_dir, stop_at):
    sim = sph.Exec.SimulatorBase()
    sim.init(sceneFile=scene_file, useCache=False, outputDir=out_dir,
             initialPause=False, useGui=False, stopAt=stop_at)
    start = time.perf_counter()
    sim.run()
    return time.perf_counter() - start


def particles_and_step_ms(log_text):
    n = re.search(r"Number of fluid particles: (\d+)", log_text)
    ms = re.search(r"Average time: SimStep: ([0-9.]+) ms", log_text)
    return (int(n.group(1)) if n else None, float(ms.group(1)) if ms else None)


def matched_scene(spacing, sim_time, models):
    return {
        "Configuration": {
            "particleRadius": spacing / 2, "simulationMethod": 4, "gravitation": [0, -9.81, 0],
            "timeStepSize": 0.001, "cflMethod": 1, "cflFactor": 1, "cflMaxTimeStepSize": 0.005,
            "boundaryHandlingMethod": 2, "stopAt": sim_time,
            "DFSPH": {"minIterations": 2, "maxIterations": 100, "maxError": 0.05,
                      "maxIterationsV": 100, "maxErrorV": 0.1, "enableDivergenceSolver": True},
        },
        "Materials": [{"id": "Fluid", "density0": 1000, "viscosityMethod": 1,
                       "Standard viscosity": {"viscosity": 0.01}}],
        "RigidBodies": [{
            "geometryFile": os.path.join(models, "UnitBox.obj"), "translation": [0.4, 0.2, 0.1],
            "scale": [0.8, 0.4, 0.2], "isDynamic": False, "isWall": True, "mapInvert": True,
            "mapThickness": 0.0, "mapResolution": [40, 20, 10],
        }],
        "FluidBlocks": [{"denseMode": 0, "start": [0, 0, 0], "end": [0.2, 0.3, 0.2]}],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["model", "matched"])
    ap.add_argument("--spacing", type=float, default=0.01)
    ap.add_argument("--time", type=float, default=1.5)
    args = ap.parse_args()
    data = os.path.join(os.path.dirname(sys.executable), "data")
    out = tempfile.mkdtemp()
    # SPlisHSPlasH logs to stdout from C++; capture it through a file descriptor swap.
    log_path = os.path.join(out, "log.txt")
    saved = os.dup(1)
    with open(log_path, "w") as log:
        os.dup2(log.fileno(), 1)
        try:
            if args.mode == "model":
                wall = run(os.path.join(data, "Scenes", "DamBreakModel.json"), out, 0.2)
            else:
                scene = matched_scene(args.spacing, args.time, os.path.join(data, "models"))
                scene_file = os.path.join(out, "dam_break.json")
                with open(scene_file, "w") as f:
                    json.dump(scene, f)
                wall = run(scene_file, out, args.time)
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
    text = open(log_path).read()
    print(text)
    n, ms = particles_and_step_ms(text)
    if n is None:
        sys.exit("SPlisHSPlasH printed no particle count")
    if args.mode == "model":
        if ms is None:
            sys.exit("SPlisHSPlasH printed no step time")
        print(f"SPlisHSPlasH DFSPH (DamBreakModel): {n} particles, {ms:.2f} ms/step, "
              f"{n / ms / 1000:.2f}M particle-steps/s")
    else:
        print(f"SPlisHSPlasH DFSPH, scenes/dam_break.toml's tank and column at spacing "
              f"{args.spacing}: {n} particles, {wall / args.time:.3f} wall s per simulated s")


if __name__ == "__main__":
    main()
