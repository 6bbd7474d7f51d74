"""sphrigid for Blender (4.2 and later): play a sphrigid run in Blender, and render a frame.

Install: Edit > Preferences > Add-ons > Install from Disk, pick this file; then
File > Import > sphrigid run (manifest.json). From a script (bpy):

    import sphrigid_blender
    run = sphrigid_blender.load_run("out/dam_break")   # {"root", "fluid", "bodies", "problems"}

From the command line (renders one frame with Cycles on the CPU):

    blender -b --python integrations/blender/sphrigid_blender.py -- out/dam_break \\
        --render dam_break.png --frame 30 --resolution 960 540

What load_run builds:
- an empty `root` that turns sphrigid's y-up data into Blender's z-up (a +90 degree turn
  about x); everything else is its child, so positions in root's frame equal the files';
- one fluid object whose geometry follows the scene frame (frame f shows manifest.frames[f]):
  points of radius `particle_radius` (geometry nodes, Mesh to Points), with the point
  attributes `velocity` (FLOAT_VECTOR, read by motion blur), `density`, `speed` and `id`
  (INT), and a material coloured by speed;
- one object per body whose mesh follows the frame (rigid/<body>_NNNNN.ply);
- the scene's fps and frame range from the manifest, frame 0 being the first file.
Missing files are reported in one line (Blender's report, or stderr), and the rest loads.
"""

import json
import math
import os
import sys

import bpy
import numpy as np

bl_info = {
    "name": "sphrigid run importer",
    "author": "sphrigid",
    "version": (0, 1, 0),
    "blender": (4, 2, 0),
    "location": "File > Import > sphrigid run (manifest.json)",
    "description": "Plays a sphrigid run: fluid points with velocity, bodies, fps and frames",
    "category": "Import-Export",
}

_PLY_TYPES = {"float": "<f4", "double": "<f8", "int": "<i4", "uint": "<u4", "uchar": "u1",
              "char": "i1", "short": "<i2", "ushort": "<u2"}


def read_ply(path):
    """A binary little-endian PLY as written by sphrigid: (vertex record array, triangles or
    None)."""
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    lines = data[:end].decode("ascii").splitlines()
    if lines[1] != "format binary_little_endian 1.0":
        raise ValueError(f"{path}: not a binary little-endian PLY")
    props, n_vert, n_face, element = [], 0, 0, None
    for line in lines:
        w = line.split()
        if w[0] == "element":
            element = w[1]
            if element == "vertex":
                n_vert = int(w[2])
            elif element == "face":
                n_face = int(w[2])
        elif w[0] == "property" and element == "vertex":
            props.append((w[2], _PLY_TYPES[w[1]]))
    verts = np.frombuffer(data, dtype=np.dtype(props), count=n_vert, offset=end)
    tris = None
    if n_face:
        rec = np.dtype([("n", "u1"), ("v", "<i4", 3)])
        tris = np.frombuffer(data, dtype=rec, count=n_face, offset=end + verts.nbytes)["v"]
    return verts, tris


def read_manifest(run_dir):
    """The run's manifest.json, or a ValueError with one line naming the file and the fix."""
    path = os.path.join(run_dir, "manifest.json")
    try:
        with open(path) as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: cannot read the manifest ({e}); fix: pick the output "
                         "directory of a finished `sphrigid run` (the one holding manifest.json)")
    if not m.get("frames"):
        raise ValueError(f"{path}: the manifest lists no frames; fix: rerun the scene")
    return m


def _frame_entry(m, frame):
    """The manifest entry shown at scene frame `frame` (held at the ends)."""
    frames = m["frames"]
    k = min(max(int(frame), 0), len(frames) - 1)
    return frames[k]


