"""Reads a run's VTK and USD exports with independent readers (meshio, usd-core) and checks
them against the run's own PLY files. Run by tests/output_export.rs:
    python check_exports.py RUN_DIR FRAME BODY
Prints one line per check; exits non-zero (with an assertion message) on a mismatch."""
import json
import sys

import meshio
import numpy as np
from pxr import Gf, Usd, UsdGeom


def read_ply(path):
    """A binary little-endian PLY with vertex properties of float/int and optional faces."""
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode().splitlines()
    assert header[1] == "format binary_little_endian 1.0", header[1]
    n, props, faces = 0, [], 0
    element = None
    for line in header:
        w = line.split()
        if w[0] == "element":
            element = w[1]
            if element == "vertex":
                n = int(w[2])
            else:
                faces = int(w[2])
        elif w[0] == "property" and element == "vertex":
            props.append((w[2], {"float": "<f4", "int": "<i4"}[w[1]]))
    verts = np.frombuffer(data, dtype=np.dtype(props), count=n, offset=end)
    tri = None
    if faces:
        rec = np.dtype([("n", "u1"), ("v", "<i4", 3)])
        tri = np.frombuffer(data, dtype=rec, count=faces, offset=end + verts.nbytes)["v"]
    return verts, tri


def main(run, frame, body):
    manifest = json.load(open(f"{run}/manifest.json"))
    entry = manifest["frames"][frame]
    ply, _ = read_ply(f"{run}/{entry['fluid']}")
    xyz = np.stack([ply["x"], ply["y"], ply["z"]], axis=1)
    vel = np.stack([ply["vx"], ply["vy"], ply["vz"]], axis=1)

    vtu = meshio.read(f"{run}/vtk/fluid/fluid_{frame:05d}.vtu")
    assert vtu.points.shape == xyz.shape, (vtu.points.shape, xyz.shape)
    assert np.array_equal(vtu.points, xyz), "vtu points differ from the PLY"
    assert np.array_equal(vtu.point_data["velocity"], vel), "vtu velocity differs"
    assert np.array_equal(vtu.point_data["density"].ravel(), ply["density"]), "vtu density differs"
    assert np.array_equal(vtu.point_data["id"].ravel(), ply["id"]), "vtu id differs"
    assert [c.type for c in vtu.cells] == ["vertex"] and len(vtu.cells[0].data) == len(xyz)
    print(f"vtk fluid frame {frame}: {len(xyz)} points, velocity, density, id equal the PLY")

    if body:
        bply, btri = read_ply(f"{run}/{entry['rigid'][body]}")
        bxyz = np.stack([bply["x"], bply["y"], bply["z"]], axis=1)
        bvtu = meshio.read(f"{run}/vtk/rigid/{body}_{frame:05d}.vtu")
        assert np.array_equal(bvtu.points.astype(np.float32), bxyz), "vtu body points differ"
        assert np.array_equal(bvtu.cells_dict["triangle"], btri), "vtu triangles differ"
        print(f"vtk body {body} frame {frame}: {len(bxyz)} vertices, {len(btri)} triangles")

    stage = Usd.Stage.Open(f"{run}/run.usda")
    assert UsdGeom.GetStageUpAxis(stage) == "Y"
    assert UsdGeom.GetStageMetersPerUnit(stage) == 1.0
    assert stage.GetTimeCodesPerSecond() == manifest["fps"]
    assert stage.GetStartTimeCode() == 0
    assert stage.GetEndTimeCode() == manifest["frames"][-1]["index"]
    points = UsdGeom.Points(stage.GetPrimAtPath("/run/fluid"))
    p = np.array(points.GetPointsAttr().Get(frame), dtype=np.float32)
    assert p.shape == xyz.shape and np.array_equal(p, xyz), "usd points differ from the PLY"
    v = np.array(points.GetVelocitiesAttr().Get(frame), dtype=np.float32)
    assert np.array_equal(v, vel), "usd velocities differ"
    widths = np.array(points.GetWidthsAttr().Get(frame))
    assert len(widths) == len(xyz) and np.allclose(widths, 2 * manifest["particle_radius"])
    ids = UsdGeom.PrimvarsAPI(points).GetPrimvar("id")
    assert ids.GetTypeName() == "int[]" and ids.GetInterpolation() == "vertex"
    assert np.array_equal(np.array(ids.Get(frame)), ply["id"]), "usd ids differ"
    print(f"usd fluid frame {frame}: {len(p)} points, velocities, widths, int ids equal the PLY")

    if body:
        mesh = UsdGeom.Mesh(stage.GetPrimAtPath(f"/run/{body}"))
        xf = mesh.ComputeLocalToWorldTransform(frame)
        world = np.array([xf.Transform(Gf.Vec3d(*q)) for q in mesh.GetPointsAttr().Get(frame)])
        err = np.abs(world - bxyz).max()
        assert err < 1e-6, f"usd body {body} at frame {frame} is {err} m off the PLY"
        assert np.array_equal(np.array(mesh.GetFaceVertexIndicesAttr().Get()), btri.ravel())
        print(f"usd body {body} frame {frame}: posed vertices within {err:.1e} m of the PLY")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "")
