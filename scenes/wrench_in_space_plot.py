#!/usr/bin/env python3
"""Plot a body's angular velocity in its own frame from OUT/rigid_states.csv.

    sphrigid run scenes/wrench_in_space.toml
    python3 scenes/wrench_in_space_plot.py out/wrench_in_space/rigid_states.csv wrench omega.png

The CSV holds the world-frame angular velocity and the orientation quaternion (body to world);
the body-frame components are q^-1 w q. Needs matplotlib.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rotate_inverse(q, v):
    """Rotate v by the inverse of the unit quaternion q = (w, x, y, z)."""
    w, x, y, z = q
    x, y, z = -x, -y, -z
    # t = 2 (q_vec x v); v' = v + w t + q_vec x t
    tx = 2 * (y * v[2] - z * v[1])
    ty = 2 * (z * v[0] - x * v[2])
    tz = 2 * (x * v[1] - y * v[0])
    return (
        v[0] + w * tx + (y * tz - z * ty),
        v[1] + w * ty + (z * tx - x * tz),
        v[2] + w * tz + (x * ty - y * tx),
    )


def main():
    path, body, out = sys.argv[1], sys.argv[2], sys.argv[3]
    t, wx, wy, wz = [], [], [], []
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["body"] != body:
                continue
            q = tuple(float(row[k]) for k in ("qw", "qx", "qy", "qz"))
            w = rotate_inverse(q, tuple(float(row[k]) for k in ("wx", "wy", "wz")))
            t.append(float(row["time"]))
            wx.append(w[0])
            wy.append(w[1])
            wz.append(w[2])
    fig, ax = plt.subplots(figsize=(9, 4))
    ax.plot(t, wx, label="$\\omega_x$ (intermediate axis)")
    ax.plot(t, wy, label="$\\omega_y$ (smallest moment)")
    ax.plot(t, wz, label="$\\omega_z$ (largest moment)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("body-frame angular velocity (rad/s)")
    ax.set_title(f"{body}: free rotation near the intermediate axis")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