def _set_fluid(mesh, path):
    """Replace `mesh`'s points with the particles of the fluid PLY at `path`."""
    v, _ = read_ply(path)
    n = len(v)
    mesh.clear_geometry()
    mesh.vertices.add(n)
    xyz = np.stack([v["x"], v["y"], v["z"]], axis=1).astype(np.float32)
    vel = np.stack([v["vx"], v["vy"], v["vz"]], axis=1).astype(np.float32)
    mesh.vertices.foreach_set("co", xyz.ravel())
    attrs = [("velocity", "FLOAT_VECTOR", "vector", vel.ravel()),
             ("density", "FLOAT", "value", v["density"].astype(np.float32)),
             ("speed", "FLOAT", "value", np.linalg.norm(vel, axis=1).astype(np.float32)),
             ("id", "INT", "value", v["id"].astype(np.int32))]
    for name, kind, field, values in attrs:
        a = mesh.attributes.get(name) or mesh.attributes.new(name, kind, "POINT")
        a.data.foreach_set(field, values)
    mesh.update()


def _set_body(mesh, path):
    """Replace `mesh`'s geometry with the body mesh PLY at `path`."""
    v, tris = read_ply(path)
    mesh.clear_geometry()
    xyz = np.stack([v["x"], v["y"], v["z"]], axis=1).astype(np.float64)
    mesh.from_pydata(xyz.tolist(), [], tris.tolist() if tris is not None else [])
    mesh.update()


def _show_frame(scene, frame):
    """Load frame `frame` into every object that load_run made."""
    manifests = {}
    for obj in scene.objects:
        run_dir = obj.get("sphrigid_run")
        if run_dir is None or obj.type != "MESH":
            continue
        if run_dir not in manifests:
            try:
                manifests[run_dir] = read_manifest(run_dir)
            except ValueError:
                continue
        entry = _frame_entry(manifests[run_dir], frame)
        body = obj.get("sphrigid_body", "")
        rel = entry["fluid"] if not body else entry.get("rigid", {}).get(body)
        if rel is None:
            continue
        path = os.path.join(run_dir, rel)
        if not os.path.exists(path):
            continue  # load_run reported it; the object keeps its last geometry
        (_set_body if body else _set_fluid)(obj.data, path)


@bpy.app.handlers.persistent
def _on_frame_change(scene, *_):
    _show_frame(scene, scene.frame_current)


def _speed_material(max_speed):
    """A material coloured by the point attribute `speed`, blue (still) to yellow (max)."""
    mat = bpy.data.materials.new("sphrigid_speed")
    mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = nodes.get("Principled BSDF")
    attr = nodes.new("ShaderNodeAttribute")
    attr.attribute_name = "speed"
    ramp_in = nodes.new("ShaderNodeMapRange")
    ramp_in.inputs["From Max"].default_value = max(max_speed, 1e-6)
    ramp = nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color = (0.05, 0.15, 0.6, 1.0)
    ramp.color_ramp.elements[1].color = (1.0, 0.85, 0.1, 1.0)
    links.new(attr.outputs["Fac"], ramp_in.inputs["Value"])
    links.new(ramp_in.outputs["Result"], ramp.inputs["Fac"])
    links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Roughness"].default_value = 0.3
    return mat


