"""Loads sphrigid runs with the Blender add-on (bpy from pip) and checks frame FRAME against
the run's PLY files; then renders a small picture and checks it is not blank. Run by
tests/blender_addon.rs:
    python check_blender.py ADDON_DIR FLUID_RUN BODY_RUN BODY FRAME OUT.png
Prints one line per check; exits non-zero with an assertion message on a mismatch."""
import json
import os
import sys

sys.path.insert(0, sys.argv[1])
import bpy  # noqa: E402
import numpy as np  # noqa: E402
import sphrigid_blender as sb  # noqa: E402


def attribute(mesh, name, field, width):
    a = mesh.attributes[name]
    out = np.zeros(len(a.data) * width, dtype=np.int32 if a.data_type == "INT" else np.float32)
    a.data.foreach_get(field, out)
    return a.data_type, out.reshape(-1, width) if width > 1 else out


def check_fluid(run, frame):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    loaded = sb.load_run(run)
    scene = bpy.context.scene
    m = json.load(open(os.path.join(run, "manifest.json")))
    assert (scene.frame_start, scene.frame_end) == (0, m["frames"][-1]["index"])
    assert abs(scene.render.fps / scene.render.fps_base - m["fps"]) < 1e-9
    scene.frame_set(frame)
    v, _ = sb.read_ply(os.path.join(run, m["frames"][frame]["fluid"]))
    mesh = loaded["fluid"].data
    co = np.zeros(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    xyz = np.stack([v["x"], v["y"], v["z"]], axis=1)
    assert co.size == xyz.size, (co.size, xyz.size)
    assert np.array_equal(co.reshape(-1, 3), xyz), "fluid positions differ from the PLY"
    kind, vel = attribute(mesh, "velocity", "vector", 3)
    assert kind == "FLOAT_VECTOR"
    assert np.array_equal(vel, np.stack([v["vx"], v["vy"], v["vz"]], axis=1)), "velocity differs"
    kind, ids = attribute(mesh, "id", "value", 1)
    assert kind == "INT" and np.array_equal(ids, v["id"]), "id is not the PLY's int id"
    # Positions in root's frame are the file's: the fluid sits at identity under the root,
    # and the root turns y-up into z-up.
    root = loaded["root"]
    assert loaded["fluid"].parent == root and loaded["fluid"].matrix_local.is_identity
    bpy.context.view_layer.update()
    zs = np.array([(loaded["fluid"].matrix_world @ vv.co).z for vv in mesh.vertices])
    assert np.allclose(zs, xyz[:, 1], atol=1e-6), "data y is not Blender's z"
    print(f"fluid frame {frame}: {len(xyz)} points, positions, velocity, int id equal the PLY")


def check_body(run, body, frame):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    loaded = sb.load_run(run)
    bpy.context.scene.frame_set(frame)
    m = json.load(open(os.path.join(run, "manifest.json")))
    v, tris = sb.read_ply(os.path.join(run, m["frames"][frame]["rigid"][body]))
    mesh = loaded["bodies"][body].data
    co = np.array([vv.co[:] for vv in mesh.vertices])
    xyz = np.stack([v["x"], v["y"], v["z"]], axis=1)
    assert co.shape == xyz.shape and np.abs(co - xyz).max() < 1e-6, "body pose differs"
    faces = np.array([p.vertices[:] for p in mesh.polygons])
    assert np.array_equal(faces, tris), "body triangles differ"
    # The pose follows the frame: back at frame 0 it is frame 0's.
    bpy.context.scene.frame_set(0)
    co0 = np.array([vv.co[:] for vv in mesh.vertices])
    v0, _ = sb.read_ply(os.path.join(run, m["frames"][0]["rigid"][body]))
    assert np.abs(co0 - np.stack([v0["x"], v0["y"], v0["z"]], axis=1)).max() < 1e-6
    assert np.abs(co - co0).max() > 1e-3, "the body did not move: pick a run where it does"
    print(f"body {body} frame {frame}: {len(co)} vertices at the PLY pose "
          f"(moved {np.abs(co - co0).max():.2e} m since frame 0)")


def check_render(run, frame, out):
    code = sb.main([run, "--render", out, "--frame", str(frame), "--resolution", "64", "48",
                    "--samples", "4"])
    assert code == 0, code
    img = bpy.data.images.load(out)
    assert tuple(img.size) == (64, 48), tuple(img.size)
    px = np.array(img.pixels[:]).reshape(48, 64, 4)[:, :, :3]
    spread = float(px.std())
    assert spread > 0.02, f"the render is blank (pixel std {spread})"
    print(f"render of frame {frame}: 64x48, pixel std {spread:.3f}")


def check_usd_import(run, frame):
    """The stage of `sphrigid export RUN --to usd` imported by Blender's own USD importer."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    assert bpy.ops.wm.usd_import(filepath=os.path.join(run, "run.usda")) == {"FINISHED"}
    scene = bpy.context.scene
    m = json.load(open(os.path.join(run, "manifest.json")))
    assert (scene.frame_start, scene.frame_end) == (0, m["frames"][-1]["index"])
    scene.frame_set(frame)
    obj = bpy.data.objects["fluid"]
    cloud = obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).data
    n = len(cloud.points)
    v, _ = sb.read_ply(os.path.join(run, m["frames"][frame]["fluid"]))
    assert n == len(v), (n, len(v))
    co = np.zeros(n * 3, dtype=np.float32)
    cloud.attributes["position"].data.foreach_get("vector", co)
    xyz = np.stack([v["x"], v["y"], v["z"]], axis=1)
    assert np.array_equal(co.reshape(-1, 3), xyz), "USD points in Blender differ from the PLY"
    radius = np.zeros(n, dtype=np.float32)
    cloud.attributes["radius"].data.foreach_get("value", radius)
    assert np.allclose(radius, m["particle_radius"]), radius[:3]
    assert {"velocity", "id"} <= set(cloud.attributes.keys()), list(cloud.attributes.keys())
    print(f"usd stage in Blender, frame {frame}: {n} points at the PLY positions, radius "
          f"{radius[0]:.4f}, velocity and id attributes")


def check_bad_input():
    import tempfile

    with tempfile.TemporaryDirectory() as empty:
        assert sb.main([empty]) == 2
        try:
            sb.read_manifest(empty)
            raise AssertionError("a directory without manifest.json was read")
        except ValueError as e:
            line = str(e)
            assert "\n" not in line and "manifest.json" in line and "fix:" in line, line
    print("a directory without manifest.json: exit 2, one line")


def check_missing_frame(run, frame):
    """A run with a fluid frame missing loads the rest and says so in one line."""
    import shutil
    import tempfile

    tmp = tempfile.TemporaryDirectory()
    copy = os.path.join(tmp.name, "run")
    shutil.copytree(run, copy)
    os.remove(os.path.join(copy, "fluid", "fluid_00003.ply"))
    bpy.ops.wm.read_factory_settings(use_empty=True)
    lines = []
    loaded = sb.load_run(copy, report=lines.append)
    assert len(lines) == 1 and "fluid/fluid_00003.ply" in lines[0] and "fix:" in lines[0], lines
    bpy.context.scene.frame_set(frame)
    v, _ = sb.read_ply(os.path.join(copy, "fluid", f"fluid_{frame:05d}.ply"))
    assert len(loaded["fluid"].data.vertices) == len(v)
    assert sb.main([copy]) == 2
    tmp.cleanup()
    print(f"a missing fluid frame: one line, frame {frame} still loads, exit 2")


if __name__ == "__main__":
    _, _, fluid_run, body_run, body, frame, out = sys.argv
    check_fluid(fluid_run, int(frame))
    check_usd_import(fluid_run, int(frame))
    check_body(body_run, body, int(frame))
    check_render(body_run, int(frame), out)
    check_bad_input()
    check_missing_frame(fluid_run, int(frame))
