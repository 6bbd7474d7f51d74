"""Loads sphrigid runs with the Blender add-on (bpy from pip) and checks frame FRAME against
the run's PLY files; then renders a small picture and checks it is not blank; with
SURFACE_RUN (a run with liquid surfaces, exported to USD), loads its surface, checks it against
the surface PLYs and renders it. Run by tests/output/blender.rs:
    python check_blender.py ADDON_DIR FLUID_RUN BODY_RUN BODY FRAME OUT.png [SURFACE_RUN]
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


def _pixels(path, w, h):
    img = bpy.data.images.load(path)
    assert tuple(img.size) == (w, h), tuple(img.size)
    px = np.array(img.pixels[:]).reshape(h, w, 4)[:, :, :3]
    bpy.data.images.remove(img)
    return px


def check_surface(run, frame, out):
    """The run's liquid surface: one object whose mesh is frame FRAME's PLY (vertices,
    triangles, custom normals, velocity), with the water material; its topology follows the
    frame; it lies in the camera's view and changes the rendered picture there."""
    from bpy_extras.object_utils import world_to_camera_view

    bpy.ops.wm.read_factory_settings(use_empty=True)
    loaded = sb.load_run(run)
    assert loaded["shows"] == "surface" and loaded["surface"] is not None, loaded["shows"]
    assert loaded["fluid"].hide_render and not loaded["surface"].hide_render
    assert loaded["container"] is not None, "the scene's container is not drawn"
    m = json.load(open(os.path.join(run, "manifest.json")))
    scene = bpy.context.scene
    surface = loaded["surface"]

    def evaluated(f):
        scene.frame_set(f)
        v, tris = sb.read_ply(os.path.join(run, m["frames"][f]["surface"]))
        mesh = surface.evaluated_get(bpy.context.evaluated_depsgraph_get()).data
        assert len(mesh.vertices) == len(v), (f, len(mesh.vertices), len(v))
        assert len(mesh.polygons) == len(tris), (f, len(mesh.polygons), len(tris))
        return v, tris, mesh

    v0, tris0, _ = evaluated(0)
    v, tris, mesh = evaluated(frame)
    assert len(tris) != len(tris0), "pick frames whose surfaces differ in topology"
    co = np.zeros(len(v) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    xyz = np.stack([v["x"], v["y"], v["z"]], axis=1)
    assert np.array_equal(co.reshape(-1, 3), xyz), "surface vertices differ from the PLY"
    loops = np.zeros(len(mesh.loops), dtype=np.int32)
    mesh.loops.foreach_get("vertex_index", loops)
    assert np.array_equal(loops, tris.ravel()), "surface triangles differ from the PLY"
    kind, vel = attribute(mesh, "velocity", "vector", 3)
    assert kind == "FLOAT_VECTOR"
    assert np.array_equal(vel, np.stack([v["vx"], v["vy"], v["vz"]], axis=1)), "velocity"
    corner = np.zeros(len(mesh.loops) * 3, dtype=np.float32)
    mesh.corner_normals.foreach_get("vector", corner)
    nrm = np.stack([v["nx"], v["ny"], v["nz"]], axis=1)[loops]
    cos = (corner.reshape(-1, 3) * nrm).sum(axis=1) / np.linalg.norm(nrm, axis=1)
    # Blender gives a face of zero area no custom normal of its own (and it shows nothing),
    # and bends a custom normal that lies far off its face's own side (at the box's edges):
    # of the corners of faces with an area, 99% hold the file's normal within 1 degree
    # (Blender's own smooth normals: about half).
    p = xyz.astype(np.float64)[tris]
    area = np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1) / 2
    cos = cos[np.repeat(area > 1e-6 * np.median(area), 3)]
    held = float((cos > np.cos(np.radians(1.0))).mean())
    assert held > 0.99, f"only {held:.1%} of the corners hold the file's normal within 1 deg"
    tree = surface.data.materials[0].node_tree
    bsdf = tree.nodes["Principled BSDF"]
    assert bsdf.inputs["Transmission Weight"].default_value == 1.0
    assert abs(bsdf.inputs["IOR"].default_value - 1.33) < 1e-6
    # A blue-green absorption in the water's volume, 1.2 per the container's smallest size.
    output = next(n for n in tree.nodes if n.type == "OUTPUT_MATERIAL")
    vol = [lk.from_node for lk in tree.links if lk.to_socket == output.inputs["Volume"]]
    assert len(vol) == 1 and vol[0].type == "VOLUME_ABSORPTION", vol
    cont = m["scene"]["container"]
    size = min(b - a for a, b in zip(cont["min"], cont["max"]))
    assert abs(vol[0].inputs["Density"].default_value - 1.2 / size) < 1e-6 * (1 + 1.2 / size)
    print(f"surface frame {frame}: {len(v)} vertices, {len(tris)} triangles (frame 0: "
          f"{len(tris0)}), {held:.1%} of the corners with the file's normal, velocity, water "
          "material")

    w, h = 64, 48
    sb.setup_render(loaded, m, (w, h), 4)
    cam = scene.camera
    world = np.array([tuple(surface.matrix_world @ vv.co) for vv in mesh.vertices])
    from mathutils import Vector
    ndc = np.array([tuple(world_to_camera_view(scene, cam, Vector(p))) for p in world])
    inside = ((ndc[:, 0] >= 0) & (ndc[:, 0] <= 1) & (ndc[:, 1] >= 0) & (ndc[:, 1] <= 1)
              & (ndc[:, 2] > 0)).mean()
    assert inside > 0.99, f"only {inside:.0%} of the surface is in the camera's view"
    # The whole tank is in the frame (its depth and the oblique view included), and it fills
    # it: the camera is as close as that allows, so some corner lies near an edge.
    corners = [Vector(sb._to_blender((x, y, z))) for x in (cont["min"][0], cont["max"][0])
               for y in (cont["min"][1], cont["max"][1]) for z in (cont["min"][2], cont["max"][2])]
    cv = np.array([tuple(world_to_camera_view(scene, cam, c)) for c in corners])
    assert (cv[:, :2] > 0).all() and (cv[:, :2] < 1).all() and (cv[:, 2] > 0).all(), cv
    edge = min(cv[:, 0].min(), 1 - cv[:, 0].max(), cv[:, 1].min(), 1 - cv[:, 1].max())
    assert edge < 0.06, f"the tank's corners keep {edge:.2f} of the frame from its edges"
    assert scene.cycles.max_bounces >= 32 and scene.cycles.transmission_bounces >= 32
    shown, hidden = out, out.replace(".png", "_hidden.png")
    for path, hide in [(shown, False), (hidden, True)]:
        surface.hide_render = hide
        scene.render.filepath = path
        bpy.ops.render.render(write_still=True)
    a, b = _pixels(shown, w, h), _pixels(hidden, w, h)
    changed = np.abs(a - b).max(axis=2) > 0.05
    # The pixels the surface covers: those its (dense) vertices project into. Blender's
    # pixel rows run from the bottom, as the camera's y does.
    covered = np.zeros((h, w), dtype=bool)
    rows = np.clip((ndc[:, 1] * h).astype(int), 0, h - 1)
    cols = np.clip((ndc[:, 0] * w).astype(int), 0, w - 1)
    covered[rows, cols] = True
    inside, outside = changed[covered].mean(), changed[~covered].mean()
    assert inside > 0.5 and inside > 2 * outside, \
        f"the surface changes {inside:.0%} of the pixels it covers, {outside:.0%} of the others"
    print(f"render of the surface at frame {frame}: {w}x{h}, all its vertices in view (the "
          f"tank's 8 corners too, {edge:.3f} from the frame's edge), it "
          f"changes {inside:.0%} of the {covered.sum()} pixels it covers ({outside:.0%} of the "
          "others: shadow and refraction)")
    assert sb.main([run, "--points", "--frame", str(frame)]) == 0
    print("--points loads the particles of a run with a surface, exit 0")