def _points_modifier(obj, radius, material):
    """Geometry nodes on `obj`: Mesh to Points with `radius`, then `material`."""
    tree = bpy.data.node_groups.new("sphrigid_points", "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    n_in = tree.nodes.new("NodeGroupInput")
    n_out = tree.nodes.new("NodeGroupOutput")
    to_points = tree.nodes.new("GeometryNodeMeshToPoints")
    to_points.inputs["Radius"].default_value = radius
    set_mat = tree.nodes.new("GeometryNodeSetMaterial")
    set_mat.inputs["Material"].default_value = material
    tree.links.new(n_in.outputs[0], to_points.inputs["Mesh"])
    tree.links.new(to_points.outputs["Points"], set_mat.inputs["Geometry"])
    tree.links.new(set_mat.outputs["Geometry"], n_out.inputs[0])
    mod = obj.modifiers.new("sphrigid points", "NODES")
    mod.node_group = tree


def load_run(run_dir, report=None):
    """Load the sphrigid run in `run_dir` into the current scene; returns
    {"root": empty, "fluid": object, "bodies": {name: object}, "problems": [str]}.
    `report(line)` is told in one line about missing files (default: print to stderr)."""
    run_dir = os.path.abspath(run_dir)
    m = read_manifest(run_dir)
    scene = bpy.context.scene
    fps = float(m["fps"])
    scene.render.fps = max(1, round(fps))
    scene.render.fps_base = scene.render.fps / fps
    scene.frame_start = m["frames"][0]["index"]
    scene.frame_end = m["frames"][-1]["index"]

    missing = []
    for f in m["frames"]:
        for rel in [f["fluid"], *f.get("rigid", {}).values()]:
            if not os.path.exists(os.path.join(run_dir, rel)):
                missing.append(rel)
    problems = []
    if missing:
        problems.append(f"{run_dir}: {len(missing)} file(s) the manifest lists are missing "
                        f"(first {missing[0]}); they show the previous frame; fix: rerun the scene")
    if not m.get("complete", True):
        problems.append(f"{run_dir}: the run is incomplete (frames 0..{scene.frame_end} "
                        "written); fix: rerun the scene to finish it")
    if problems:
        (report or (lambda line: print(line, file=sys.stderr)))("; ".join(problems))

    name = os.path.basename(run_dir.rstrip(os.sep)) or "run"
    root = bpy.data.objects.new(f"sphrigid {name}", None)
    root.rotation_euler = (math.pi / 2, 0.0, 0.0)  # data y-up -> Blender z-up
    scene.collection.objects.link(root)

    def child(obj_name, mesh_name, body=""):
        obj = bpy.data.objects.new(obj_name, bpy.data.meshes.new(mesh_name))
        obj["sphrigid_run"] = run_dir
        obj["sphrigid_body"] = body
        obj.parent = root
        scene.collection.objects.link(obj)
        return obj

    fluid = child(f"{name} fluid", "sphrigid_fluid")
    max_speed = 0.0
    for f in m["frames"][:: max(1, len(m["frames"]) // 8)] + [m["frames"][-1]]:
        p = os.path.join(run_dir, f["fluid"])
        if os.path.exists(p):
            v, _ = read_ply(p)
            speed = np.sqrt(v["vx"] ** 2 + v["vy"] ** 2 + v["vz"] ** 2)
            max_speed = max(max_speed, float(speed.max()) if len(speed) else 0.0)
    _points_modifier(fluid, float(m["particle_radius"]), _speed_material(max_speed))

    bodies = {}
    names = sorted({b for f in m["frames"] for b in f.get("rigid", {})})
    for i, body in enumerate(names):
        obj = child(f"{name} {body}", f"sphrigid_{body}", body)
        mat = bpy.data.materials.new(f"sphrigid_{body}")
        mat.diffuse_color = (0.8, 0.35 + 0.1 * i, 0.2, 1.0)
        mat.use_nodes = True
        mat.node_tree.nodes.get("Principled BSDF").inputs["Base Color"].default_value = \
            mat.diffuse_color
        obj.data.materials.append(mat)
        bodies[body] = obj

    if _on_frame_change not in bpy.app.handlers.frame_change_pre:
        bpy.app.handlers.frame_change_pre.append(_on_frame_change)
    _show_frame(scene, scene.frame_current)
    return {"root": root, "fluid": fluid, "bodies": bodies, "problems": problems}


def _to_blender(p):
    """A point of the data (y-up) in Blender's world (z-up) under load_run's root."""
    return (p[0], -p[2], p[1])


def setup_render(run, manifest, resolution=(960, 540), samples=16):
    """Camera framed on the container (or the first frame's particles), a floor, lights and
    Cycles on the CPU."""
    from mathutils import Vector

    scene = bpy.context.scene
    container = (manifest.get("scene") or {}).get("container")
    if container:
        lo, hi = container["min"], container["max"]
    else:
        co = np.array([v.co[:] for v in run["fluid"].data.vertices] or [[0, 0, 0]])
        lo, hi = co.min(axis=0).tolist(), (co.max(axis=0) + 1e-3).tolist()
    lo_b, hi_b = Vector(_to_blender(lo)), Vector(_to_blender(hi))
    bmin = Vector(map(min, lo_b, hi_b))
    bmax = Vector(map(max, lo_b, hi_b))
    center = (bmin + bmax) / 2
    size = bmax - bmin

    cam_data = bpy.data.cameras.new("sphrigid camera")
    cam_data.lens = 35
    cam = bpy.data.objects.new("sphrigid camera", cam_data)
    scene.collection.objects.link(cam)
    w, h = resolution
    fov = 2 * math.atan(cam_data.sensor_width / (2 * cam_data.lens))
    span = max(size.x, size.z * w / h) * 1.15
    dist = span / (2 * math.tan(fov / 2)) + size.y / 2
    direction = Vector((0.3, -1.0, 0.35)).normalized()
    cam.location = center + direction * dist
    cam.rotation_euler = (-direction).to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam

    bpy.ops.mesh.primitive_plane_add(size=max(size.x, size.y) * 4, location=(center.x, center.y, bmin.z))
    floor = bpy.context.active_object
    floor.name = "sphrigid floor"
    fmat = bpy.data.materials.new("sphrigid floor")
    fmat.use_nodes = True
    fmat.node_tree.nodes.get("Principled BSDF").inputs["Base Color"].default_value = (0.6, 0.6, 0.6, 1)
    floor.data.materials.append(fmat)

    sun = bpy.data.objects.new("sphrigid sun", bpy.data.lights.new("sphrigid sun", "SUN"))
    sun.data.energy = 3.0
    sun.rotation_euler = (math.radians(40), math.radians(10), math.radians(30))
    scene.collection.objects.link(sun)
    world = scene.world or bpy.data.worlds.new("sphrigid world")
    scene.world = world
    world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.7, 0.75, 0.8, 1)
    world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.6

    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = False
    scene.render.resolution_x, scene.render.resolution_y = w, h
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"


def main(argv):
    """`RUN_DIR [--render OUT.png] [--frame N] [--resolution W H] [--samples S]`: load the run
    into an empty scene and, with --render, render frame N (Cycles, CPU). Returns 0, or 2 when
    the run could not be read or files were missing (after loading and rendering the rest)."""
    import argparse

    ap = argparse.ArgumentParser(prog="sphrigid_blender.py")
    ap.add_argument("run_dir")
    ap.add_argument("--render", metavar="OUT.png")
    ap.add_argument("--frame", type=int, default=0)
    ap.add_argument("--resolution", type=int, nargs=2, default=(960, 540), metavar=("W", "H"))
    ap.add_argument("--samples", type=int, default=16)
    args = ap.parse_args(argv)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    try:
        manifest = read_manifest(args.run_dir)
        run = load_run(args.run_dir)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    bpy.context.scene.frame_set(args.frame)
    if args.render:
        setup_render(run, manifest, tuple(args.resolution), args.samples)
        bpy.context.scene.render.filepath = os.path.abspath(args.render)
        bpy.ops.render.render(write_still=True)
        print(f"rendered frame {args.frame} to {args.render}")
    return 2 if run["problems"] else 0


class ImportSphrigidRun(bpy.types.Operator):
    """Load a sphrigid run: fluid points, bodies, fps and frame range"""

    bl_idname = "import_scene.sphrigid_run"
    bl_label = "sphrigid run (manifest.json)"
    bl_options = {"REGISTER", "UNDO"}

    filepath: bpy.props.StringProperty(subtype="FILE_PATH")
    filter_glob: bpy.props.StringProperty(default="manifest.json", options={"HIDDEN"})

    def execute(self, context):
        run_dir = os.path.dirname(self.filepath) if os.path.isfile(self.filepath) else self.filepath
        try:
            load_run(run_dir, report=lambda line: self.report({"WARNING"}, line))
        except ValueError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        return {"FINISHED"}

    def invoke(self, context, event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}


def _menu(self, context):
    self.layout.operator(ImportSphrigidRun.bl_idname, text=ImportSphrigidRun.bl_label)


def register():
    bpy.utils.register_class(ImportSphrigidRun)
    bpy.types.TOPBAR_MT_file_import.append(_menu)
    if _on_frame_change not in bpy.app.handlers.frame_change_pre:
        bpy.app.handlers.frame_change_pre.append(_on_frame_change)


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(_menu)
    bpy.utils.unregister_class(ImportSphrigidRun)
    if _on_frame_change in bpy.app.handlers.frame_change_pre:
        bpy.app.handlers.frame_change_pre.remove(_on_frame_change)


if __name__ == "__main__":
    # blender -b --python sphrigid_blender.py -- RUN_DIR ...; or python sphrigid_blender.py RUN_DIR
    args = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    sys.exit(main(args))
