"""Reads a run's VTK and USD exports with independent readers (meshio, usd-core) and checks
them against the run's own PLY files, the liquid surface's too when the run has one (its VTK
series, and its USD mesh whose topology changes between frame 0 and FRAME). Run by
tests/output/export.rs:
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
            props.append((w[2], {"float": "<f4", "int": "<i4", "double": "<f8"}[w[1]]))
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


def check_surface(run, frame):
    """The surface of frame FRAME in the VTK series (meshio) and the USD stage (usd-core)."""
    manifest = json.load(open(f"{run}/manifest.json"))
    with_surface = [f for f in manifest["frames"] if f.get("surface")]
    assert manifest["frames"][frame].get("surface"), f"frame {frame} has no surface"
    ply, tri = read_ply(f"{run}/{manifest['frames'][frame]['surface']}")
    xyz = np.stack([ply["x"], ply["y"], ply["z"]], axis=1)
    nrm = np.stack([ply["nx"], ply["ny"], ply["nz"]], axis=1)
    vel = np.stack([ply["vx"], ply["vy"], ply["vz"]], axis=1)
    assert tri is not None and len(tri) > 0, "the surface PLY has no triangles"

    pvd = open(f"{run}/vtk/surface.pvd").read()
    assert pvd.count("<DataSet") == len(with_surface), pvd
    assert f'file="surface/surface_{frame:05d}.vtu"' in pvd, pvd
    vtu = meshio.read(f"{run}/vtk/surface/surface_{frame:05d}.vtu")
    assert [c.type for c in vtu.cells] == ["triangle"], [c.type for c in vtu.cells]
    assert np.array_equal(vtu.points, xyz), "vtu surface points differ from the PLY"
    assert np.array_equal(vtu.cells_dict["triangle"], tri), "vtu surface triangles differ"
    assert np.array_equal(vtu.point_data["Normals"], nrm), "vtu Normals differ"
    assert np.array_equal(vtu.point_data["Velocity"], vel), "vtu Velocity differs"
    print(f"vtk surface frame {frame}: {len(xyz)} vertices, {len(tri)} triangles, Normals and "
          f"Velocity equal the PLY; surface.pvd lists {len(with_surface)} frames")

    stage = Usd.Stage.Open(f"{run}/run.usda")
    prim = stage.GetPrimAtPath("/run/fluid_surface")
    assert prim.IsValid() and prim.GetTypeName() == "Mesh", "no Mesh /run/fluid_surface"
    mesh = UsdGeom.Mesh(prim)
    p = np.array(mesh.GetPointsAttr().Get(frame), dtype=np.float32)
    assert p.shape == xyz.shape and np.array_equal(p, xyz), "usd surface points differ"
    counts = np.array(mesh.GetFaceVertexCountsAttr().Get(frame))
    assert len(counts) == len(tri) and (counts == 3).all(), "usd faceVertexCounts"
    idx = np.array(mesh.GetFaceVertexIndicesAttr().Get(frame))
    assert np.array_equal(idx, tri.ravel()), "usd faceVertexIndices differ from the PLY"
    assert mesh.GetNormalsInterpolation() == UsdGeom.Tokens.vertex
    assert np.array_equal(np.array(mesh.GetNormalsAttr().Get(frame), dtype=np.float32), nrm)
    assert np.array_equal(np.array(mesh.GetVelocitiesAttr().Get(frame), dtype=np.float32), vel)
    first = with_surface[0]["index"]
    counts0 = mesh.GetFaceVertexCountsAttr().Get(first)
    p0 = mesh.GetPointsAttr().Get(first)
    ply0, tri0 = read_ply(f"{run}/{with_surface[0]['surface']}")
    assert len(p0) == len(ply0) and len(counts0) == len(tri0)
    assert len(counts0) != len(counts), "pick frames whose surfaces differ in topology"
    assert mesh.GetFaceVertexCountsAttr().GetNumTimeSamples() == len(with_surface)
    lo, hi = np.array(mesh.GetExtentAttr().Get(frame))
    assert np.allclose(lo, xyz.min(axis=0)) and np.allclose(hi, xyz.max(axis=0)), "extent"
    print(f"usd surface frame {frame}: {len(p)} points, {len(counts)} triangles (frame "
          f"{first}: {len(p0)} points, {len(counts0)} triangles), normals, velocities, extent "
          "equal the PLY")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "")
    if json.load(open(f"{sys.argv[1]}/manifest.json"))["frames"][int(sys.argv[2])].get("surface"):
        check_surface(sys.argv[1], int(sys.argv[2]))