def check_surface_usd(run, frame):
    """The surface in `sphrigid export --to usd` imported by Blender's own USD importer."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    assert bpy.ops.wm.usd_import(filepath=os.path.join(run, "run.usda")) == {"FINISHED"}
    m = json.load(open(os.path.join(run, "manifest.json")))
    counts = []
    for f in (0, frame):
        bpy.context.scene.frame_set(f)
        obj = bpy.data.objects["fluid_surface"]
        mesh = obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).data
        v, tris = sb.read_ply(os.path.join(run, m["frames"][f]["surface"]))
        assert (len(mesh.vertices), len(mesh.polygons)) == (len(v), len(tris)), \
            (f, len(mesh.vertices), len(mesh.polygons), len(v), len(tris))
        counts.append(len(tris))
    print(f"usd surface in Blender: frames 0 and {frame} have the PLYs' {counts[0]} and "
          f"{counts[1]} triangles")


if __name__ == "__main__":
    _, _, fluid_run, body_run, body, frame, out, *surface_run = sys.argv
    check_fluid(fluid_run, int(frame))
    check_usd_import(fluid_run, int(frame))
    check_body(body_run, body, int(frame))
    check_render(body_run, int(frame), out)
    check_bad_input()
    check_missing_frame(fluid_run, int(frame))
    if surface_run:
        check_surface(surface_run[0], int(frame), out.replace(".png", "_surface.png"))
        check_surface_usd(surface_run[0], int(frame))
